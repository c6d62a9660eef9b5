"""A plugin CoreDNS allows once per server block appears twice in one block.

CoreDNS refuses such a Corefile: "this plugin can only be used once per Server Block"
(plugin.ErrOnce). It happens most when a coredns-custom `*.override` repeats a plugin the
platform's block already has (an AKS-docs `hosts` override inside k3s's block, which has its own
`hosts`): judge overrides with `--platform` so they are read next to their real neighbours. The
plugins are those whose setup returns plugin.ErrOnce (versions.ONCE_PER_BLOCK); `forward`
before 1.9.4 is forward-multiple-unsupported's.

PASS: `.:53 { hosts /etc/hosts { fallthrough } forward . /etc/resolv.conf }`
FAIL: k3s's block with an override `hosts { 10.0.0.1 a.example }` spliced in -> error at the second `hosts`.
"""

from __future__ import annotations

from typing import Iterator

from gen.finding import Finding, Severity
from gen.lint.context import LintContext, at
from gen.lint.option_releases import ONCE_PER_BLOCK

ID = "plugin-once-per-block"
SEVERITY = Severity.ERROR
REFUSES = True  # an error finding means CoreDNS refuses to load the Corefile


def check(ctx: LintContext) -> Iterator[Finding]:
    for _unit, block in ctx.blocks():
        first: dict[str, int] = {}
        for d in block.directives:
            if d.name not in ONCE_PER_BLOCK:
                continue
            if d.name in first:
                yield at(ID, SEVERITY, d, f"`{d.name}` is already in this server block (line {first[d.name]} of "
                         f"{block.file}): CoreDNS refuses it (this plugin can only be used once per Server Block)",
                         f"keep one `{d.name}`; a `*.override` is spliced into the platform's own block, which has one")
            else:
                first[d.name] = d.line
