"""Free loopback ports for the CoreDNS processes lint and verify start (never a fixed port).

Ports come from below the kernel's ephemeral range (net.ipv4.ip_local_port_range, 32768–60999
by default): a port picked there and released could be taken by any client socket (CoreDNS's
own queries to its upstreams, the DNS client) before CoreDNS binds it, which made verify fail
with "bind: address already in use". No port is handed out twice in one process, so scenarios
run in parallel threads never race each other either.
"""

from __future__ import annotations

import random
import socket
import threading
from pathlib import Path

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
