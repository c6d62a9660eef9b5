"""A server block whose zone equals, lies within or contains a zone the kubernetes plugin serves
takes cluster DNS away from it: CoreDNS sends a query to the block with the longest matching zone.

Measured in CoreDNS 1.13.1 (tests/test_properties.py holds it): beside the stock `.:53 { kubernetes cluster.local
in-addr.arpa ip6.arpa … }`, a `local:53 { forward . 10.9.9.9 }` block answered
`kube-dns.kube-system.svc.cluster.local` from 10.9.9.9; so did `arpa` and `10.in-addr.arpa` for
reverse names. The served zones are the kubernetes plugin's own arguments (the server block's keys
when it names none), on the same port. CoreDNS loads the file: this is about meaning.

PASS: `.:53 { kubernetes cluster.local in-addr.arpa ip6.arpa }` and `corp.example:53 { … }`
FAIL: the same with `local:53 { … }` -> error at the `local:53` block.
"""

from __future__ import annotations

from typing import Iterator

from gen.corefile import ServerBlock
from gen.corefile.facts import fqdn, shadowed
from gen.finding import Finding, Severity
from gen.lint.context import LintContext, at

ID = "zone-shadows-kubernetes"
SEVERITY = Severity.ERROR
REFUSES = False  # CoreDNS loads it and answers cluster names from elsewhere


def _port(block: ServerBlock, key_port: str | None) -> str:
    return key_port or "53"


def check(ctx: LintContext) -> Iterator[Finding]:
    served: dict[str, set[str]] = {}  # port -> zones the kubernetes plugin answers there
    blocks = list(ctx.blocks())
    for _, block in blocks:
        for d in block.find("kubernetes"):
            zones = d.args or [k.zone for k in block.addresses]
            for key in block.addresses:
                served.setdefault(_port(block, key.port), set()).update(fqdn(z) for z in zones)
    for _, block in blocks:
        if block.has("kubernetes"):
            continue
        for key in block.addresses:
            if key.zone == ".":
                continue
            taken = shadowed(key.zone, sorted(served.get(_port(block, key.port), ())))
            if taken is not None:
                yield at(ID, SEVERITY, block, f"`{key.text}` takes {taken} away from the kubernetes plugin: CoreDNS sends "
                         "a query to the block with the longest matching zone, so cluster names would be answered here",
                         "serve a zone outside the cluster domain and the reverse zones (neither within nor containing them)")
