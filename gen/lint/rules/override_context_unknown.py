"""`*.override` keys judged for a platform release whose own Corefile lint does not know.

An override is spliced into the platform's default block, and what it does depends on its
neighbours there (k3s before v1.32.10/v1.34.2 imports overrides after its own `forward .`, so a
domain forward in one is never reached: k3s issue #12979 on v1.33.4). Where the platform's
tables hold no stock Corefile for the release (k3s's release-1.33 order is unverified), the
override cannot be judged in place; lint says so instead of passing it.

PASS: `lint cm.yaml --platform k3s --platform-version v1.34.9+k3s1`
FAIL: `lint cm.yaml --platform k3s --platform-version v1.33.4+k3s1` -> error at each override key.
"""

from __future__ import annotations

from typing import Iterator

from gen.finding import Finding, Severity
from gen.lint.context import LintContext
from gen.platforms import get

ID = "override-context-unknown"
SEVERITY = Severity.ERROR
REFUSES = False  # CoreDNS may well load it: what cannot be judged is not passed


def check(ctx: LintContext) -> Iterator[Finding]:
    if ctx.platform is None or any(u.kind in ("stock", "corefile") for u in ctx.units):
        return
    platform = get(ctx.platform)
    for unit in ctx.units:
        if unit.kind != "override" or unit.in_main:
            continue
        line = unit.source.fixed_line or unit.source.line_offset + 1
        if unit.configmap is not None:
            line = unit.configmap.key_lines.get(unit.source.label, line)
        yield Finding(ID, SEVERITY, unit.source.filename, line,
                      f"{unit.label} cannot be judged: {ctx.platform} {ctx.platform_version}'s own Corefile (where and "
                      "after what it splices `*.override`) is not in coredns-gen's tables",
                      f"pass a --platform-version lint knows ({platform.known_releases()}), or lint the cluster's "
                      "`kubectl -n kube-system get cm coredns -o yaml` beside this file")
