"""`next` inside `forward` needs CoreDNS ≥ 1.11.4; older releases refuse the Corefile.

Talos 1.8 and kubeadm for k8s ≤ 1.32 ship CoreDNS 1.11.3, whose forward setup rejects the
option with "unknown property 'next'" (gen/lint/option_releases.py), so CoreDNS does not start.

PASS (--coredns-version 1.11.4): `forward . 10.0.0.1 { next SERVFAIL }`
FAIL (--coredns-version 1.11.3): the same line -> error at the `next` line.
"""

from __future__ import annotations

from typing import Iterator

from gen.corefile import forwards
from gen.finding import Finding, Severity
from gen.lint.context import LintContext, at
from gen.lint.option_releases import FORWARD_OPTIONS

ID = "forward-next-unsupported"
SEVERITY = Severity.ERROR
REFUSES = True  # an error finding means CoreDNS refuses to load the Corefile


def check(ctx: LintContext) -> Iterator[Finding]:
    first = FORWARD_OPTIONS["next"]
    if ctx.version >= first:
        return
    for _unit, block in ctx.blocks():
        for fwd in forwards(block):
            for opt in fwd.options("next"):
                yield at(ID, SEVERITY, opt, f"forward option `next` needs CoreDNS ≥ {first}; {ctx.where()} "
                         "refuses it (unknown property 'next')",
                         f"upgrade CoreDNS to ≥ {first}, or drop `next` and the second forward")
