"""Several `forward` directives in one server block need CoreDNS ≥ 1.9.4.

Before 1.9.4 forward is a once-per-block plugin: CoreDNS refuses the Corefile with "this plugin
can only be used once per Server Block" (coredns/coredns plugin/forward/setup.go at each tag; coredns/coredns#4729 on AKS overrides).

PASS (--coredns-version 1.9.4): `forward . 10.0.0.1 { next SERVFAIL }` then `forward . /etc/resolv.conf`
FAIL (--coredns-version 1.9.3): the same block -> error at the second `forward`.
"""

from __future__ import annotations

from typing import Iterator

from gen.corefile import forwards
from gen.finding import Finding, Severity
from gen.lint.context import LintContext, at
from gen.lint.option_releases import MULTIPLE_FORWARD

ID = "forward-multiple-unsupported"
SEVERITY = Severity.ERROR
REFUSES = True  # an error finding means CoreDNS refuses to load the Corefile


def check(ctx: LintContext) -> Iterator[Finding]:
    if ctx.version >= MULTIPLE_FORWARD:
        return
    for _unit, block in ctx.blocks():
        fwds = forwards(block)
        for fwd in fwds[1:]:
            yield at(ID, SEVERITY, fwd, f"a second `forward` in one server block is refused by {ctx.where()} "
                     f"(this plugin can only be used once per Server Block; first forward at line {fwds[0].line})",
                     f"upgrade CoreDNS to ≥ {MULTIPLE_FORWARD}, or merge the upstreams into one forward")
