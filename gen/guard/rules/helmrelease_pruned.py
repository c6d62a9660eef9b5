"""Flux would delete a HelmRelease: helm-controller uninstalls the release with every object in it.

A HelmRelease (helm.toolkit.fluxcd.io, any version) that kustomize-controller prunes is not one
object gone: helm-controller's finalizer runs `helm uninstall`, which deletes every object of the
release, its ConfigMaps included. So its removal is refused like a ConfigMap's. A HelmRelease
with `spec.suspend: true` at base is the exception: helm-controller skips the uninstall of a
suspended release and only drops its finalizer, so the release stays (a warning says so).
(Kustomizations that render `helmCharts` themselves are judged object by object, as usual.)

PASS: the HelmRelease stays in its Kustomization's build; or it was suspended at base (warning).
FAIL: head drops `helmrelease.yaml` from a pruning Kustomization -> error at that change.
"""

from __future__ import annotations

from typing import Iterator

from gen.finding import Finding, Severity
from gen.guard.change import Change
from gen.guard.diff import DELETED, is_helmrelease, safe_way

ID = "helmrelease-pruned"
SEVERITY = Severity.ERROR
def check(change: Change) -> Iterator[Finding]:
    for r in change.removed(DELETED):
        if not is_helmrelease(r):
            continue
        name = r.key.ref.split(" ", 1)[1]
        if (r.obj.get("spec") or {}).get("suspend") is True:
            yield change.removal_finding(
                ID, Severity.WARNING, r,
                f"{r.key.ref} would be deleted by Flux, but it is suspended, so helm-controller leaves release "
                f"{name} installed (orphaned): {r.reason}; {r.details.get('cause', '')}",
                f"{r.hint}; to really remove the release, resume it first",
            )
            continue
        yield change.removal_finding(
            ID, SEVERITY, r,
            f"{r.key.ref} would be deleted by Flux, and helm-controller then uninstalls release {name} with "
            f"every object in it (ConfigMaps included): {r.reason}; {r.details.get('cause', '')}",
            f"{r.hint}; {safe_way(r.key.id)}",
        )
