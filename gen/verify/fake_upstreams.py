"""Fake upstream DNS servers on loopback, so verify can make an upstream fail on purpose.

Each fake stands for one upstream of the real Corefile (an IP, or a resolv.conf file) and
answers UDP and TCP from threads. Its behaviour can be switched while CoreDNS runs:
`answer` (NOERROR with an A record unique to this fake, so the client can tell who answered),
`servfail`, `refused`, `silent` (reads and drops), `closed` (the port is shut, so the kernel
refuses). Every fake stops itself after `lifetime` seconds even if nobody calls `stop()`.

The serving threads block in recvfrom/accept and are woken on purpose when the fake closes
(a datagram to itself; a listening socket's shutdown), not by polling: with sixty sandboxes
running at once (`guard --verify` on ten clusters) 50 ms polls were ~10,000 wake-ups a second
fighting the scenario clients for the GIL on a two-core machine.
"""

from __future__ import annotations

import enum
import ipaddress
import os
import socket
import struct
import threading
import time
from dataclasses import dataclass, field

import dns.flags
import dns.message
import dns.rcode
import dns.rdataclass
import dns.rdatatype
import dns.rrset

from gen.loopback import free_port as free_port  # re-exported: sandbox and tests import it from here

DEFAULT_LIFETIME = 120.0
PROBE_NAME = "probe.coredns-gen.invalid."  # readiness probes and the warm-up query, never a scenario's name
_IDLE = 1.0  # how late a serving thread notices its lifetime is over (stop() and set() wake it at once)


class Behaviour(str, enum.Enum):
    ANSWER = "answer"
    SERVFAIL = "servfail"
    REFUSED = "refused"
    SILENT = "silent"
    CLOSED = "closed"


def answer_address(index: int) -> str:
    """The A record fake number `index` answers with (TEST-NET-2, never a real host)."""
    return str(ipaddress.IPv4Address("198.51.100.0") + 1 + index)


