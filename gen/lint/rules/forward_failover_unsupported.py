"""`failover` inside `forward` needs CoreDNS ≥ 1.13.0; older releases refuse the Corefile.

PASS (--coredns-version 1.13.0): `forward . 10.0.0.1 10.0.0.2 { failover SERVFAIL }`
FAIL (--coredns-version 1.12.4): the same line -> error at the `failover` line.
"""

from __future__ import annotations

from typing import Iterator

from gen.corefile import forwards
from gen.finding import Finding, Severity
from gen.lint.context import LintContext, at
from gen.lint.option_releases import FORWARD_OPTIONS

ID = "forward-failover-unsupported"
SEVERITY = Severity.ERROR
REFUSES = True  # an error finding means CoreDNS refuses to load the Corefile


def check(ctx: LintContext) -> Iterator[Finding]:
    first = FORWARD_OPTIONS["failover"]
    if ctx.version >= first:
        return
    for _unit, block in ctx.blocks():
        for fwd in forwards(block):
            for opt in fwd.options("failover"):
                yield at(ID, SEVERITY, opt, f"forward option `failover` needs CoreDNS ≥ {first}; {ctx.where()} "
                         "refuses it (unknown property 'failover')",
                         f"upgrade CoreDNS to ≥ {first}, or use `next RCODE…` with a second forward (≥ 1.11.4)")
