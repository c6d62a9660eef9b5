"""Flux would delete an object that is not a ConfigMap: listed as a warning, not refused.

Same judgement as configmap-pruned (a Kustomization with prune: true stops producing it, or the
Kustomization itself leaves git), for every other kind: Deployments, HPAs, PDBs, Kustomizations
(HelmReleases have their own rule, helmrelease-pruned: their removal uninstalls a release; so
does a Namespace holding ConfigMaps or HelmReleases, namespace-pruned).

PASS: the object stays in its Kustomization's build.
FAIL: head drops `hpa.yaml` -> warning naming HorizontalPodAutoscaler kube-system/coredns.
"""

from __future__ import annotations

from typing import Iterator

from gen.finding import Finding, Severity
from gen.guard.change import Change
from gen.guard.diff import DELETED, is_helmrelease, safe_way

ID = "object-pruned"
SEVERITY = Severity.WARNING


def check(change: Change) -> Iterator[Finding]:
    for r in change.removed(DELETED):
        if (r.key.kind == "ConfigMap" and not r.key.group) or is_helmrelease(r) or change.held_in(r):
            continue  # configmap-pruned, helmrelease-pruned, namespace-pruned
        yield change.removal_finding(
            ID, SEVERITY, r,
            f"{r.key.ref} would be deleted by Flux: {r.reason}; {r.details.get('cause', '')}",
            f"{r.hint}; {safe_way(r.key.id)}",
        )
