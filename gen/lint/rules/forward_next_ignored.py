"""A `next` whose forward is the last one in the block is silently ignored.

`next RCODE…` hands the query to the next plugin only when that plugin is another `forward`
(coredns/coredns plugin/forward/README.md); with none after it, CoreDNS loads the Corefile and returns the upstream's
SERVFAIL to every pod — the failover the author wrote does not exist (README.md: why two stanzas).

PASS: `forward . 10.0.0.1 { next SERVFAIL }` then `forward . /etc/resolv.conf`
FAIL: `forward . 10.0.0.1 { next SERVFAIL }` alone -> error at the `next` line.
"""

from __future__ import annotations

from typing import Iterator

from gen.corefile import forwards
from gen.finding import Finding, Severity
from gen.lint.context import LintContext, at
from gen.lint.option_releases import FORWARD_OPTIONS

ID = "forward-next-ignored"
SEVERITY = Severity.ERROR
REFUSES = False  # CoreDNS loads it; the config just does not do what it says


def check(ctx: LintContext) -> Iterator[Finding]:
    if ctx.version < FORWARD_OPTIONS["next"]:
        return  # forward-next-unsupported refuses the option itself
    for unit, block in ctx.blocks():
        fwds = forwards(block)
        if not fwds or unit.partial:
            continue  # an override's block continues in a Corefile we were not given
        for opt in fwds[-1].options("next"):
            yield at(ID, SEVERITY, opt, "`next` is ignored: no `forward` follows this one in the server block, "
                     "so the listed RCODEs reach the client",
                     "add the fallback after it, e.g. `forward . /etc/resolv.conf`")
