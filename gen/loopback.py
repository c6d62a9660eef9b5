"""Free loopback ports for the CoreDNS processes lint and verify start (never a fixed port)."""

from __future__ import annotations

import socket


def free_port(host: str = "127.0.0.1") -> int:
    """A port free a moment ago for both TCP and UDP on `host` (CoreDNS listens on both).

    Raises:
        OSError: none found in 50 tries.
    """
    for _ in range(50):
        tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            tcp.bind((host, 0))
            port = int(tcp.getsockname()[1])
            udp.bind((host, port))
            return port
        except OSError:
            continue
        finally:
            tcp.close()
            udp.close()
    raise OSError(f"no free port on {host}")
