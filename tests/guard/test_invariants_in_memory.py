"""The guard's invariant rules as functions of one cluster's objects, built in memory.

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
    coredns_custom_keys,
    k3s_deployment_untouched,
    k3s_hpa_min_replicas,
    kubeadm_minor_bump,
    managed_corefile_kept,
    next_needs_forward,
    talos_corefile_kept,
)
from tests.conftest import REPO_ROOT

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


def _rke2_helmchartconfig() -> dict[str, Any]:
    path = sorted((REPO_ROOT / "overlays" / "rke2").glob("*/rke2-coredns-helmchartconfig.yaml"))[0]
    return dict(yaml.safe_load(Path(path).read_text(encoding="utf-8")))


@pytest.mark.parametrize(("old", "new", "needle"), [
    ("      - name: ready\n", "", "its default server has no `ready`"),
    ("      - name: forward\n        parameters: . /etc/resolv.conf\n", "", "no `forward` follows this one"),
    ("    servers:\n", "    servers: [\n", "valuesContent is not valid YAML"),
], ids=["no-ready", "next-alone", "bad-yaml"])
def test_managed_corefile_kept(old: str, new: str, needle: str) -> None:
    obj = _rke2_helmchartconfig()
    assert messages(managed_corefile_kept.violations(cluster(obj), {})) == []
    values = obj["spec"]["valuesContent"]
    assert old in values
    broken = {**obj, "spec": {**obj["spec"], "valuesContent": values.replace(old, new, 1)}}
    found = messages(managed_corefile_kept.violations(cluster(broken), {}))
    assert found and needle in found[0], found
