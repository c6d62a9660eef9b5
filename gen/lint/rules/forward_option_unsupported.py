"""Every other `forward` option must exist in the target CoreDNS, or the Corefile is refused.

forward's setup rejects anything it does not parse with "unknown property" (gen/lint/option_releases.py
lists the release that added each option; `next` and `failover` have their own rules).

PASS (--coredns-version 1.13.2): `forward . 10.0.0.1 { max_connect_attempts 3 }`
FAIL (--coredns-version 1.13.1): the same option -> error at its line; `forward . 1.1.1.1 { bogus }`
fails in every version.
"""

from __future__ import annotations

from typing import Iterator

from gen.corefile import forwards, has_placeholder
from gen.finding import Finding, Severity
from gen.lint.context import LintContext, at
from gen.lint.option_releases import FORWARD_OPTIONS, POLICY_VALUES

ID = "forward-option-unsupported"
SEVERITY = Severity.ERROR
REFUSES = True  # an error finding means CoreDNS refuses to load the Corefile
OWN_RULES = {"next", "failover"}


def check(ctx: LintContext) -> Iterator[Finding]:
    for _unit, block in ctx.blocks():
        for fwd in forwards(block):
            for opt in fwd.block or []:
                if opt.name in OWN_RULES or has_placeholder(opt.name):
                    continue
                first = FORWARD_OPTIONS.get(opt.name)
                if first is None:
                    known = ", ".join(sorted(k for k, v in FORWARD_OPTIONS.items() if v <= ctx.version))
                    yield at(ID, SEVERITY, opt, f"`{opt.name}` is not a forward option; CoreDNS refuses it "
                             f"(unknown property '{opt.name}')", f"use one of: {known}")
                elif ctx.version < first:
                    yield at(ID, SEVERITY, opt, f"forward option `{opt.name}` needs CoreDNS ≥ {first}; "
                             f"{ctx.where()} refuses it (unknown property '{opt.name}')",
                             f"upgrade CoreDNS to ≥ {first}, or remove `{opt.name}`")
                elif opt.name == "policy" and opt.args:
                    since = POLICY_VALUES.get(opt.args[0])
                    if since is not None and ctx.version < since:
                        yield at(ID, SEVERITY, opt, f"`policy {opt.args[0]}` needs CoreDNS ≥ {since}",
                                 "use `policy random` or upgrade CoreDNS")
