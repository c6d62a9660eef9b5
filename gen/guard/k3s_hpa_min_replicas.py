"""k3s: the kube-system/coredns HPA is present with minReplicas >= 2 (seed 002).

k3s re-applies its bundled coredns Deployment (replicas: 1) on every restart; only an HPA, a
separate object k3s does not own, holds the floor. Any HPA on Deployment coredns is checked
wherever it is; its *presence* is required only where the cluster is recognisably k3s, judged
by content, never by file names: an object of a `*.cattle.io` API group or with a `*cattle.io`
label/annotation key (k3s's own markers), or kube-system/coredns-custom next to a
kube-system/coredns PodDisruptionBudget (what coredns-gen renders for k3s: AKS gets
coredns-custom alone, Talos owns kube-system/coredns instead), or a coredns HPA at base.
A cluster that shows none of these is not judged for presence: better silent than guessing.
RKE2 shares the `cattle.io` markers but is told apart by its HelmChartConfig
kube-system/rke2-coredns (k3s has no such chart): there the chart's autoscaler holds the floor.

PASS: autoscaling/v2 HPA kube-system/coredns -> apps/v1 Deployment coredns, minReplicas: 2.
FAIL: minReplicas: 1; or head drops the HPA of a k3s cluster -> error.
"""

from __future__ import annotations

from typing import Any, Iterator

from gen.finding import Finding, Severity
from gen.guard.change import Change, ClusterObjects, Violation
from gen.guard.model import ObjKey

ID = "k3s-hpa-min-replicas"
SEVERITY = Severity.ERROR


def _targets_coredns(obj: dict[str, Any]) -> bool:
    ref = (obj.get("spec") or {}).get("scaleTargetRef") or {}
    return ref.get("kind") == "Deployment" and ref.get("name") == "coredns"


def _is_hpa(key: ObjKey) -> bool:
    return key.kind == "HorizontalPodAutoscaler" and key.group == "autoscaling" and key.namespace == "kube-system"


RKE2_CHART_CONFIG = ObjKey("kube-system", "rke2-coredns", "helm.cattle.io", "HelmChartConfig")


def k3s_marker(objects: ClusterObjects, previous: ClusterObjects) -> str | None:
    if RKE2_CHART_CONFIG in objects or RKE2_CHART_CONFIG in previous:
        return None  # RKE2, not k3s
    for key, (_, obj) in objects.items():
        if key.group.endswith("cattle.io"):
            return f"{key.ref} ({key.group})"
        meta = obj.get("metadata") or {}
        for section in ("labels", "annotations"):
            for name in (meta.get(section) or {}):
                if "cattle.io/" in str(name):
                    return f"{key.ref} carries {name}"
    custom = ObjKey("kube-system", "coredns-custom", "", "ConfigMap")
    pdb = ObjKey("kube-system", "coredns", "policy", "PodDisruptionBudget")
    if custom in objects and pdb in objects:
        return "kube-system/coredns-custom with a kube-system/coredns PodDisruptionBudget"
    if any(_is_hpa(k) and _targets_coredns(o) for k, (_, o) in previous.items()):
        return "a kube-system/coredns HPA at base"
    return None


def violations(objects: ClusterObjects, previous: ClusterObjects) -> Iterator[Violation]:
    found = False
    for key, (ks, obj) in sorted(objects.items()):
        if not (_is_hpa(key) and _targets_coredns(obj)):
            continue
        found = True
        low = (obj.get("spec") or {}).get("minReplicas", 1)
        if not isinstance(low, int) or low < 2:
            yield Violation(ks, key, f"{key.ref} has minReplicas {low}: one node drain is a cluster-wide DNS outage",
                            "set spec.minReplicas: 2 (k3s re-applies replicas: 1 on restart; the HPA holds the floor)",
                            "spec")
    if not found:
        marker = k3s_marker(objects, previous)
        if marker:
            preferred = [ObjKey("kube-system", "coredns-custom", "", "ConfigMap"),
                         ObjKey("kube-system", "coredns", "policy", "PodDisruptionBudget")]
            anchor = next((k for k in preferred if k in objects), None) or \
                next((k for k in sorted(objects) if k.namespace == "kube-system"), None)
            if anchor is None:
                return
            yield Violation(objects[anchor][0], anchor,
                            f"this k3s cluster (judged by {marker}) has no HorizontalPodAutoscaler kube-system/coredns: "
                            "k3s runs CoreDNS at 1 replica",
                            "add an autoscaling/v2 HPA on Deployment coredns with minReplicas: 2 (coredns-gen render does)")


def check(change: Change) -> Iterator[Finding]:
    yield from change.invariant_findings(ID, SEVERITY, violations)
