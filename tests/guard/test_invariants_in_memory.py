"""The guard's rules from values built in memory: invariants from one cluster's objects, prune rules
from the removals the diff judged, through `check(change)` as the guard calls them.

Each invariant rule's `violations(objects, previous[, platform])` is the rule's whole judgement;
`Change.invariant_findings` only places it. These cases (each rule's PASS and FAIL) run in
milliseconds, so the fast loop (`-m "not pipeline and not slow"`) catches a broken invariant
without a git repository or a build; tests/guard/test_rules.py holds the same rules end to end.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from gen.guard.change import ClusterObjects
from gen.guard.model import FLUX_GROUP, KsRef, ObjKey
from gen.guard.rules import (
    build_failed,
    configmap_pruned,
    coredns_custom_keys,
    k3s_deployment_untouched,
    helmrelease_pruned,
    k3s_hpa_min_replicas,
    kubeadm_minor_bump,
    managed_corefile_kept,
    namespace_pruned,
    next_needs_forward,
    object_orphaned,
    object_pruned,
    talos_corefile_kept,
)
from tests.conftest import REPO_ROOT
from tests.guard.rules.change_builder import Ks, change

KS = KsRef("clusters/prod/flux-system/gotk-sync.yaml", "flux-system", "platform")


def key_of(obj: dict[str, Any]) -> ObjKey:
    group = str(obj.get("apiVersion", "")).rpartition("/")[0]
    meta = obj.get("metadata") or {}
    return ObjKey(str(meta.get("namespace", "")), str(meta["name"]), group, str(obj["kind"]))


def cluster(*objects: dict[str, Any]) -> ClusterObjects:
    return {key_of(obj): (KS, obj) for obj in objects}


def configmap(name: str, data: dict[str, str], annotations: dict[str, str] | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": "kube-system"}
    if annotations:
        meta["annotations"] = annotations
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": data}


def hpa(min_replicas: int) -> dict[str, Any]:
    return {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": "coredns", "namespace": "kube-system"},
            "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "coredns"},
                     "minReplicas": min_replicas, "maxReplicas": 3}}


DEPLOYMENT = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "coredns", "namespace": "kube-system"},
              "spec": {"replicas": 2}}
PAIR = ".:53 {\n    forward . 10.0.0.53 {\n        next SERVFAIL\n    }\n    forward . /etc/resolv.conf\n}\n"
ALONE = ".:53 {\n    forward . 10.0.0.53 {\n        next SERVFAIL\n    }\n}\n"


def messages(found: Any) -> list[str]:
    return [v.message for v in found]


def test_talos_corefile_kept() -> None:
    assert messages(talos_corefile_kept.violations(cluster(configmap("coredns", {"Corefile": PAIR})), {})) == []
    (broken,) = talos_corefile_kept.violations(cluster(configmap("coredns", {"Corefile.old": PAIR})), {})
    assert "has no Corefile key (keys: Corefile.old)" in broken.message and broken.field == "data"


def test_k3s_hpa_min_replicas() -> None:
    assert messages(k3s_hpa_min_replicas.violations(cluster(hpa(2)), {}, "k3s")) == []
    (low,) = k3s_hpa_min_replicas.violations(cluster(hpa(1)), {}, "k3s")
    assert "has minReplicas 1" in low.message and low.severity is None
    (missing,) = k3s_hpa_min_replicas.violations(cluster(configmap("coredns-custom", {})), {}, "k3s")
    assert "has no HorizontalPodAutoscaler kube-system/coredns" in missing.message
    assert messages(k3s_hpa_min_replicas.violations(cluster(configmap("coredns-custom", {})), {}, "talos")) == []


def test_k3s_deployment_untouched() -> None:
    assert messages(k3s_deployment_untouched.violations(cluster(hpa(2)), {}, "k3s")) == []
    (found,) = k3s_deployment_untouched.violations(cluster(DEPLOYMENT), {}, "k3s")
    assert "Deployment kube-system/coredns is in a Flux build" in found.message
    assert messages(k3s_deployment_untouched.violations(cluster(DEPLOYMENT), {}, "kubeadm")) == []
    patching = {"apiVersion": f"{FLUX_GROUP}/v1", "kind": "Kustomization",
                "metadata": {"name": "apps", "namespace": "flux-system"},
                "spec": {"patches": [{"target": {"kind": "Deployment", "name": "coredns"}, "patch": "x"}]}}
    (patch,) = k3s_deployment_untouched.violations(cluster(patching), {}, "talos")
    assert "patches Deployment coredns" in patch.message


def test_kubeadm_minor_bump() -> None:
    def at(version: str) -> ClusterObjects:
        return cluster(configmap("coredns", {"Corefile": PAIR}, {"coredns-gen.io/kubernetes-version": version}))

    assert messages(kubeadm_minor_bump.violations(at("v1.35.2"), at("v1.35.0"))) == []
    (bump,) = kubeadm_minor_bump.violations(at("v1.35.0"), at("v1.34.3"))
    assert "Kubernetes v1.34.3 -> v1.35.0 changes minor release" in bump.message


def test_next_needs_forward() -> None:
    assert messages(next_needs_forward.violations(cluster(configmap("coredns", {"Corefile": PAIR})), {})) == []
    (alone,) = next_needs_forward.violations(cluster(configmap("coredns", {"Corefile": ALONE})), {})
    assert alone.message.startswith("ConfigMap kube-system/coredns key Corefile:") and alone.field == "data"


def test_coredns_custom_keys() -> None:
    custom = configmap("coredns-custom", {"corp.server": "corp.example:53 {\n    forward . 10.0.0.1\n}\n"})
    assert messages(coredns_custom_keys.violations(cluster(custom), {}, "aks")) == []
    ignored = configmap("coredns-custom", {"corp.conf": "corp.example:53 {\n    forward . 10.0.0.1\n}\n"})
    (found,) = coredns_custom_keys.violations(cluster(ignored), {}, "aks")
    assert "corp.conf" in found.message


def _rke2_helmchartconfig(old: str = "", new: str = "") -> dict[str, Any]:
    """The committed RKE2 render, with `old` replaced by `new` in its file text (a hand edit)."""
    path = sorted((REPO_ROOT / "overlays" / "rke2").glob("*/rke2-coredns-helmchartconfig.yaml"))[0]
    text = Path(path).read_text(encoding="utf-8")
    assert old in text
    return dict(yaml.safe_load(text.replace(old, new, 1)))


@pytest.mark.parametrize(("old", "new", "needle"), [
    ("      - name: ready\n", "", "its default server has no `ready`"),
    ("      - name: forward\n        parameters: . /etc/resolv.conf\n", "", "no `forward` follows this one"),
    ("    servers:\n", "    servers: [\n", "valuesContent is not valid YAML"),
], ids=["no-ready", "next-alone", "bad-yaml"])
def test_managed_corefile_kept(old: str, new: str, needle: str) -> None:
    assert messages(managed_corefile_kept.violations(cluster(_rke2_helmchartconfig()), {})) == []
    found = messages(managed_corefile_kept.violations(cluster(_rke2_helmchartconfig(old, new)), {}))
    assert found and needle in found[0], found


# --- the same rules, and the prune rules, through `check(change)` as the guard calls them ------

def rules_found(rule: Any, change: Any) -> list[tuple[str, str, str]]:
    return [(f.rule, f.severity.value, f.message) for f in rule.check(change)]


def dns(*objects: dict[str, Any], prune: bool = True, error: str | None = None) -> list[Ks]:
    """The cluster at one revision: one Kustomization `dns` applying these objects."""
    return [Ks("dns", objects, prune=prune, error=error)]


def test_invariant_rules_through_check() -> None:
    good, broken = configmap("coredns", {"Corefile": PAIR}), configmap("coredns", {"Corefile.old": PAIR})
    (found,) = rules_found(talos_corefile_kept, change(dns(good), dns(broken)))
    assert found[:2] == ("talos-corefile-kept", "error")
    (old,) = rules_found(talos_corefile_kept, change(dns(broken), dns(broken)))
    assert old[1] == "warning" and "already so at base" in old[2]  # what the change did not break is shown, not refused
    assert rules_found(talos_corefile_kept, change(dns(broken), dns(good))) == []
    (low,) = rules_found(k3s_hpa_min_replicas, change(dns(hpa(2)), dns(hpa(1)), platform="k3s"))
    assert low[:2] == ("k3s-hpa-min-replicas", "error")
    (deployment,) = rules_found(k3s_deployment_untouched, change(dns(), dns(DEPLOYMENT), platform="talos"))
    assert deployment[:2] == ("k3s-deployment-untouched", "error")
    alone = configmap("coredns", {"Corefile": ALONE})
    (nxt,) = rules_found(next_needs_forward, change(dns(good), dns(alone)))
    assert nxt[:2] == ("next-needs-forward", "error")
    at = {"coredns-gen.io/kubernetes-version": "v1.34.3"}
    bumped = configmap("coredns", {"Corefile": PAIR}, {"coredns-gen.io/kubernetes-version": "v1.35.0"})
    (bump,) = rules_found(kubeadm_minor_bump, change(dns(configmap("coredns", {"Corefile": PAIR}, at)), dns(bumped)))
    assert bump[:2] == ("kubeadm-minor-bump", "warning")
    ignored = configmap("coredns-custom", {"corp.conf": "corp.example:53 {\n    forward . 10.0.0.1\n}\n"})
    (keys,) = rules_found(coredns_custom_keys, change(dns(), dns(ignored), platform="aks"))
    assert keys[:2] == ("coredns-custom-keys", "error")
    no_ready = _rke2_helmchartconfig("      - name: ready\n", "")
    (managed,) = rules_found(managed_corefile_kept, change(dns(_rke2_helmchartconfig()), dns(no_ready)))
    assert managed[:2] == ("managed-corefile-kept", "error")


def test_prune_rules_through_check() -> None:
    cm = configmap("coredns-custom", {"corp.server": "x"})
    deleted = change(dns(cm), dns())
    assert [f[:2] for f in rules_found(configmap_pruned, deleted)] == [("configmap-pruned", "error")]
    assert rules_found(object_pruned, deleted) == []  # a ConfigMap is configmap-pruned's
    orphaned = change(dns(cm, prune=False), dns(prune=False))
    assert [f[:2] for f in rules_found(object_orphaned, orphaned)] == [("object-orphaned", "warning")]
    assert rules_found(configmap_pruned, orphaned) == []
    pdb = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "coredns", "namespace": "kube-system"}}
    (gone,) = rules_found(object_pruned, change(dns(pdb), dns()))
    assert gone[:2] == ("object-pruned", "warning") and "PodDisruptionBudget kube-system/coredns would be deleted" in gone[2]
    release = {"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease", "metadata": {"name": "coredns", "namespace": "dns"}}
    (uninstall,) = rules_found(helmrelease_pruned, change(dns(release), dns()))
    assert uninstall[:2] == ("helmrelease-pruned", "error") and "uninstalls release" in uninstall[2]
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "dns"}}
    held = {**cm, "metadata": {"name": "corp", "namespace": "dns"}}
    (ns,) = rules_found(namespace_pruned, change(dns(namespace, held), dns(held)))
    assert ns[:2] == ("namespace-pruned", "error") and "ConfigMap dns/corp" in ns[2]


def test_build_failed_through_check() -> None:
    missing = "accumulating resources: 'missing.yaml' not found"
    (found,) = rules_found(build_failed, change(dns(), dns(error=missing)))
    assert found[:2] == ("build-failed", "error") and "does not build at head" in found[2]
    both = change(dns(error="x not found"), dns(error="x not found"))
    assert [f[:2] for f in rules_found(build_failed, both)] == [("build-failed", "warning")]
