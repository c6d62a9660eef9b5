"""Ask a CoreDNS (started by gen.launcher) questions with a real DNS client.

One process per upstream state: forward keeps per-process health state (a dead primary stays
marked down), so a scenario that kills an upstream gets a fresh CoreDNS. What "started" means
(listeners, UDP bound, `ready`, a warm-up query: `warmed_up` here) is gen.launcher's; a query to
the cluster's own blocks would reach their upstreams and disturb the health state a scenario is
about to measure, so the warm-up goes through the sandbox's own block.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

import dns.exception
import dns.message
import dns.query
import dns.rcode
import dns.rdatatype

from gen.launcher import LOOPBACK
from gen.verify.fake_upstreams import PROBE_NAME

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


def warmed_up(port: int) -> tuple[str, Callable[[], bool]]:
    """The launcher's last readiness check for verify: a query through the warm-up block."""
    return (f"a query through the warm-up block on 127.0.0.1:{port}",
            lambda: all(ask(port, PROBE_NAME, transport=t, timeout=1.0).rcode == "NOERROR" for t in ("udp", "tcp")))
