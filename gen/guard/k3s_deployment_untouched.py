"""No manifest targets the coredns Deployment the platform owns.

k3s re-applies its bundled Deployment on every restart (a Flux copy or patch fights it
forever, seed 002); Talos and AKS own it too (MISSION.md: "must never touch the Deployment").
So on every platform this product serves, a Deployment kube-system/coredns in a Flux build, or a
Flux Kustomization `spec.patches` entry aimed at Deployment coredns, is refused. The replica
floor belongs in an HPA instead.

PASS: the cluster's builds hold an HPA on Deployment coredns and no Deployment coredns.
FAIL: a build contains apps/v1 Deployment kube-system/coredns -> error at its manifest.
"""

from __future__ import annotations

from typing import Iterator

from gen.finding import Finding, Severity
from gen.guard.change import Change, ClusterObjects, Violation
from gen.guard.model import FLUX_GROUP

ID = "k3s-deployment-untouched"
SEVERITY = Severity.ERROR
HINT = "drop it; hold the replica floor with an HPA on Deployment coredns (minReplicas: 2)"


def violations(objects: ClusterObjects, previous: ClusterObjects) -> Iterator[Violation]:
    for key, (ks, obj) in sorted(objects.items()):
        if key.kind == "Deployment" and key.group == "apps" and key.namespace == "kube-system" and key.name == "coredns":
            yield Violation(ks, key, "Deployment kube-system/coredns is in a Flux build: the platform owns it "
                            "and re-applies its own copy, so Flux and the platform fight over it", HINT)
        if key.kind == "Kustomization" and key.group == FLUX_GROUP:
            for patch in (obj.get("spec") or {}).get("patches") or []:
                if not isinstance(patch, dict):
                    continue
                target = patch.get("target") or {}
                inline = str(patch.get("patch") or "")
                if (target.get("kind") == "Deployment" and target.get("name") == "coredns") or \
                        ("kind: Deployment" in inline and "name: coredns" in inline):
                    yield Violation(ks, key, f"Flux {key.ref} patches Deployment coredns: the platform "
                                    "owns that Deployment", HINT, "spec")


def check(change: Change) -> Iterator[Finding]:
    yield from change.invariant_findings(ID, SEVERITY, violations)
