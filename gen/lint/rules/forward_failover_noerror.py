"""`failover NOERROR` is refused from CoreDNS 1.13.2 and is meaningless before.

1.13.2 rejects it ("NoError cannot be used in failover", plugin/forward/setup.go). In 1.13.0–1.13.1 the
same check is unreachable, so the Corefile loads and every successful answer is retried on the
next upstream: a warning there, an error from 1.13.2.

PASS: `forward . 10.0.0.1 10.0.0.2 { failover SERVFAIL REFUSED }`
FAIL (--coredns-version 1.13.2): `failover SERVFAIL NOERROR` -> error at the `failover` line.
"""

from __future__ import annotations

from typing import Iterator

from gen.corefile import forwards
from gen.finding import Finding, Severity
from gen.lint.context import LintContext, at
from gen.lint.option_releases import FAILOVER_NOERROR_REJECTED, FORWARD_OPTIONS

ID = "forward-failover-noerror"
SEVERITY = Severity.ERROR
REFUSES = True  # an error finding means CoreDNS refuses to load the Corefile


def check(ctx: LintContext) -> Iterator[Finding]:
    if ctx.version < FORWARD_OPTIONS["failover"]:
        return  # forward-failover-unsupported already refuses the option itself
    refused = ctx.version >= FAILOVER_NOERROR_REJECTED
    for _unit, block in ctx.blocks():
        for fwd in forwards(block):
            for opt in fwd.options("failover"):
                if not any(a.upper() == "NOERROR" for a in opt.args):
                    continue
                if refused:
                    msg = f"`failover NOERROR` is refused by {ctx.where()} (NoError cannot be used in failover)"
                else:
                    msg = (f"`failover NOERROR` retries every successful answer on {ctx.where()}, "
                           f"and CoreDNS ≥ {FAILOVER_NOERROR_REJECTED} refuses it")
                yield at(ID, SEVERITY if refused else Severity.WARNING, opt, msg,
                         "list only failure codes, e.g. `failover SERVFAIL REFUSED`")
