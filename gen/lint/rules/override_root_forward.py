"""An AKS or pre-fix k3s `*.override` with a root `forward .` never takes effect.

AKS and k3s before k3s-io/k3s#12980 (v1.32.10, v1.34.2) import `*.override` *after* their own
`forward . /etc/resolv.conf`, so an override's root forward is never reached (CoreDNS ≥ 1.9.4)
or refused as a second forward (< 1.9.4) (the stock Corefiles in gen/data/; Azure/AKS#3786, coredns/coredns#4729).
Fixed k3s imports overrides first, so there the override's forward wins. When the main Corefile
is among the inputs, forward-unreachable judges the real order instead.

PASS (--platform k3s --platform-version 1.34.2): `coredns-custom` key `up.override: forward . 10.0.0.1`
FAIL (--platform aks): the same key -> error at the forward's line in the ConfigMap.
"""

from __future__ import annotations

from typing import Iterator

from gen.corefile import forwards, is_root_forward
from gen.finding import Finding, Severity
from gen.lint.context import LintContext, at
from gen.platforms import get
from gen.platforms.stock import overrides_after_root_forward_any

ID = "override-root-forward"
SEVERITY = Severity.ERROR
REFUSES = False  # CoreDNS loads it; the config just does not do what it says
HINT = ("put the upstream in a `*.server` key instead (`.:53 { forward . IP }` is refused next to the "
        "default block; forward a zone, e.g. `corp.example:53 { forward . 10.0.0.1 }`)")


def _verdict(ctx: LintContext) -> tuple[Severity, str] | None:
    if ctx.platform is None:
        return Severity.WARNING, ("on AKS and k3s before v1.32.10/v1.34.2 `*.override` comes after the "
                                  "default `forward .`; pass --platform to decide")
    platform = get(ctx.platform)
    if not any(p.inside for p in platform.import_points(ctx.platform_version or platform.releases()[-1])):
        return None  # the platform imports no overrides at all
    after = overrides_after_root_forward_any(platform, ctx.platform_version)  # the fact render checks too
    shown = f"{ctx.platform} {ctx.platform_version}" if ctx.platform_version else ctx.platform
    if after is None:
        if ctx.platform_version is None:
            return Severity.WARNING, (f"on {ctx.platform} it depends on the release whether `*.override` comes "
                                      "after its own `forward .`; pass --platform-version to decide")
        return Severity.WARNING, f"{shown}: the override/forward order of this line is unverified"
    if after:
        return SEVERITY, f"{shown} imports `*.override` after its own `forward .`"
    return None


def check(ctx: LintContext) -> Iterator[Finding]:
    verdict = _verdict(ctx)
    if verdict is None:
        return
    severity, why = verdict
    for unit in ctx.units:
        if unit.kind != "override" or unit.in_main:
            continue
        for block in unit.raw.server_blocks:
            for fwd in forwards(block):
                if is_root_forward(fwd):
                    yield at(ID, severity, fwd, f"root `forward .` in {unit.label} never takes effect: {why}", HINT)
