"""`failover` in CoreDNS 1.13.0–1.14.6 spins until the deadline when every upstream answers the RCODE.

Its retry counter resets at the end of the upstream list, so a query whose every upstream
returns a listed RCODE (all SERVFAIL, say) loops over the same upstreams until the 5 s
deadline instead of answering (coredns/coredns PR #8277, fixed in 1.14.7; docs/verify.md
measures it). `next` with a second forward is a single hop and has no such loop.

PASS (--coredns-version 1.14.7): `forward . 10.0.0.1 10.0.0.2 { failover SERVFAIL }`
FAIL (--coredns-version 1.13.1): the same line -> warning at the `failover` line.
"""

from __future__ import annotations

from typing import Iterator

from gen.corefile import forwards
from gen.finding import Finding, Severity
from gen.lint.context import LintContext, at
from gen.lint.option_releases import FAILOVER_LOOP_FIXED, FORWARD_OPTIONS

ID = "forward-failover-loops"
SEVERITY = Severity.WARNING
REFUSES = False  # CoreDNS loads it; the failure mode is a timeout


def check(ctx: LintContext) -> Iterator[Finding]:
    if not FORWARD_OPTIONS["failover"] <= ctx.version < FAILOVER_LOOP_FIXED:
        return  # older releases refuse the option (forward-failover-unsupported)
    for _unit, block in ctx.blocks():
        for fwd in forwards(block):
            for opt in fwd.options("failover"):
                yield at(ID, SEVERITY, opt, f"`failover` in {ctx.where()} retries the same upstreams until the 5 s "
                         "deadline when all of them return the RCODE (coredns PR #8277, fixed in "
                         f"{FAILOVER_LOOP_FIXED})",
                         f"upgrade CoreDNS to ≥ {FAILOVER_LOOP_FIXED}, or use `next RCODE…` with a second forward")
