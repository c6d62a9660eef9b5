"""Flux would delete a ConfigMap that is in place: refused (docs/guard.md).

A ConfigMap in place at base that head's builds no longer produce from the same Kustomization
is deleted by kustomize-controller's garbage collection when that Kustomization prunes. Talos
never recreates kube-system/coredns; k3s and AKS lose every coredns-custom server block.

PASS: head keeps `coredns-custom.yaml` under `resources:`; or a generator's new hash replaces
      the old ConfigMap; or the file was never in any build.
FAIL: head's kustomization.yaml lists only `hpa.yaml` -> error at that file's `resources:` line.
"""

from __future__ import annotations

from typing import Iterator

from gen.finding import Finding, Severity
from gen.guard.change import Change
from gen.guard.diff import DELETED, safe_way

ID = "configmap-pruned"
SEVERITY = Severity.ERROR

def check(change: Change) -> Iterator[Finding]:
    for r in change.removed(DELETED):
        if r.key.kind != "ConfigMap" or r.key.group:
            continue
        yield change.removal_finding(
            ID, SEVERITY, r,
            f"{r.key.ref} would be deleted by Flux: {r.reason}; {r.details.get('cause', '')}",
            f"{r.hint}; {safe_way(r.key.id)}",
        )
