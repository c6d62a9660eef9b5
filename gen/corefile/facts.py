"""Facts about what CoreDNS serves, shared by render, lint and guard (never by each other's rules).

The kubernetes plugin answers the cluster domain and the reverse zones (its stock stanza on every
platform: `kubernetes cluster.local in-addr.arpa ip6.arpa`). CoreDNS routes a query to the server
block with the longest matching zone, so a block whose zone equals or lies under one of those
takes those names away from the plugin, and a block whose zone contains one (`local`, `arpa`)
takes whatever of it is not longer-matched elsewhere: measured in CoreDNS 1.13.1, `zone: local`
answered `kube-dns.kube-system.svc.cluster.local` from its upstream (tests/test_properties.py).
"""

from __future__ import annotations

from typing import Iterable

REVERSE_ZONES = ("in-addr.arpa.", "ip6.arpa.")
# CoreDNS imports `*.override` in Go's filepath.Glob order (names sorted bytewise) and the first
# forward whose zone matches answers (measured: a `zz-corp.override` domain forward after our
# `upstream.override` was never reached). The root forward coredns-gen writes must come after
# every other override's forward, so its key sorts after every name a values file may give
# (override names that would sort after it are refused).
UPSTREAM_NAME = "zzzz-coredns-gen-upstream"
UPSTREAM_KEY = f"{UPSTREAM_NAME}.override"
# coredns plugin/forward/setup.go: a forward without `policy` picks its upstream at random.
FORWARD_DEFAULT_POLICY = "random"
# CoreDNS's -dns.port: where a server block whose address names no port listens.
DEFAULT_PORT = "53"


def fqdn(zone: str) -> str:
    z = zone.strip().lower()
    return z if z.endswith(".") else z + "."


def kubernetes_zones(cluster_domain: str) -> tuple[str, ...]:
    """The zones the stock kubernetes stanza serves for a cluster domain."""
    return (fqdn(cluster_domain), *REVERSE_ZONES)


def _under(child: str, parent: str) -> bool:
    return parent == "." or child == parent or child.endswith("." + parent)


def shadowed(zone: str, served: Iterable[str]) -> str | None:
    """The served zone a server block for `zone` would take queries from (None: none)."""
    z = fqdn(zone)
    for s in served:
        if _under(z, fqdn(s)) or _under(fqdn(s), z):
            return fqdn(s)
    return None
