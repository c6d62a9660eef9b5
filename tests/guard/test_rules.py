"""Each DNS invariant rule, PASS and FAIL, on real git repositories; and the rule registry."""

from __future__ import annotations

import re

import pytest

from gen.finding import Severity
from gen.guard import RULES, _MODULES
from tests.guard.conftest import configmap, flux_ks, hpa, summary

DNS = {"clusters/prod/dns.yaml": flux_ks("dns", "./dns")}


PDB = """
    apiVersion: policy/v1
    kind: PodDisruptionBudget
    metadata:
      name: coredns
      namespace: kube-system
    spec:
      minAvailable: 1
      selector:
        matchLabels:
          k8s-app: kube-dns
"""
K3S = {**DNS, "dns/custom.yaml": configmap("coredns-custom"), "dns/pdb.yaml": PDB, "dns/hpa.yaml": hpa(2)}

TWO_STANZAS = """Corefile: |
  .:53 {
    forward . 10.96.0.53 /etc/resolv.conf {
      policy sequential
      next SERVFAIL REFUSED
    }
    forward . /etc/resolv.conf
    cache 30
  }"""
ONE_STANZA = """Corefile: |
  .:53 {
    forward . 10.96.0.53 /etc/resolv.conf {
      policy sequential
      next SERVFAIL REFUSED
    }
    cache 30
  }"""


# --- registry ---------------------------------------------------------------------------------
def test_rule_ids_are_unique_kebab_case_and_documented():
    ids = [r.ID for r in RULES]
    assert len(ids) == len(set(ids))
    for module in _MODULES:
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", module.ID)
        assert module.__name__.rsplit(".", 1)[1] == module.ID.replace("-", "_")
        assert "PASS:" in (module.__doc__ or "") and "FAIL:" in (module.__doc__ or ""), module.ID
        assert isinstance(module.SEVERITY, Severity)


# --- k3s-hpa-min-replicas ---------------------------------------------------------------------
def test_k3s_hpa_pass(flux_repo, guard):
    root = flux_repo(K3S, {"dns/custom.yaml": configmap("coredns-custom", data="corp.server: |\n  corp:53 {\n    forward . 10.0.0.1\n  }")})
    assert guard(root).findings == []


def test_k3s_hpa_min_replicas_one_fails(flux_repo, guard):
    root = flux_repo(K3S, {"dns/hpa.yaml": hpa(1)})
    assert summary(guard(root).findings) == [
        ("k3s-hpa-min-replicas", "error", "dns/hpa.yaml", 6, "kube-system_coredns_autoscaling_HorizontalPodAutoscaler")]


K3S_BY_FACT = ("guard:\n  clusters:\n    - {name: prod, root: clusters/prod/flux-system/gotk-sync.yaml, "
               "platform: k3s}\n")


def test_k3s_cluster_without_hpa_fails(flux_repo, guard):
    base = {**DNS, "dns/custom.yaml": configmap("coredns-custom"), "dns/hpa.yaml": hpa(2), ".coredns-gen.yaml": K3S_BY_FACT}
    root = flux_repo(base, {"dns/hpa.yaml": None})
    findings = [f for f in guard(root).findings if f.rule != "object-pruned"]
    assert summary(findings) == [("k3s-hpa-min-replicas", "error", "dns/custom.yaml", 1, "kube-system_coredns-custom__ConfigMap")]
    assert "this k3s cluster has no HorizontalPodAutoscaler" in findings[0].message


def test_k3s_judged_by_content_only_is_a_warning(flux_repo, guard):
    base = {**DNS, "dns/custom.yaml": configmap("coredns-custom")}
    root = flux_repo(base, {"dns/pdb.yaml": PDB})
    findings = guard(root).findings
    assert summary(findings) == [("k3s-hpa-min-replicas", "warning", "dns/custom.yaml", 1, "kube-system_coredns-custom__ConfigMap")]
    assert "PodDisruptionBudget" in findings[0].message and "guard.clusters[].platform" in findings[0].hint


def test_k3s_marker_label_makes_hpa_required(flux_repo, guard):
    labelled = configmap("coredns-custom", annotations="objectset.rio.cattle.io/hash: abc")
    root = flux_repo({**DNS, "dns/x.yaml": configmap("x", namespace="default")}, {"dns/custom.yaml": labelled})
    assert [f.rule for f in guard(root).findings] == ["k3s-hpa-min-replicas"]


