"""No manifest targets the coredns Deployment the platform owns.

k3s re-applies its bundled Deployment on every restart (a Flux copy or patch fights it
forever); Talos and AKS own it too (README.md, *What each platform gets, and why*).
So on every platform whose `NEVER_TOUCH` lists the Deployment (all but kubeadm), a Deployment
kube-system/coredns in a Flux build, or a Flux Kustomization `spec.patches` entry aimed at
Deployment coredns, is refused; the replica floor belongs in an HPA instead. kubeadm's render
applies the coredns-custom volume and mount to that Deployment (docs/lint.md, `wiring-mount-path`) and says so with
`coredns-gen.io/platform: kubeadm`: on a cluster that is kubeadm by fact (platform_facts), or for
an object that names a platform allowing it, nothing is refused.

PASS: the cluster's builds hold an HPA on Deployment coredns and no Deployment coredns; or
      kubeadm's partial Deployment (annotated `coredns-gen.io/platform: kubeadm`).
FAIL: a build contains apps/v1 Deployment kube-system/coredns -> error at its manifest.
"""

from __future__ import annotations

from typing import Any, Iterator

from gen.finding import Finding, Severity
from gen.guard.change import Change, ClusterObjects, Violation
from gen.guard.model import FLUX_GROUP
from gen.platforms import PLATFORMS
from gen.platforms.base import COREDNS_DEPLOYMENT, PLATFORM_ANNOTATION

ID = "k3s-deployment-untouched"
SEVERITY = Severity.ERROR
HINT = "drop it; hold the replica floor with an HPA on Deployment coredns (minReplicas: 2)"


def _platform_allows(obj: dict[str, Any]) -> bool:
    named = str(((obj.get("metadata") or {}).get("annotations") or {}).get(PLATFORM_ANNOTATION, ""))
    platform = PLATFORMS.get(named)
    return platform is not None and COREDNS_DEPLOYMENT not in platform.NEVER_TOUCH


def violations(objects: ClusterObjects, previous: ClusterObjects, platform: str | None = None) -> Iterator[Violation]:
    by_fact = PLATFORMS.get(platform or "")
    if by_fact is not None and COREDNS_DEPLOYMENT not in by_fact.NEVER_TOUCH:
        return  # kubeadm by fact: the render applies the coredns-custom mount to that Deployment
    for key, (ks, obj) in sorted(objects.items()):
        if key.kind == "Deployment" and key.group == "apps" and key.namespace == "kube-system" and key.name == "coredns" \
                and not _platform_allows(obj):
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
    yield from change.platform_invariant_findings(ID, SEVERITY, violations)
