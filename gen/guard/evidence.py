"""What a cluster's objects say of its platform where no fact does: evidence for warnings only.

gen/guard/flux/platform_facts.py decides a cluster's platform from facts (values files, the
config file); when it has none, a rule may still warn on content only one platform writes.
"""

from __future__ import annotations

from typing import Any

from gen.guard.change import ClusterObjects
from gen.guard.model import ObjKey


def _targets_coredns(obj: dict[str, Any]) -> bool:
    ref = (obj.get("spec") or {}).get("scaleTargetRef") or {}
    return ref.get("kind") == "Deployment" and ref.get("name") == "coredns"


def _is_hpa(key: ObjKey) -> bool:
    return key.kind == "HorizontalPodAutoscaler" and key.group == "autoscaling" and key.namespace == "kube-system"


RKE2_CHART_CONFIG = ObjKey("kube-system", "rke2-coredns", "helm.cattle.io", "HelmChartConfig")


K3S_GROUPS = ("k3s.cattle.io", "helm.cattle.io")  # k3s's own controllers (deploy, helm-controller)
K3S_KEYS = tuple(g + "/" for g in K3S_GROUPS) + ("objectset.rio.cattle.io/",)  # k3s's deploy controller marks its objects


def k3s_marker(objects: ClusterObjects, previous: ClusterObjects) -> str | None:
    """Content only k3s writes (evidence for a warning, never for an error), or None."""
    if RKE2_CHART_CONFIG in objects or RKE2_CHART_CONFIG in previous:
        return None  # RKE2, not k3s
    for key, (_, obj) in objects.items():
        if key.group in K3S_GROUPS:
            return f"{key.ref} ({key.group})"
        meta = obj.get("metadata") or {}
        for section in ("labels", "annotations"):
            for name in (meta.get(section) or {}):
                if str(name).startswith(K3S_KEYS):
                    return f"{key.ref} carries {name}"
    custom = ObjKey("kube-system", "coredns-custom", "", "ConfigMap")
    pdb = ObjKey("kube-system", "coredns", "policy", "PodDisruptionBudget")
    if custom in objects and pdb in objects:
        return "kube-system/coredns-custom with a kube-system/coredns PodDisruptionBudget"
    if any(_is_hpa(k) and _targets_coredns(o) for k, (_, o) in previous.items()):
        return "a kube-system/coredns HPA at base"
    return None


def is_coredns_hpa(key: ObjKey, obj: dict[str, Any]) -> bool:
    """An HPA in kube-system that scales Deployment coredns."""
    return _is_hpa(key) and _targets_coredns(obj)