def test_aks_style_coredns_custom_alone_is_not_judged_for_hpa(flux_repo, guard):
    root = flux_repo({**DNS, "dns/x.yaml": configmap("x", namespace="default")}, {"dns/custom.yaml": configmap("coredns-custom")})
    assert guard(root).findings == []


def test_violation_already_at_base_is_a_warning(flux_repo, guard):
    base = {**K3S, "dns/hpa.yaml": hpa(1)}
    root = flux_repo(base, {"dns/extra.yaml": configmap("x", namespace="default")})
    findings = guard(root).findings
    assert [(f.rule, f.severity.value) for f in findings] == [("k3s-hpa-min-replicas", "warning")]
    assert "already so at base" in findings[0].message


# --- talos-corefile-kept ----------------------------------------------------------------------
def test_talos_corefile_pass(flux_repo, guard):
    root = flux_repo({**DNS, "dns/corefile.yaml": configmap("coredns")}, {"dns/corefile.yaml": configmap("coredns", data=TWO_STANZAS)})
    assert guard(root).findings == []


def test_talos_corefile_key_renamed_fails(flux_repo, guard):
    renamed = TWO_STANZAS.replace("Corefile:", "Corefile.old:")
    root = flux_repo({**DNS, "dns/corefile.yaml": configmap("coredns")}, {"dns/corefile.yaml": configmap("coredns", data=renamed)})
    findings = guard(root).findings
    assert summary(findings) == [("talos-corefile-kept", "error", "dns/corefile.yaml", 6, "kube-system_coredns__ConfigMap")]
    assert "Corefile.old" in findings[0].message


# --- next-needs-forward -----------------------------------------------------------------------
def test_next_followed_by_forward_pass(flux_repo, guard):
    root = flux_repo({**DNS, "dns/corefile.yaml": configmap("coredns")}, {"dns/corefile.yaml": configmap("coredns", data=TWO_STANZAS)})
    assert guard(root).findings == []


def test_next_without_second_forward_fails(flux_repo, guard):
    root = flux_repo({**DNS, "dns/corefile.yaml": configmap("coredns", data=TWO_STANZAS)},
                     {"dns/corefile.yaml": configmap("coredns", data=ONE_STANZA)})
    findings = guard(root).findings
    assert summary(findings) == [("next-needs-forward", "error", "dns/corefile.yaml", 6, "kube-system_coredns__ConfigMap")]
    assert "next" in findings[0].message


def test_next_in_coredns_custom_server_block_fails(flux_repo, guard):
    server = "corp.server: |\n  corp:53 {\n    forward . 10.0.0.1 {\n      next SERVFAIL\n    }\n  }"
    root = flux_repo({**DNS, "dns/custom.yaml": configmap("coredns-custom")}, {"dns/custom.yaml": configmap("coredns-custom", data=server)})
    assert [f.rule for f in guard(root).findings] == ["next-needs-forward"]


# --- k3s-deployment-untouched -----------------------------------------------------------------
DEPLOYMENT = """
    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: coredns
      namespace: kube-system
    spec:
      replicas: 2
      selector:
        matchLabels: {k8s-app: kube-dns}
      template:
        metadata:
          labels: {k8s-app: kube-dns}
        spec:
          containers:
            - name: coredns
              image: coredns/coredns:1.13.1
"""


def test_deployment_untouched_pass(flux_repo, guard):
    root = flux_repo(K3S, {"dns/hpa.yaml": hpa(3)})
    assert guard(root).findings == []


def test_deployment_in_build_fails(flux_repo, guard):
    root = flux_repo(K3S, {"dns/deployment.yaml": DEPLOYMENT})
    assert summary(guard(root).findings) == [
        ("k3s-deployment-untouched", "error", "dns/deployment.yaml", 1, "kube-system_coredns_apps_Deployment")]


def test_flux_patch_on_deployment_fails(flux_repo, guard):
    patch = ("patches:\n  - target:\n      kind: Deployment\n      name: coredns\n"
             "    patch: |\n      - op: replace\n        path: /spec/replicas\n        value: 2")
    root = flux_repo(K3S, {"clusters/prod/dns.yaml": flux_ks("dns", "./dns", extra=patch)})
    findings = guard(root).findings
    assert [(f.rule, f.file, f.details["object"]) for f in findings] == [
        ("k3s-deployment-untouched", "clusters/prod/dns.yaml", "flux-system_dns_kustomize.toolkit.fluxcd.io_Kustomization")]


