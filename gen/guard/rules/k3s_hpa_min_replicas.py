"""k3s: the kube-system/coredns HPA is present with minReplicas >= 2 (README.md, the k3s row).

k3s re-applies its bundled coredns Deployment (replicas: 1) on every restart; only an HPA, a
separate object k3s does not own, holds the floor. Any HPA on Deployment coredns is checked
wherever it is (an error: the object says it). Its *presence* is required (an error) only on a
cluster known to run k3s by fact: a values file whose `flux.output` that cluster reads says
`platform: k3s`, or `.coredns-gen.yaml` `guard.clusters[].platform` does (platform_facts.py).
Where no fact says what the cluster runs, content that only k3s writes is evidence enough for a
*warning*: an object of the `k3s.cattle.io` or `helm.cattle.io` API groups or with such a
label/annotation key (k3s's own controllers), kube-system/coredns-custom next to a
kube-system/coredns PodDisruptionBudget (what coredns-gen renders for k3s), or a coredns HPA at
base. The `upgrade.cattle.io` Plan of the system-upgrade-controller (run on Talos and others too)
and Rancher's own `*.cattle.io` markers are no k3s evidence. RKE2 shares `helm.cattle.io` but is
told apart by its HelmChartConfig kube-system/rke2-coredns: there the chart's autoscaler holds the floor.

PASS: autoscaling/v2 HPA kube-system/coredns -> apps/v1 Deployment coredns, minReplicas: 2; a
      Talos cluster with a system-upgrade Plan and no HPA.
FAIL: minReplicas: 1; or head drops the HPA of a cluster that is k3s by fact -> error (by
      content only: warning).
"""

from __future__ import annotations

from typing import Iterator

from gen.finding import Finding, Severity
from gen.guard.change import Change, ClusterObjects, Violation
from gen.guard.evidence import is_coredns_hpa, k3s_marker
from gen.guard.model import ObjKey

ID = "k3s-hpa-min-replicas"
SEVERITY = Severity.ERROR


def violations(objects: ClusterObjects, previous: ClusterObjects, platform: str | None = None) -> Iterator[Violation]:
    found = False
    for key, (ks, obj) in sorted(objects.items()):
        if not (is_coredns_hpa(key, obj)):
            continue
        found = True
        low = (obj.get("spec") or {}).get("minReplicas", 1)
        if not isinstance(low, int) or low < 2:
            yield Violation(ks, key, f"{key.ref} has minReplicas {low}: one node drain is a cluster-wide DNS outage",
                            "set spec.minReplicas: 2 (k3s re-applies replicas: 1 on restart; the HPA holds the floor)",
                            "spec")
    if found or (platform is not None and platform != "k3s"):
        return
    marker = None if platform == "k3s" else k3s_marker(objects, previous)
    if platform is None and marker is None:
        return
    preferred = [ObjKey("kube-system", "coredns-custom", "", "ConfigMap"),
                 ObjKey("kube-system", "coredns", "policy", "PodDisruptionBudget")]
    anchor = next((k for k in preferred if k in objects), None) or \
        next((k for k in sorted(objects) if k.namespace == "kube-system"), None) or next(iter(sorted(objects)), None)
    if anchor is None:
        return
    judged = "this k3s cluster" if platform == "k3s" else f"this cluster, k3s by its content ({marker}),"
    yield Violation(objects[anchor][0], anchor,
                    f"{judged} has no HorizontalPodAutoscaler kube-system/coredns: k3s runs CoreDNS at 1 replica",
                    "add an autoscaling/v2 HPA on Deployment coredns with minReplicas: 2 (coredns-gen render does)"
                    + ("" if platform == "k3s" else "; if it is not k3s, say its platform in .coredns-gen.yaml "
                       "guard.clusters[].platform"),
                    severity=None if platform == "k3s" else Severity.WARNING)


def check(change: Change) -> Iterator[Finding]:
    yield from change.platform_invariant_findings(ID, SEVERITY, violations)
