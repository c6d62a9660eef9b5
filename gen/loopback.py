"""Free loopback ports for the CoreDNS processes lint and verify start (never a fixed port).

Ports come from below the kernel's ephemeral range (net.ipv4.ip_local_port_range, 32768–60999
by default): a port picked there and released could be taken by any client socket (CoreDNS's
own queries to its upstreams, the DNS client) before CoreDNS binds it, which made verify fail
with "bind: address already in use". No port is handed out twice in one process, so scenarios
run in parallel threads never race each other either.
"""

from __future__ import annotations

import random
import re
import socket
import threading
from pathlib import Path

# What health, ready and prometheus listen on when their setup takes the address: Go's
# net.SplitHostPort form (a bracketed host or one without `:`, then `:` and the port) with a
# port Go's listener takes (digits, at most 65535). Anything else CoreDNS refuses, in the pod as
# here: at setup ("missing port in address") or when it listens ("unknown port").
_LISTEN_ADDRESS = re.compile(r"^(\[[^\[\]]*\]|[^:\[\]]*):(\d{1,5})$")


def movable_listener(address: str) -> bool:
    """Whether a sandbox may move a listener written `address` to a loopback port: only an
    address CoreDNS would listen on (none written counts). One it refuses stays as written, so
    the sandboxed CoreDNS refuses it too (moved, it would start, and lint --load pass it)."""
    m = _LISTEN_ADDRESS.match(address)
    return address == "" or (m is not None and int(m[2]) <= 65535)

_handed_out: set[tuple[str, int]] = set()
_lock = threading.Lock()


def _ephemeral_start() -> int:
    try:
        low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        low = 32768
    return max(low, 10001)


_RANGE = (10000, _ephemeral_start())


def _bindable(host: str, port: int) -> bool:
    tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        tcp.bind((host, port))
        udp.bind((host, port))
        return True
    except OSError:
        return False
    finally:
        tcp.close()
        udp.close()


def free_port(host: str = "127.0.0.1") -> int:
    """A port free for both TCP and UDP on `host`, outside the ephemeral range, not yet handed out.

    Raises:
        OSError: none found in 200 tries.
    """
    low, high = _RANGE
    with _lock:
        for _ in range(200):
            port = random.randrange(low, high)  # random start: separate test processes rarely meet
            if (host, port) not in _handed_out and _bindable(host, port):
                _handed_out.add((host, port))
                return port
    raise OSError(f"no free port on {host} in {low}-{high}")