@dataclass
class FakeUpstream:
    """One upstream stand-in; `label` is the upstream as written in the Corefile."""

    label: str
    index: int
    host: str = "127.0.0.1"
    port: int = 0
    behaviour: Behaviour = Behaviour.ANSWER
    lifetime: float = DEFAULT_LIFETIME
    queries: list[tuple[str, str, str]] = field(default_factory=list)  # (qname, qtype, transport)
    _stop: threading.Event = field(default_factory=threading.Event)
    _socks: list[socket.socket] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _threads: list[threading.Thread] = field(default_factory=list)
    _up: tuple[threading.Event, threading.Event] = field(default_factory=lambda: (threading.Event(), threading.Event()))
    _closing: bool = False

    @property
    def address(self) -> str:
        """`host:port` as CoreDNS's forward plugin takes it."""
        return f"{self.host}:{self.port}"

    @property
    def answer(self) -> str:
        return answer_address(self.index)

    def start(self) -> "FakeUpstream":
        """Bind UDP and TCP on the same port (port 0 = a free one) and serve until stopped.

        A free port comes from free_port (below the ephemeral range, never handed out twice in
        this process), not from the kernel's bind(0): a `closed` fake gives its port back, and
        an ephemeral one was then taken by another fake (a parallel scenario's primary, same
        fake index, same answer) which answered for the closed upstream: `all-down` got NOERROR.
        """
        if self.port == 0:
            self.port = free_port(self.host)
        udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        udp.bind((self.host, self.port))
        self.port = udp.getsockname()[1]
        tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            tcp.bind((self.host, self.port))
        except OSError:
            udp.close()
            raise
        tcp.listen(16)
        for s in (udp, tcp):
            s.settimeout(_IDLE)
        self._socks = [udp, tcp]
        self._deadline = time.monotonic() + self.lifetime
        if self.behaviour is Behaviour.CLOSED:
            self.set(Behaviour.CLOSED)
            return self
        for target in (self._serve_udp, self._serve_tcp):
            thread = threading.Thread(target=target, daemon=True, name=f"fake-{self.label}")
            thread.start()
            self._threads.append(thread)
        return self

    def set(self, behaviour: Behaviour) -> None:
        """Switch behaviour; `closed` shuts the sockets for good so the port really refuses."""
        if self.behaviour is Behaviour.CLOSED and behaviour is not Behaviour.CLOSED:
            raise ValueError(f"fake {self.label} is closed and cannot reopen")
        with self._lock:
            self.behaviour = behaviour
        if behaviour is Behaviour.CLOSED:
            self._close()

    def stop(self) -> None:
        self._stop.set()
        self._close()

    def _close(self) -> None:
        # A socket stays bound while a thread sits in recvfrom/accept on it: wake the threads
        # (recvfrom by a datagram of our own: shutdown does not wake it), wait for them, then
        # close, so the kernel refuses the very next packet.
        self._closing = True
        if self._socks and self._threads:
            try:
                with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as poke:
                    poke.sendto(b"", (self.host, self.port))
            except OSError:
                pass
        for s in self._socks:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        for thread in self._threads:
            if thread is not threading.current_thread():
                thread.join(timeout=_IDLE + 1.0)
        for s in self._socks:
            s.close()

    def _running(self) -> bool:
        return not self._closing and not self._stop.is_set() and time.monotonic() < self._deadline

    def received(self) -> list[tuple[str, str, str]]:
        """Queries seen so far, without CoreDNS's own health checks (`. NS`) and our probes."""
        with self._lock:
            return [q for q in self.queries if not (q[0] == "." and q[1] == "NS") and q[0] != PROBE_NAME]

    def wait_ready(self, timeout: float = 10.0) -> None:
        """Wait until both serving threads sit in their loops on the bound sockets: from then on
        whatever CoreDNS sends is queued by the kernel and answered. A closed fake is ready by
        refusing.

        Raises:
            OSError: the threads did not start within `timeout`.
        """
        if self.behaviour is not Behaviour.ANSWER:
            return
        deadline = time.monotonic() + timeout
        for up in self._up:
            if not up.wait(max(0.0, deadline - time.monotonic())):
                raise OSError(f"fake upstream {self.label} ({self.address}) did not start serving within {timeout:.0f} s")

    def _reply(self, wire: bytes, transport: str) -> bytes | None:
        try:
            query = dns.message.from_wire(wire)
        except Exception:  # noqa: BLE001 - garbage in, nothing out, like a real server
            return None
        q = query.question[0] if query.question else None
        with self._lock:
            behaviour = self.behaviour
            if q is not None:
                self.queries.append((q.name.to_text(), dns.rdatatype.to_text(q.rdtype), transport))
        if behaviour in (Behaviour.SILENT, Behaviour.CLOSED):
            return None
        resp = dns.message.make_response(query)
        resp.flags |= dns.flags.RA
        if behaviour is Behaviour.SERVFAIL:
            resp.set_rcode(dns.rcode.SERVFAIL)
        elif behaviour is Behaviour.REFUSED:
            resp.set_rcode(dns.rcode.REFUSED)
        elif q is not None and q.rdtype == dns.rdatatype.A:
            resp.answer.append(dns.rrset.from_text(q.name, 5, dns.rdataclass.IN, dns.rdatatype.A, self.answer))
        return resp.to_wire()

    def _serve_udp(self) -> None:
        sock = self._socks[0]
        self._up[0].set()
        while self._running():
            try:
                wire, peer = sock.recvfrom(65535)
            except socket.timeout:
                continue
            except OSError:
                return
            if not self._running():
                break  # woken by _close, or the lifetime is over
            out = self._reply(wire, "udp")
            if out is not None:
                try:
                    sock.sendto(out, peer)
                except OSError:
                    pass
        sock.close()

    def _serve_tcp(self) -> None:
        sock = self._socks[1]
        self._up[1].set()
        while self._running():
            try:
                conn, _ = sock.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            threading.Thread(target=self._serve_conn, args=(conn,), daemon=True).start()
        sock.close()

    def _serve_conn(self, conn: socket.socket) -> None:
        conn.settimeout(_IDLE)
        buf = b""
        with conn:
            while self._running():
                try:
                    chunk = conn.recv(65535)
                except socket.timeout:
                    continue
                except OSError:
                    return
                if not chunk:
                    return
                buf += chunk
                while len(buf) >= 2 and len(buf) >= 2 + struct.unpack("!H", buf[:2])[0]:
                    size = struct.unpack("!H", buf[:2])[0]
                    wire, buf = buf[2 : 2 + size], buf[2 + size :]
                    out = self._reply(wire, "tcp")
                    if out is not None:
                        conn.sendall(struct.pack("!H", len(out)) + out)


_next_host = [2 + os.getpid() % 200]
_host_lock = threading.Lock()


def loopback_host() -> str:
    """A loopback address other than 127.0.0.1 for the next fake.

    CoreDNS dials upstreams from 127.0.0.1. A closed fake on 127.0.0.1 itself lets the kernel
    pick the closed port as the *source* port once forward has re-dialled often enough: the
    socket then connects to itself, reads its own query back, and CoreDNS answers FORMERR
    (measured with 1.13.1). A different address makes that impossible, as in a real cluster.
    """
    with _host_lock:
        n = _next_host[0]
        _next_host[0] = 2 + (n - 1) % 253
    return f"127.0.0.{n}"


def start_fake(label: str, index: int, *, port: int = 0, behaviour: Behaviour = Behaviour.ANSWER,
               lifetime: float = DEFAULT_LIFETIME) -> FakeUpstream:
    """Start a fake on a fresh loopback address (retrying a few when a fixed port is taken)."""
    last: OSError | None = None
    for _ in range(50):
        fake = FakeUpstream(label, index, host=loopback_host(), port=port, behaviour=behaviour,
                            lifetime=lifetime)
        try:
            return fake.start()
        except OSError as err:
            last = err
    raise OSError(f"cannot start fake upstream {label}: {last}")


def can_bind_port_53(host: str) -> bool:
    """True when this process may bind host:53 (root, or a lowered unprivileged port start)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.bind((host, 53))
        return True
    except OSError:
        return False
    finally:
        s.close()
