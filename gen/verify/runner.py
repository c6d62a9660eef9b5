"""Run the real CoreDNS binary on a sandbox and ask it questions with a real DNS client.

One process per upstream state: forward keeps per-process health state (a dead primary stays
marked down), so a scenario that kills an upstream gets a fresh CoreDNS.

Start-up is ready when all of these hold, in this order:
1. every DNS listener accepts TCP;
2. every DNS listener's UDP socket is bound (/proc/net/udp): CoreDNS (caddy's startServers)
   binds TCP, then UDP, so an accepted TCP probe does not mean a UDP query has anywhere to go;
   one sent too early is dropped by the kernel and the client waits out its whole timeout;
3. the `ready` plugin answers 200 (it opens in OnStartup, before the DNS listeners, so it
   alone proves nothing about them; together they are CoreDNS's own word);
4. a query through the sandbox's warm-up block (its own port and fake) is answered over UDP
   and TCP: the query path has run once, so a cold binary (100 MB, page cache dropped) faults
   in its code before a scenario measures anything. A query to the cluster's own blocks would
   reach their upstreams and disturb the health state a scenario is about to measure.
"""

from __future__ import annotations

import re
import shutil
import signal
import socket
import subprocess
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import dns.exception
import dns.message
import dns.query
import dns.rcode
import dns.rdatatype

from gen.errors import ToolError
from gen.tools import COREDNS_INSTALL_HINT
from gen.verify.upstreams import PROBE_NAME

START_TIMEOUT = 30.0  # a cold 100 MB binary on a busy disk: seconds before it listens
MAX_LIFETIME = 60  # seconds; a scenario group needs ~10, this only bounds a verify that was killed
LOOPBACK = "127.0.0.1"


class LoadError(Exception):
    """CoreDNS refused the sandbox Corefile or exited early; `output` is its log."""

    def __init__(self, message: str, output: str) -> None:
        super().__init__(message)
        self.output = output


def binary_version(binary: Path) -> str:
    """`1.13.1` from `coredns -version` (the binary verify actually ran).

    Raises:
        ToolError: the binary does not run.
    """
    try:
        done = subprocess.run([str(binary), "-version"], capture_output=True, text=True, timeout=20, check=False)
    except OSError as err:
        raise ToolError(f"cannot run CoreDNS binary {binary}: {err}", hint=COREDNS_INSTALL_HINT) from None
    match = re.search(r"CoreDNS-(\d+\.\d+\.\d+)", done.stdout + done.stderr)
    if done.returncode != 0 or not match:
        raise ToolError(f"{binary} -version did not report a CoreDNS version", hint=COREDNS_INSTALL_HINT,
                        stderr=done.stdout + done.stderr)
    return match.group(1)


class CoreDNS:
    """A CoreDNS child process serving `corefile`; use as a context manager."""

    def __init__(self, binary: Path, corefile: Path, ports: list[int], *, ready: str = "", warmup: int = 0) -> None:
        self.binary, self.corefile, self.ports = binary, corefile, ports
        self.ready, self.warmup = ready, warmup
        self.log = corefile.parent / "coredns.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> "CoreDNS":
        self.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    def start(self) -> None:
        """Start and wait until every listener accepts connections.

        Raises:
            LoadError: CoreDNS exited (a Corefile it refuses) or never listened.
        """
        argv = [str(self.binary), "-conf", str(self.corefile)]
        bound = shutil.which("timeout")  # coreutils: ends CoreDNS even if verify itself is killed
        if bound:
            argv = [bound, "-k", "5", str(MAX_LIFETIME), *argv]
        with self.log.open("wb") as log:
            self.proc = subprocess.Popen(argv,
                                         cwd=self.corefile.parent, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + START_TIMEOUT
        pending = list(self.ports)
        while pending:
            if self.proc.poll() is not None:
                raise LoadError(f"CoreDNS exited with code {self.proc.returncode} while loading the Corefile",
                                self.output())
            try:
                socket.create_connection((LOOPBACK, pending[0]), timeout=0.2).close()
                pending.pop(0)
            except OSError as err:
                if time.monotonic() > deadline:
                    self.stop()
                    raise LoadError(f"CoreDNS did not listen on 127.0.0.1:{pending[0]} within {START_TIMEOUT:.0f}s",
                                    self.output()) from err
                time.sleep(0.02)
        self._wait("UDP on 127.0.0.1:" + ",".join(map(str, self.ports)), deadline, lambda: all(map(_udp_bound, self.ports)))
        if self.ready:
            self._wait(f"the ready endpoint http://{self.ready}/ready", deadline, lambda: _ready(self.ready))
        if self.warmup:
            self._wait(f"a query through the warm-up block on 127.0.0.1:{self.warmup}", deadline,
                       lambda: all(ask(self.warmup, PROBE_NAME, transport=t, timeout=1.0).rcode == "NOERROR" for t in ("udp", "tcp")))

    def _wait(self, what: str, deadline: float, done: Callable[[], bool]) -> None:
        """Poll `done` until it holds; LoadError when CoreDNS exits or the deadline passes."""
        assert self.proc is not None
        while not done():
            if self.proc.poll() is not None:
                raise LoadError(f"CoreDNS exited with code {self.proc.returncode} while starting", self.output())
            if time.monotonic() > deadline:
                self.stop()
                raise LoadError(f"CoreDNS was not ready within {START_TIMEOUT:.0f}s: no answer from {what}", self.output())
            time.sleep(0.01)

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=3)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=3)

    def output(self) -> str:
        try:
            return self.log.read_text(errors="replace")
        except OSError:
            return ""


def _udp_bound(port: int) -> bool:
    """Whether some socket is bound to UDP `port` (the kernel's table: no packet is sent)."""
    suffix = f":{port:04X}"
    for table in ("/proc/net/udp", "/proc/net/udp6"):
        try:
            with open(table, encoding="ascii") as handle:
                if any(line.split()[1].endswith(suffix) for line in handle.readlines()[1:]):
                    return True
        except OSError:
            return True  # no /proc (not Linux): the warm-up query still proves the path
    return False


def _ready(address: str) -> bool:
    try:
        with urllib.request.urlopen(f"http://{address}/ready", timeout=1.0) as resp:  # noqa: S310 - loopback only
            return int(resp.status) == 200
    except (OSError, ValueError):
        return False


@dataclass(frozen=True)
class Answer:
    """What one client query got: rcode (or TIMEOUT), the A records, and how long it took."""

    rcode: str
    addresses: tuple[str, ...]
    latency_ms: float


def ask(port: int, name: str, *, transport: str = "udp", timeout: float = 5.0) -> Answer:
    """One A query to CoreDNS on 127.0.0.1:port, as a pod's resolver would send it."""
    query = dns.message.make_query(name, dns.rdatatype.A)
    start = time.perf_counter()
    try:
        if transport == "tcp":
            resp = dns.query.tcp(query, LOOPBACK, port=port, timeout=timeout)
        else:
            resp = dns.query.udp(query, LOOPBACK, port=port, timeout=timeout)
    except (dns.exception.Timeout, OSError, EOFError):
        return Answer("TIMEOUT", (), round((time.perf_counter() - start) * 1000, 1))
    elapsed = round((time.perf_counter() - start) * 1000, 1)
    addresses = tuple(sorted(rr.to_text() for rrset in resp.answer for rr in rrset
                             if rrset.rdtype == dns.rdatatype.A))
    return Answer(dns.rcode.to_text(resp.rcode()), addresses, elapsed)
