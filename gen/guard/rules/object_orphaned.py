"""An object leaves git but Flux only orphans it: a warning, whatever its kind or name.

Flux leaves an object in the cluster when it carries `kustomize.toolkit.fluxcd.io/prune:
disabled` (or `reconcile: disabled`, `ssa: Ignore`) at base, or when its Kustomization has
`prune: false`. Nothing is deleted, but nothing will update it again either.

PASS: the object stays in git.
FAIL: base's ConfigMap carries `prune: disabled` and head drops it -> warning, not error.
"""

from __future__ import annotations

from typing import Iterator

from gen.finding import Finding, Severity
from gen.guard.change import Change
from gen.guard.diff import ORPHANED

ID = "object-orphaned"
SEVERITY = Severity.WARNING


def check(change: Change) -> Iterator[Finding]:
    for r in change.removed(ORPHANED):
        yield change.removal_finding(
            ID, SEVERITY, r,
            f"{r.key.ref} leaves git but stays in the cluster, unmanaged: {r.reason}; {r.details.get('cause', '')}",
            f"delete it by hand once nothing needs it, or keep it in git; {r.hint}",
        )
