"""`guard.scope: dns`: a team adopts the DNS gate without gating every ConfigMap.

With today's default (`all`) a Grafana dashboard ConfigMap removal is refused; with `dns` it is a
warning that says why, while removing coredns-custom, or a ConfigMap the coredns Deployment
mounts, is still refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from gen.config import load_config
from gen.errors import UsageError
from tests.guard.conftest import configmap, flux_ks, kustomization

CONFIG = ".coredns-gen.yaml"
DEPLOYMENT = """
    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: coredns
      namespace: kube-system
    spec:
      selector: {matchLabels: {k8s-app: kube-dns}}
      template:
        metadata: {labels: {k8s-app: kube-dns}}
        spec:
          containers: [{name: coredns, image: coredns/coredns:1.12.1}]
          volumes:
            - name: zones
              configMap: {name: coredns-zones}
"""
BASE = {
    "clusters/prod/apps.yaml": flux_ks("apps", "./apps"),
    "apps/kustomization.yaml": kustomization("grafana.yaml", "custom.yaml", "zones.yaml", "deploy.yaml"),
    "apps/grafana.yaml": configmap("grafana-dashboard", namespace="monitoring", data="a: b"),
    "apps/custom.yaml": configmap("coredns-custom"),
    "apps/zones.yaml": configmap("coredns-zones", data="db.corp: x"),
    "apps/deploy.yaml": DEPLOYMENT,
}


def _drop(*keep: str) -> dict[str, str | None]:
    return {"apps/kustomization.yaml": kustomization(*keep)}


def _verdicts(result) -> list[tuple[str, str, str]]:
    return sorted((f.severity.value, f.rule, f.details.get("object", "")) for f in result.findings
                  if f.rule in ("configmap-pruned", "object-pruned"))


def test_by_default_a_dashboard_configmap_removal_is_refused(flux_repo, guard):
    root = flux_repo(BASE, _drop("custom.yaml", "zones.yaml", "deploy.yaml"))
    assert _verdicts(guard(root)) == [("error", "configmap-pruned", "monitoring_grafana-dashboard__ConfigMap")]


def test_scope_dns_makes_it_a_warning_that_says_why(flux_repo, guard):
    root = flux_repo({**BASE, CONFIG: "guard:\n  scope: dns\n"}, _drop("custom.yaml", "zones.yaml", "deploy.yaml"))
    result = guard(root)
    assert _verdicts(result) == [("warning", "configmap-pruned", "monitoring_grafana-dashboard__ConfigMap")]
    (f,) = [f for f in result.findings if f.rule == "configmap-pruned"]
    assert f.message.endswith("(a warning: ConfigMap monitoring/grafana-dashboard is not cluster DNS and "
                              ".coredns-gen.yaml sets guard.scope: dns)")


def test_scope_dns_still_refuses_coredns_custom_and_a_configmap_coredns_mounts(flux_repo, guard):
    root = flux_repo({**BASE, CONFIG: "guard:\n  scope: dns\n"}, _drop("grafana.yaml", "deploy.yaml"))
    assert _verdicts(guard(root)) == [("error", "configmap-pruned", "kube-system_coredns-custom__ConfigMap"),
                                      ("error", "configmap-pruned", "kube-system_coredns-zones__ConfigMap")]


@pytest.mark.parametrize("text", ["guard:\n  scope: everything\n", "guard:\n  scope: [dns]\n"], ids=["word", "list"])
def test_an_unknown_scope_is_bad_input(tmp_path: Path, text: str):
    (tmp_path / CONFIG).write_text(text)
    with pytest.raises(UsageError) as err:
        load_config(tmp_path)
    assert "guard.scope" in str(err.value) and "write `scope: dns`" in str(err.value)


def test_scope_is_read(tmp_path: Path):
    (tmp_path / CONFIG).write_text("guard:\n  scope: dns\n")
    assert load_config(tmp_path).guard_scope == "dns"
    (tmp_path / CONFIG).write_text("guard: {}\n")
    assert load_config(tmp_path).guard_scope == "all"