# --- coredns-custom-keys ----------------------------------------------------------------------
def test_custom_keys_pass(flux_repo, guard):
    good = "corp.server: |\n  corp:53 {\n    forward . 10.0.0.1\n  }\nlog.override: |\n  log"
    root = flux_repo({**DNS, "dns/custom.yaml": configmap("coredns-custom")}, {"dns/custom.yaml": configmap("coredns-custom", data=good)})
    assert guard(root).findings == []


AKS_MERGE = "kustomize.toolkit.fluxcd.io/ssa: Merge"


def test_k3s_override_with_root_forward_and_next_passes(flux_repo, guard):
    override = "upstream.override: |\n  forward . 10.0.0.53 {\n    next SERVFAIL\n  }"
    root = flux_repo(K3S, {"dns/custom.yaml": configmap("coredns-custom", data=override)})
    assert guard(root).findings == []


@pytest.mark.parametrize("data,needle", [
    ("corp.conf: |\n  corp:53 {\n    forward . 10.0.0.1\n  }", "ends neither .server nor .override"),
    ("upstream.override: |\n  forward . 10.0.0.1", "`forward .` is never reached"),  # judged in AKS's own Corefile
    ("upstream.override: |\n  forward .:53 10.0.0.1", "is never reached"),
    ("upstream.override: |\n  forward dns://. 10.0.0.1", "is never reached"),
], ids=["bad-suffix", "aks-root-forward-override", "aks-root-forward-with-port", "aks-root-forward-with-scheme"])
def test_custom_keys_fail(flux_repo, guard, data, needle):
    aks = K3S_BY_FACT.replace("k3s", "aks")
    root = flux_repo({**DNS, "dns/custom.yaml": configmap("coredns-custom", annotations=AKS_MERGE), ".coredns-gen.yaml": aks},
                     {"dns/custom.yaml": configmap("coredns-custom", data=data, annotations=AKS_MERGE)})
    findings = guard(root).findings
    assert summary(findings) == [("coredns-custom-keys", "error", "dns/custom.yaml", 8, "kube-system_coredns-custom__ConfigMap")]
    assert needle in findings[0].message


# --- kubeadm: the Deployment patch, and a Kubernetes minor bump ---------------------------------
KUBEADM_PATCH = """
    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: coredns
      namespace: kube-system
      annotations:
        kustomize.toolkit.fluxcd.io/ssa: Merge
        coredns-gen.io/platform: kubeadm
    spec:
      selector:
        matchLabels: {k8s-app: kube-dns}
      template:
        spec:
          containers:
            - name: coredns
              volumeMounts: [{name: custom-config-volume, mountPath: /etc/coredns/custom, readOnly: true}]
          volumes: [{name: custom-config-volume, configMap: {name: coredns-custom, optional: true}}]
"""


def test_kubeadm_deployment_patch_is_not_refused(flux_repo, guard):
    root = flux_repo({**DNS, "dns/corefile.yaml": configmap("coredns")}, {"dns/deployment.yaml": KUBEADM_PATCH})
    assert guard(root).findings == []


def test_a_deployment_naming_a_platform_that_owns_it_is_still_refused(flux_repo, guard):
    root = flux_repo(K3S, {"dns/deployment.yaml": KUBEADM_PATCH.replace("platform: kubeadm", "platform: k3s")})
    assert [f.rule for f in guard(root).findings] == ["k3s-deployment-untouched"]


def _kubeadm_corefile(version: str) -> str:
    return configmap("coredns", annotations=f"coredns-gen.io/kubernetes-version: {version}")


@pytest.mark.parametrize(("base", "head", "warned"), [("v1.34.3", "v1.35.0", True), ("v1.35.0", "v1.35.2", False)])
def test_kubeadm_minor_bump_warns(flux_repo, guard, base, head, warned):
    root = flux_repo({**DNS, "dns/corefile.yaml": _kubeadm_corefile(base)}, {"dns/corefile.yaml": _kubeadm_corefile(head)})
    findings = guard(root).findings
    assert [(f.rule, f.severity) for f in findings] == ([("kubeadm-minor-bump", Severity.WARNING)] if warned else [])
    if warned:
        assert "v1.34.3 -> v1.35.0" in findings[0].message and "kubeadm upgrade" in findings[0].hint
