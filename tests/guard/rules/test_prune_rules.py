"""configmap-pruned, object-pruned, object-orphaned and namespace-pruned, from values in memory."""

from __future__ import annotations

from gen.finding import Severity
from tests.guard.rules.change_builder import Ks, change, findings, obj

CUSTOM = obj("ConfigMap", "coredns-custom")
HPA = obj("HorizontalPodAutoscaler", "coredns", api="autoscaling/v2")


def test_configmap_dropped_from_a_pruning_kustomization_is_refused_where_it_was_written():
    judged = change([Ks("dns", (CUSTOM, HPA))], [Ks("dns", (HPA,))],
                    written={("kube-system", "coredns-custom", "", "ConfigMap"): ("dns/kustomization.yaml", 6)})
    [found] = findings(judged, "configmap-pruned")
    assert (found.severity, found.file, found.line) == (Severity.ERROR, "dns/kustomization.yaml", 6)
    assert "ConfigMap kube-system/coredns-custom would be deleted by Flux" in found.message
    assert found.details["fate"] == "deleted" and found.details["kustomization"] == "flux-system/dns"
    assert findings(judged, "object-pruned") == []  # a ConfigMap is configmap-pruned's alone


def test_configmap_kept_or_orphaned_is_not_refused():
    assert findings(change([Ks("dns", (CUSTOM,))], [Ks("dns", (CUSTOM,))]), "configmap-pruned") == []
    orphaned = change([Ks("dns", (CUSTOM,), prune=False)], [Ks("dns", (), prune=False)])
    assert findings(orphaned, "configmap-pruned") == []
    [found] = findings(orphaned, "object-orphaned")
    assert found.details["object"] == "kube-system_coredns-custom__ConfigMap"


def test_other_kinds_are_a_warning():
    [found] = findings(change([Ks("dns", (CUSTOM, HPA))], [Ks("dns", (CUSTOM,))]), "object-pruned")
    assert (found.severity, found.file) == (Severity.WARNING, "clusters/prod/dns.yaml")
    assert "HorizontalPodAutoscaler kube-system/coredns" in found.message


def test_a_kustomization_leaving_git_takes_its_configmaps_with_it():
    judged = change([Ks("dns", (CUSTOM,)), Ks("apps")], [Ks("apps")])
    assert [f.details["object"] for f in findings(judged, "configmap-pruned")] == ["kube-system_coredns-custom__ConfigMap"]


def test_a_namespace_holding_a_configmap_is_refused():
    namespace = obj("Namespace", "dns-extra", namespace="")
    held = obj("ConfigMap", "zones", namespace="dns-extra")
    judged = change([Ks("infra", (namespace,)), Ks("dns", (held,))], [Ks("infra"), Ks("dns", (held,))])
    [found] = findings(judged, "namespace-pruned")
    assert found.severity is Severity.ERROR and "ConfigMap dns-extra/zones" in found.message
    assert findings(judged, "object-pruned") == []
