"""`coredns-gen import`: the values it writes render what the input holds, proven by rendering
them and comparing what CoreDNS loads through CoreDNS's own parser; every difference is named.

Inputs are real (tests/data/import/SOURCES.md) and coredns-gen's own rendered examples (an
import of a render must give values that render the same configuration).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import typing
from typing import Any
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from gen.adopt import import_dns, mapping, needs
from gen.adopt.needs import FIELDS, Need
from gen.cli import app
from gen.platforms import get
from gen.render.cluster import render_overlay
from gen.render.values import values_from_data
from gen.versions import parse_version
from tests.conftest import REPO_ROOT
from tests.guard.conftest import FLUX_SYSTEM
from tests.helpers import build_tree, git

DATA = REPO_ROOT / "tests/data/import"
runner = CliRunner()


def _import(tmp_path: Path, *args: str) -> tuple[int, str, Path]:
    out = tmp_path / "dns/imported.yaml"
    result = runner.invoke(app, ["import", *args, "-o", str(out), "--repo", str(tmp_path)])
    return result.exit_code, result.output, out


EXAMPLES = [("talos", "v1.13.9", "prod-talos", None), ("k3s", "v1.34.9+k3s1", "edge-k3s", None),
            ("aks", "1.34", "aks-westeu", None), ("rke2", "v1.34.10+rke2r1", "edge-rke2", None),
            ("eks", "v1.10.1-eksbuild.11", "prod-eks", None), ("kubeadm", "v1.35.0", "lab-kubeadm", None),
            ("gardener", "1.34", "shoot-gardener", "1.14.7")]


@pytest.mark.parametrize("platform,release,cluster,coredns", EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_importing_a_rendered_overlay_gives_values_that_render_the_same_configuration(
        platform: str, release: str, cluster: str, coredns: str | None) -> None:
    overlay = REPO_ROOT / "overlays" / platform / cluster
    result = import_dns([overlay], platform, release, cluster, coredns)
    assert result.same, [str(d) for d in result.differences] + [result.diff]
    assert result.values_text is not None
    # stronger than the proof: the imported values render the committed overlay, object for object
    files = render_overlay(values_from_data(yaml.safe_load(result.values_text), f"dns/{cluster}.yaml"))
    for file in files:
        committed = (REPO_ROOT / file.path).read_text()
        if file.objects:
            assert list(file.objects) == [d for d in yaml.safe_load_all(committed) if d], file.path
        else:
            assert file.text == committed, file.path
    assert sorted(f.path.rsplit("/", 1)[1] for f in files) == sorted(p.name for p in overlay.iterdir())


def test_k3s_coredns_custom_server_key_imports_as_a_zone_with_no_difference(tmp_path: Path) -> None:
    code, output, out = _import(tmp_path, str(DATA / "mrmarble-home-ops-d22efe49.yaml"), "--platform", "k3s",
                                "--platform-version", "v1.34.2+k3s1", "--cluster", "home")
    assert code == 0, output
    assert "no difference" in output
    assert "imported: coredns-custom key internal.server -> zones: internal" in output  # key by key
    values = out.read_text()
    assert "zone: internal\n" in values and "- 192.168.0.1\n" in values
    assert values.startswith("# Imported by `coredns-gen import` from ")


def test_extra_plugin_lines_in_a_zone_import_as_zone_lines_with_no_difference(tmp_path: Path) -> None:
    code, output, out = _import(tmp_path, str(DATA / "mrmarble-home-ops-cf8c889e.yaml"), "--platform", "k3s",
                                "--platform-version", "v1.34.2+k3s1", "--cluster", "home")
    assert code == 0, output
    assert "no difference" in output
    values = yaml.safe_load(out.read_text())
    assert values["zones"] == [{"zone": "internal", "upstreams": ["192.168.1.1"],
                                "lines": ["template IN AAAA {", "    rcode NXDOMAIN", "}"]}]


ZONE_FORWARD_OPTION = (DATA / "mrmarble-home-ops-cf8c889e.yaml").read_text().replace(
    "forward . 192.168.1.1", "forward . 192.168.1.1 {\n          max_fails 5\n          tls_servername dns.example\n        }")


def test_a_zone_forward_option_no_values_key_says_is_named_and_nothing_is_written(tmp_path: Path) -> None:
    (tmp_path / "custom.yaml").write_text(ZONE_FORWARD_OPTION)
    assert "tls_servername dns.example" in (tmp_path / "custom.yaml").read_text()
    code, output, out = _import(tmp_path, str(tmp_path / "custom.yaml"), "--platform", "k3s",
                                "--platform-version", "v1.34.2+k3s1", "--cluster", "home")
    assert code == 1, output
    assert ("forward options tls_servername dns.example: a zone's forward takes `policy`, `next` and zones[].forward "
            "(max_fails, expire, health_check, max_concurrent, force_tcp, prefer_udp) from values") in output
    assert "max_fails 5:" not in output  # said by zones[].forward
    assert "nothing written" in output and not out.exists()


TALOS_STOCK = (REPO_ROOT / "gen/data/talos/talos-1.13.Corefile").read_text()


def _talos_configmap(corefile: str) -> str:
    body = "".join(f"    {line}\n" if line else "\n" for line in corefile.splitlines())
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: coredns\n  namespace: kube-system\ndata:\n  Corefile: |\n{body}"


@pytest.mark.parametrize("where", ["coredns-custom", "Talos Corefile"])
def test_forward_options_import_as_forward_values_with_no_difference(tmp_path: Path, where: str) -> None:
    """max_fails, expire, health_check and prefer_udp (JobDouma/k8s-home-server's forwards) are
    values keys now: a zone's and the root forward's options import, and render back the same."""
    options = "{\n          policy sequential\n          max_fails 3\n          expire 30s\n          health_check 5s\n          prefer_udp\n        }"
    if where == "coredns-custom":
        (tmp_path / "in.yaml").write_text((DATA / "mrmarble-home-ops-cf8c889e.yaml").read_text().replace(
            "forward . 192.168.1.1", "forward . 192.168.1.1 " + options))
        args = ["--platform", "k3s", "--platform-version", "v1.34.2+k3s1"]
    else:
        corefile = TALOS_STOCK.replace("forward . /etc/resolv.conf {\n       max_concurrent 1000\n    }",
                                       "forward . 192.168.2.53 /etc/resolv.conf {\n       max_concurrent 1000\n"
                                       "       policy sequential\n       max_fails 3\n       expire 30s\n"
                                       "       next SERVFAIL REFUSED\n    }\n    forward . /etc/resolv.conf")
        assert "max_fails 3" in corefile
        corefile += "lan:53 {\n    errors\n    cache 30\n    forward . 192.168.2.53 " + options.replace("          ", "      ") + "\n}\n"
        (tmp_path / "in.yaml").write_text(_talos_configmap(corefile))
        args = ["--platform", "talos", "--platform-version", "v1.13.9"]
    code, output, out = _import(tmp_path, str(tmp_path / "in.yaml"), *args, "--cluster", "home")
    assert code == 0, output
    assert "no difference" in output
    values = yaml.safe_load(out.read_text())
    zone = values["zones"][-1]
    assert zone["forward"] == {"maxFails": 3, "expire": "30s", "healthCheck": "5s", "preferUdp": True}
    if where != "coredns-custom":
        assert values["upstream"]["forward"] == {"maxFails": 3, "expire": "30s"}


def test_allow_loss_writes_the_values_with_every_difference_in_its_header(tmp_path: Path) -> None:
    (tmp_path / "custom.yaml").write_text(ZONE_FORWARD_OPTION)
    code, output, out = _import(tmp_path, str(tmp_path / "custom.yaml"), "--platform", "k3s",
                                "--platform-version", "v1.34.2+k3s1", "--cluster", "home", "--allow-loss")
    assert code == 0, output
    text = out.read_text()
    assert "#   - coredns-custom key internal.server server block internal.:53: forward options tls_servername dns.example" in text
    assert values_from_data(yaml.safe_load(text), "imported").zones[0].upstreams == ("192.168.1.1",)


def test_talos_resolv_conf_is_kept_and_a_variable_without_postbuild_is_named() -> None:
    """Alone, the Talos ConfigMap's `${SECRET_DOMAIN}` has no postBuild to fill it: the zone is
    named, not written as literal text; Talos's own `forward . /etc/resolv.conf` is kept."""
    result = import_dns([DATA / "nickdavies-homelab-talos.yaml"], "talos", "v1.13.0", "homelab")
    assert result.values_text is not None and "upstream:\n  resolvConf: true\n" in result.values_text
    said = [str(d) for d in result.differences]
    assert any("internal.${SECRET_DOMAIN}" in s and "has no postBuild" in s for s in said), said
    assert not any("needs " in s for s in said)


def test_kubeadm_stub_domain_is_a_zone_and_its_default_block_is_said_but_ready_is_kept() -> None:
    result = import_dns([DATA / "prabhu43-cka-exam-kubeadm.yaml"], "kubeadm", "v1.33.0", "lab")
    assert result.values_text is not None and "zone: consul.local" in result.values_text
    said = [str(d) for d in result.differences]
    # no fallback: `fallback: []`; `health` without lameduck, kubernetes without ttl: defaultBlock.lines; but an exam's Corefile older than
    # the `ready` plugin: kubeadm v1.33's Deployment asks /ready, so the render keeps it, and says so
    assert [s for s in said if "`ready`" not in s] == [], said
    assert any("no `ready` plugin: coredns-gen keeps the stock `ready` plugin" in s for s in said), said
    values = yaml.safe_load(result.values_text)
    assert values["upstream"]["fallback"] == [] and values["defaultBlock"]["lines"][:2] == ["health", "kubernetes cluster.local in-addr.arpa ip6.arpa {"]
    assert "consul.local" not in result.diff  # the zone renders as it was


def test_aks_dump_imports_the_override_and_leaves_aks_own_corefile_alone() -> None:
    result = import_dns([DATA / "vijayrod-demo-aks-kubectl.yaml"], "aks", "1.33", "demo")
    assert result.same, [str(d) for d in result.differences]
    assert result.values_text is not None and "- name: log\n  lines:\n  - log\n" in result.values_text
    assert any("is aks's own and stays as it is" in n for n in result.notes)


def test_the_coredns_helm_chart_is_named_as_not_imported(tmp_path: Path) -> None:
    code, output, _ = _import(tmp_path, str(DATA / "mrmarble-home-ops-helmrelease.yaml"), "--platform", "k3s",
                              "--platform-version", "v1.34.2+k3s1", "--cluster", "home")
    assert code == 1
    assert "HelmRelease -/coredns" in output and "nothing of it is imported" in output


def test_input_without_cluster_dns_is_bad_input(tmp_path: Path) -> None:
    (tmp_path / "release.yaml").write_text("apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\n"
                                           "metadata: {name: podinfo}\nspec: {chart: {spec: {chart: podinfo}}}\n")
    code, output, _ = _import(tmp_path, str(tmp_path / "release.yaml"), "--platform", "kubeadm",
                              "--platform-version", "v1.33.0", "--cluster", "staging")
    assert code == 2 and "no cluster DNS configuration" in output


TALOS = (REPO_ROOT / "overlays/talos/prod-talos/coredns-configmap.yaml").read_text()


def test_a_default_block_line_the_stock_lacks_is_a_default_block_line(tmp_path: Path) -> None:
    edited = tmp_path / "cm.yaml"
    edited.write_text(TALOS.replace("        ready\n", "        ready\n        rewrite name foo.example bar.example\n"))
    assert edited.read_text() != TALOS
    result = import_dns([edited], "talos", "v1.13.9", "prod-talos")
    assert result.same, [str(d) for d in result.differences] + [result.diff]
    assert result.values_text is not None
    assert yaml.safe_load(result.values_text)["defaultBlock"] == {"lines": ["rewrite name foo.example bar.example"]}


def test_what_coredns_reads_the_same_way_is_no_difference(tmp_path: Path) -> None:
    """Zone spelling, block and plugin order, comments, `policy random` and a single upstream's policy."""
    (tmp_path / "custom.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: coredns-custom, namespace: kube-system}\ndata:\n"
        "  b.server: |\n    Corp.Example.:53 {  # ours\n      forward . 10.0.0.1 10.0.0.2 {\n        policy random\n      }\n"
        "      errors\n    }\n"
        "  a.server: |\n    lab.example:53 {\n      cache 10\n      forward . 10.0.0.9\n      errors\n    }\n")
    result = import_dns([tmp_path / "custom.yaml"], "k3s", "v1.34.9+k3s1", "edge")
    assert result.same, [str(d) for d in result.differences] + [result.diff]
    assert "coredns-custom key b.server -> zones: corp.example (rendered as key corp.example.server)" in result.placed
    assert result.values_text is not None and "policy: random" in result.values_text and "cache: 0" in result.values_text


def test_every_need_is_in_the_one_table() -> None:
    assert set(typing.get_args(Need)) == set(FIELDS)


def test_import_is_in_the_help() -> None:
    result = runner.invoke(app, ["import", "--help"])
    assert result.exit_code == 0 and "--allow-loss" in result.output and "migrate.md" in result.output


OLD_KUSTOMIZATION = """apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: coredns
  namespace: flux-system
spec:
  interval: 30m
  path: ./kubernetes/coredns
  prune: true
  targetNamespace: kube-system
  sourceRef:
    kind: GitRepository
    name: flux-system
"""


@pytest.mark.kustomize
@pytest.mark.parametrize("name,refused", [("coredns", False), ("coredns-gen", True)])
def test_the_switch_keeping_the_kustomization_name_passes_the_guard_and_a_rename_is_refused(
        tmp_path: Path, git_bin: str, kustomize_argv: list[str], name: str, refused: bool) -> None:
    """docs/migrate.md's one-commit switch: the rendered Kustomization takes the old one's name,
    so coredns-custom stays in one inventory; under another name the old one's finalizer would
    delete it, and the guard refuses."""
    build_tree(tmp_path, {**FLUX_SYSTEM, "clusters/prod/coredns.yaml": OLD_KUSTOMIZATION,
                          "kubernetes/coredns/kustomization.yaml": "resources: [configmap.yaml]\n",
                          "kubernetes/coredns/configmap.yaml": (DATA / "mrmarble-home-ops-d22efe49.yaml").read_text()})
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "hand-written DNS")
    # kept: import reads the old Kustomization and keeps its name; renamed: flux.name set by hand
    old = [] if refused else [str(tmp_path / "clusters/prod/coredns.yaml")]
    code, output, out = _import(tmp_path, str(tmp_path / "kubernetes/coredns"), *old, "--platform", "k3s",
                                "--platform-version", "v1.34.9+k3s1", "--cluster", "prod")
    assert code == 0, output
    if refused:
        out.write_text(out.read_text() + f"flux:\n  name: {name}\n")
    else:
        assert "flux:\n  name: coredns\n  namespace: flux-system\n  output: clusters/prod/coredns.yaml\n  interval: 30m\n" in out.read_text()
        assert "  targetNamespace: kube-system\n" in out.read_text()
    git(tmp_path, "rm", "-rq", "kubernetes/coredns", "clusters/prod/coredns.yaml")
    (tmp_path / ".coredns-gen.yaml").write_text("values: [dns/*.yaml]\n")
    assert runner.invoke(app, ["render", "--repo", str(tmp_path)]).exit_code == 0
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "DNS from coredns-gen")
    result = runner.invoke(app, ["guard", "--repo", str(tmp_path), "--base", "HEAD~1", "--format", "json", "--no-cache"])
    errors = [f["rule"] for f in json.loads(result.stdout or "[]") if f["severity"] == "error"]
    assert (result.exit_code, errors) == ((1, ["object-moved-deleted"]) if refused else (0, [])), result.output


K3S_DUMP = """apiVersion: v1
kind: List
items:
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: coredns, namespace: kube-system}
  spec: {replicas: 1}
- apiVersion: autoscaling/v2
  kind: HorizontalPodAutoscaler
  metadata: {name: coredns, namespace: kube-system}
  spec:
    scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: coredns}
    minReplicas: 1
    maxReplicas: 4
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: coredns-custom, namespace: kube-system}
  data:
    lab.server: |
      lab.example:53 {
        errors
        cache 30
        forward . 10.1.1.1
      }
"""


def test_a_k3s_dump_names_what_the_render_would_do_to_the_hpa_and_leaves_the_deployment_alone(tmp_path: Path) -> None:
    (tmp_path / "dump.yaml").write_text(K3S_DUMP)
    result = import_dns([tmp_path / "dump.yaml"], "k3s", "v1.34.9+k3s1", "edge")
    said = [str(d) for d in result.differences]
    assert any(s.startswith("autoscaling: autoscaling.minReplicas: not imported:") for s in said), said
    assert "HorizontalPodAutoscaler kube-system/coredns spec.minReplicas: 1: the render says 2" in said
    assert "HorizontalPodAutoscaler kube-system/coredns spec.maxReplicas: 4: the render says 3" in said
    assert "Deployment kube-system/coredns is k3s's own and stays as it is" in result.notes
    assert "the render adds PodDisruptionBudget kube-system/coredns (coredns-gen renders it on k3s)" in result.notes
    assert not result.diff  # the zone itself renders as it was


@pytest.mark.parametrize("text,key", [
    ("apiVersion: eks.services.k8s.aws/v1alpha1\nkind: Addon\nmetadata: {name: coredns}\n"
     "spec: {name: coredns, configurationValues: '{not json'}\n", "spec.configurationValues"),
    ("apiVersion: helm.cattle.io/v1\nkind: HelmChartConfig\nmetadata: {name: rke2-coredns, namespace: kube-system}\n"
     "spec: {valuesContent: '[unclosed'}\n", "spec.valuesContent"),
    ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: coredns}\ndata: {Corefile: '.:53 {'}\n", ""),
    ((REPO_ROOT / "tests/data/corefiles-realworld/aks-1111-proposed-block.yaml").read_text(), "does not parse"),
])
def test_values_or_a_corefile_the_platform_cannot_read_are_bad_input(tmp_path: Path, text: str, key: str) -> None:
    (tmp_path / "in.yaml").write_text(text)
    platform = ["aks", "1.34"] if "forward.override" in text else ["talos", "v1.13.9"]
    code, output, out = _import(tmp_path, str(tmp_path / "in.yaml"), "--platform", platform[0], "--platform-version",
                                platform[1], "--cluster", "x")
    assert code == 2, output
    assert key in output and not out.exists()


def test_the_same_object_twice_is_bad_input(tmp_path: Path) -> None:
    code, output, _ = _import(tmp_path, str(DATA / "mrmarble-home-ops-d22efe49.yaml"), str(DATA / "mrmarble-home-ops-cf8c889e.yaml"),
                              "--platform", "k3s", "--platform-version", "v1.34.9+k3s1", "--cluster", "home")
    assert code == 2 and "ConfigMap coredns-custom is here and at" in output


def test_every_field_of_the_table_is_available_and_the_mapping_writes_it() -> None:
    """Every values field import once lacked (gen/adopt/needs.py) is in this version: zone lines,
    `${VAR}` and upstream.resolvConf are written, not named as differences."""
    assert all(field.available for field in FIELDS.values())
    k3s, talos = get("k3s"), get("talos")
    text = yaml.safe_load((DATA / "mrmarble-home-ops-cf8c889e.yaml").read_text())["data"]
    after = mapping.custom_keys(text, k3s, parse_version("v1.34.9+k3s1"), overrides=True)
    assert after.differences == []
    assert after.data["zones"][0]["lines"] == ["template IN AAAA {", "    rcode NXDOMAIN", "}"]
    corefile = yaml.safe_load((DATA / "nickdavies-homelab-talos.yaml").read_text())["data"]["Corefile"]
    talos_values = mapping.main_corefile(corefile, talos, parse_version("v1.13.0"), "Corefile", upstream_required=True)
    assert talos_values.differences == []
    assert talos_values.data == {"upstream": {"resolvConf": True},
                                 "zones": [{"zone": "internal.${SECRET_DOMAIN}", "upstreams": ["192.168.254.200"]}]}


def test_a_field_the_table_marks_unavailable_is_named_as_needed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The table stays the one switch: an entry turned off is a named difference again."""
    monkeypatch.setitem(needs.FIELDS, "zones[].lines", needs.Field(False, needs.FIELDS["zones[].lines"].says))
    text = yaml.safe_load((DATA / "mrmarble-home-ops-cf8c889e.yaml").read_text())["data"]
    before = mapping.custom_keys(text, get("k3s"), parse_version("v1.34.9+k3s1"), overrides=True)
    assert [d.need for d in before.differences] == ["zones[].lines"] and "lines" not in before.data["zones"][0]
    assert "needs zones[].lines, not in this version" in str(before.differences[0])


def test_rke2_chart_values_beyond_servers_are_imported_and_compared_key_by_key(tmp_path: Path) -> None:
    """As devpro/tech-notes turns the autoscaler off (SOURCES.md); a chart value no values key
    says is named at its key."""
    config = ("apiVersion: helm.cattle.io/v1\nkind: HelmChartConfig\nmetadata: {name: rke2-coredns, namespace: kube-system}\n"
              "spec:\n  valuesContent: |-\n    autoscaler:\n      enabled: false\n")
    (tmp_path / "a.yaml").write_text(config)
    result = import_dns([tmp_path / "a.yaml"], "rke2", "v1.34.10+rke2r1", "edge")
    assert result.same and result.values_text is not None
    assert "rke2:\n  autoscaler:\n    enabled: false\n" in result.values_text
    (tmp_path / "a.yaml").write_text(config + "    priorityClassName: system-cluster-critical\n")
    said = [str(d) for d in import_dns([tmp_path / "a.yaml"], "rke2", "v1.34.10+rke2r1", "edge").differences]
    assert said == ['valuesContent.priorityClassName: "system-cluster-critical": no values key says it']


def test_a_file_import_the_render_drops_is_named(tmp_path: Path) -> None:
    """An import that matches no key in the input reads nothing now, but keys the cluster holds
    outside the input would stop being read: the proof cannot see that, so it is named."""
    (tmp_path / "cm.yaml").write_text(TALOS.replace("        errors\n", "        errors\n        import custom/*.override\n", 1))
    said = [str(d) for d in import_dns([tmp_path / "cm.yaml"], "talos", "v1.13.9", "prod-talos").differences]
    assert said == ["Corefile import: import custom/*.override: the render imports no file: files this matches in the "
                    "cluster would no longer be read"]


def _dump(tmp_path: Path, *objects: dict[str, Any]) -> Path:
    (tmp_path / "dump.yaml").write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": list(objects)}))
    return tmp_path / "dump.yaml"


def test_a_cluster_dump_of_eks_or_rke2_imports_the_corefile_coredns_loads(tmp_path: Path) -> None:
    """EKS and RKE2 import no coredns-custom: the Corefile a cluster holds (written by the add-on,
    or by the chart into rke2-coredns-rke2-coredns) is what the values must say."""
    eks = get("eks").stock_corefile(parse_version("v1.11.1-eksbuild.8"), "cluster.local")
    assert eks is not None
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "coredns", "namespace": "kube-system"},
          "data": {"Corefile": eks + "corp.example:53 {\n    errors\n    forward . 10.1.0.1\n}\n"}}
    result = import_dns([_dump(tmp_path, cm)], "eks", "v1.11.1-eksbuild.8", "e", "1.11.4")
    assert result.same and result.values_text is not None and "zone: corp.example" in result.values_text
    chart = get("rke2").stock_corefile(parse_version("v1.34.10+rke2r1"), "cluster.local")
    assert chart is not None
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "rke2-coredns-rke2-coredns", "namespace": "kube-system"},
          "data": {"Corefile": chart.replace("    loop\n", "    loop\n    log\n")}}
    said = [str(d) for d in import_dns([_dump(tmp_path, cm)], "rke2", "v1.34.10+rke2r1", "r").differences]
    assert said == ["server block .:53: `log`: is not in the render: no values key says it (rke2 v1.34.10+rke2r1's stock "
                    "default server block is kept as the platform writes it; values change only its root forward "
                    "(upstream), and send zones elsewhere with zones[])"]


def _layout(tmp_path: Path, configmap: str, ks: str) -> list[Path]:
    """The repository's own layout (the Kustomization's path must hold the ConfigMap's file)."""
    build_tree(tmp_path, {"kubernetes/apps/kube-system/coredns/app/configmap.yaml": (DATA / configmap).read_text(),
                          "kubernetes/apps/kube-system/coredns/ks.yaml": (DATA / ks).read_text()})
    return [tmp_path / "kubernetes/apps/kube-system/coredns"]


def test_the_flux_kustomization_that_applies_the_input_becomes_flux_values(tmp_path: Path) -> None:
    """nickdavies/homelab: sourceRef (with its own namespace), `prune: false`, targetNamespace and
    commonMetadata are written; with no postBuild the `${SECRET_DOMAIN}` zone is still named."""
    result = import_dns(_layout(tmp_path, "nickdavies-homelab-talos.yaml", "nickdavies-homelab-ks.yaml"),
                        "talos", "v1.13.0", "homelab", repo=tmp_path)
    assert not [d for d in result.differences if d.where.startswith("Flux Kustomization")]
    assert result.values_text is not None
    flux = yaml.safe_load(result.values_text)["flux"]
    assert flux == {"name": "coredns", "namespace": "flux-system", "output": "kubernetes/apps/kube-system/coredns/ks.yaml",
                    "interval": "1h", "timeout": "5m", "retryInterval": "2m", "wait": False,
                    "source": {"kind": "GitRepository", "name": "homelab"}, "prune": False, "targetNamespace": "kube-system",
                    "commonMetadata": {"labels": {"app.kubernetes.io/name": "coredns"}}}
    assert any("has no postBuild" in str(d) for d in result.differences)


@pytest.mark.parametrize("ref,why", [({"kind": "Bucket", "name": "b"}, "names a GitRepository or an OCIRepository"),
                                     ({"kind": "GitRepository", "name": "g", "namespace": "other"}, "in another")])
def test_a_source_flux_source_cannot_name_is_a_named_difference(ref: dict[str, str], why: str) -> None:
    ks = yaml.safe_load((DATA / "nickdavies-homelab-ks.yaml").read_text())
    ks["spec"]["sourceRef"] = ref
    flux, differences, _ = mapping.flux_of(ks, None, "ks.yaml:3")
    assert "source" not in flux
    assert [d.where.rsplit(" ", 1)[1] for d in differences] == ["spec.sourceRef"] and why in differences[0].why


def test_postbuild_a_parent_kustomization_patches_in_is_read_from_flux_s_own_build(tmp_path: Path) -> None:
    """nickdavies/homelab: `cluster-apps` gives every child Kustomization its postBuild through
    `spec.patches`; given the parent's file too, import reads the child as kustomize-controller
    builds it, so `${SECRET_DOMAIN}` is filled by the same substituteFrom and nothing is lost."""
    paths = _layout(tmp_path, "nickdavies-homelab-talos.yaml", "nickdavies-homelab-ks.yaml")
    (tmp_path / "kubernetes/flux").mkdir()
    (tmp_path / "kubernetes/flux/apps.yaml").write_text((DATA / "nickdavies-homelab-apps.yaml").read_text())
    result = import_dns([*paths, tmp_path / "kubernetes/flux/apps.yaml"], "talos", "v1.13.0", "homelab", repo=tmp_path)
    assert result.same, [str(d) for d in result.differences] + [result.diff]
    assert result.values_text is not None
    values = yaml.safe_load(result.values_text)
    assert values["flux"]["postBuild"] == {"substituteFrom": [{"kind": "ConfigMap", "name": "cluster-settings"},
                                                             {"kind": "Secret", "name": "cluster-config-secret"}]}
    assert values["zones"] == [{"zone": "internal.${SECRET_DOMAIN}", "upstreams": ["192.168.254.200"]}]
    assert any("its patches set spec.postBuild" in n for n in result.notes), result.notes


def test_overlay_goes_beside_the_input_when_the_artifact_leaves_the_default_folder_out(tmp_path: Path) -> None:
    """MrMarble/home-ops: GitRepository home-kubernetes ignores `/*` then re-includes
    `!/kubernetes`, so overlays/k3s/home would never be applied: the overlay is the folder of
    the input, inside what Flux delivers, and the note names the rule."""
    build_tree(tmp_path, {"kubernetes/apps/kube-system/coredns/app/configmap.yaml": (DATA / "mrmarble-home-ops-cf8c889e.yaml").read_text(),
                          "kubernetes/apps/kube-system/coredns/app/kustomization.yaml": "resources: [configmap.yaml]\n",
                          "kubernetes/apps/kube-system/coredns/ks.yaml": (DATA / "mrmarble-home-ops-d22efe49-ks.yaml").read_text(),
                          "kubernetes/flux/config/cluster.yaml": (DATA / "mrmarble-home-ops-cf8c889e-gitrepository.yaml").read_text()})
    result = import_dns([tmp_path / "kubernetes/apps/kube-system/coredns"], "k3s", "v1.34.2+k3s1", "home", repo=tmp_path)
    assert result.same, [str(d) for d in result.differences] + [result.diff]
    assert result.values_text is not None
    assert yaml.safe_load(result.values_text)["overlay"] == "kubernetes/apps/kube-system/coredns/app"
    said = [n for n in result.notes if n.startswith("overlay:")]
    assert said and "kubernetes/flux/config/cluster.yaml:15 `/*`" in said[0], result.notes
    # without the ignore rule the default folder stays
    (tmp_path / "kubernetes/flux/config/cluster.yaml").unlink()
    result = import_dns([tmp_path / "kubernetes/apps/kube-system/coredns"], "k3s", "v1.34.2+k3s1", "home", repo=tmp_path)
    assert result.values_text is not None and "overlay" not in yaml.safe_load(result.values_text)


def test_the_applying_kustomization_becomes_flux_values(tmp_path: Path) -> None:
    ks = yaml.safe_load((DATA / "mrmarble-home-ops-d22efe49-ks.yaml").read_text())
    flux, differences, _ = mapping.flux_of(ks, "kubernetes/apps/kube-system/coredns/ks.yaml", "ks.yaml:3")
    assert differences == []
    assert flux == {"name": "coredns", "namespace": "flux-system", "output": "kubernetes/apps/kube-system/coredns/ks.yaml",
                    "interval": "30m", "timeout": "5m", "retryInterval": "1m", "wait": True,
                    "source": {"kind": "GitRepository", "name": "home-kubernetes"}, "targetNamespace": "kube-system",
                    "commonMetadata": {"labels": {"app.kubernetes.io/name": "coredns"}}}


def test_every_problem_of_a_part_the_values_refuse_is_named_and_the_rest_is_imported(tmp_path: Path) -> None:
    """Two problems in one upstream (a resolv.conf among the resolvers, a fallback no values file
    may have) drop that upstream once, naming both; the zone beside it still imports."""
    (tmp_path / "cm.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: coredns-custom, namespace: kube-system}\ndata:\n"
        "  zzzz-coredns-gen-upstream.override: |\n    forward . /etc/hosts 999.1.1.1 /etc/resolv.conf {\n      next SERVFAIL\n    }\n"
        "  a.server: |\n    a.example:53 {\n      errors\n      cache 30\n      forward . 10.0.0.1\n    }\n")
    result = import_dns([tmp_path / "cm.yaml"], "k3s", "v1.34.9+k3s1", "edge")
    assert result.values_text is not None and "zone: a.example" in result.values_text and "\nupstream:" not in result.values_text
    assert len([d for d in result.differences if d.where == "upstream"]) >= 2


REAL = sorted(p for folder in ("corefiles-realworld", "corpus", "import") for p in (REPO_ROOT / "tests/data" / folder).iterdir()
              if p.suffix != ".md")


@pytest.mark.parametrize("platform,release", [("talos", "v1.13.9"), ("k3s", "v1.34.9+k3s1"), ("aks", "1.34")])
def test_every_real_corefile_and_configmap_is_imported_named_or_refused_never_a_crash(platform: str, release: str) -> None:
    """The real-world Corefiles and ConfigMaps the project holds: exit 0, 1 or 2, never 3 or 4."""
    codes = {}
    for path in REAL:
        result = runner.invoke(app, ["import", str(path), "--platform", platform, "--platform-version", release, "--cluster", "x"])
        codes[path.name] = result.exit_code
        assert result.exit_code in (0, 1, 2), (path.name, result.output[-2000:])
    assert 1 in codes.values()  # (each standalone Corefile differs from a platform's: named, exit 1)


def test_a_key_beside_the_corefile_the_render_would_drop_is_named(tmp_path: Path) -> None:
    (tmp_path / "cm.yaml").write_text(TALOS.replace("\ndata:\n", "\ndata:\n  example.db: |\n    $ORIGIN example.\n", 1))
    said = [str(d) for d in import_dns([tmp_path / "cm.yaml"], "talos", "v1.13.9", "prod-talos").differences]
    assert said == ["ConfigMap kube-system/coredns key example.db: 17 characters: the render writes only its Corefile: "
                    "no values key says it"]


def test_zones_that_answer_themselves_are_servers_as_written_and_the_talos_stock_default_block_is_no_difference() -> None:
    """Stasky745/homeops (Talos): server blocks of `template` answers, with no forward (one of
    them serving three zones), are no values zone: each is a servers[] entry as written."""
    result = import_dns([DATA / "stasky745-homeops-talos.yaml"], "talos", "v1.13.0", "home")
    assert result.same, [str(d) for d in result.differences] + [result.diff]
    assert result.values_text is not None and "resolvConf: true" in result.values_text
    servers = yaml.safe_load(result.values_text)["servers"]
    assert [s["zones"] for s in servers] == [["netbird.stasky.win", "pangolin.stasky.win", "vps.stasky.win"], ["stasky.win"],
                                             ["ribera.cat"]]
    assert servers[1]["lines"][0] == "template IN A stasky.win {"


def test_a_coredns_custom_talos_never_reads_is_named_and_its_stock_corefile_is_what_runs(tmp_path: Path) -> None:
    """bluevulpine/flux-talos: a coredns-custom on Talos, whose Corefile imports no key. With only
    it given, the Talos stock Corefile is what CoreDNS runs: upstream.resolvConf, and the one
    difference says the key was never read."""
    result = import_dns([DATA / "bluevulpine-flux-talos-947c9d31.yaml"], "talos", "v1.10.6", "home")
    assert [str(d) for d in result.differences] == [
        "coredns-custom key minio.server: minio.server: talos imports only no key: CoreDNS never reads it, and the render has no such key"]
    assert not result.diff
    assert result.values_text is not None and yaml.safe_load(result.values_text)["upstream"] == {"resolvConf": True}
    assert any("stock Corefile is read as the one the cluster runs" in p for p in result.placed)


@pytest.mark.parametrize("broken,read", [("kubernetes/apps/network/kustomization.yaml", True),
                                         ("kubernetes/apps/kustomization.yaml", False)])
def test_a_parent_whose_whole_tree_does_not_build_is_built_nearer_the_child_only_when_nothing_above_changes_it(
        tmp_path: Path, broken: str, read: bool) -> None:
    """As in nickdavies/homelab, where another app's remote base cannot be fetched here: the
    folder nearer the child builds when no kustomization file above it could change the child;
    a kustomization file above it (which could) leaves the postBuild unknown, said in a note."""
    paths = _layout(tmp_path, "nickdavies-homelab-talos.yaml", "nickdavies-homelab-ks.yaml")
    build_tree(tmp_path, {"kubernetes/flux/apps.yaml": (DATA / "nickdavies-homelab-apps.yaml").read_text(),
                          broken: "resources: [missing.yaml]\n"})
    result = import_dns([*paths, tmp_path / "kubernetes/flux/apps.yaml"], "talos", "v1.13.0", "homelab", repo=tmp_path)
    assert result.same is read, [str(d) for d in result.differences]
    assert result.values_text is not None
    assert ("postBuild" in yaml.safe_load(result.values_text)["flux"]) is read
    assert any("does not build here" in n for n in result.notes) is not read, result.notes


def test_a_flux_output_the_artifact_leaves_out_is_said(tmp_path: Path) -> None:
    """The old Kustomization's file holds another object too, so the render would write the
    default clusters/home/coredns.yaml, which `/*` leaves out of home-kubernetes's artifact."""
    build_tree(tmp_path, {"kubernetes/apps/kube-system/coredns/app/configmap.yaml": (DATA / "mrmarble-home-ops-cf8c889e.yaml").read_text(),
                          "kubernetes/apps/kube-system/coredns/ks.yaml": (DATA / "mrmarble-home-ops-d22efe49-ks.yaml").read_text()
                          + "---\napiVersion: v1\nkind: Namespace\nmetadata: {name: other}\n",
                          "kubernetes/flux/config/cluster.yaml": (DATA / "mrmarble-home-ops-cf8c889e-gitrepository.yaml").read_text()})
    result = import_dns([tmp_path / "kubernetes/apps/kube-system/coredns"], "k3s", "v1.34.2+k3s1", "home", repo=tmp_path)
    said = [n for n in result.notes if n.startswith("flux.output clusters/home/coredns.yaml would not be in the artifact")]
    assert said and "kubernetes/flux/config/cluster.yaml:15 `/*`" in said[0], result.notes


def test_a_zone_forward_inside_the_default_block_stays_there_as_a_default_block_line(tmp_path: Path) -> None:
    """JobDouma/k8s-home-server and goldentooth/gitops: `forward lan 192.168.2.53 {…}` inside `.:53`.
    defaultBlock.lines says it where it is (before the root forward, which would otherwise take
    its queries), so the default block's other plugins still see them: no difference."""
    corefile = TALOS_STOCK.replace("    forward . /etc/resolv.conf {", "    forward lan 192.168.2.53 {\n       policy sequential\n"
                                   "       max_fails 3\n    }\n    forward . /etc/resolv.conf {")
    (tmp_path / "in.yaml").write_text(_talos_configmap(corefile))
    code, output, out = _import(tmp_path, str(tmp_path / "in.yaml"), "--platform", "talos", "--platform-version", "v1.13.9",
                                "--cluster", "home")
    assert code == 0, output
    values = values_from_data(yaml.safe_load(out.read_text()), "imported")
    assert values.zones == ()
    assert values.default_block is not None
    assert values.default_block.lines == ("forward lan 192.168.2.53 {", "    policy sequential", "    max_fails 3", "}")
    rendered = "".join(str(o) for f in render_overlay(values) for o in f.objects)
    assert rendered.index("forward lan 192.168.2.53 {") < rendered.index("forward . /etc/resolv.conf")


RPI_FLUX = """apiVersion: v1
kind: ConfigMap
metadata:
  name: coredns-custom
  namespace: kube-system
data:
  empty.override: |
    # Silence warnings due <https://github.com/coredns/coredns/issues/3600>
  empty.server: |
    # Silence warnings due <https://github.com/coredns/coredns/issues/3600>
"""


def test_a_server_key_of_comments_only_is_named_not_silently_dropped(tmp_path: Path) -> None:
    """iamleot/rpi-flux: `empty.server` holds only a comment, to keep CoreDNS from warning that
    its `*.server` import matches nothing; the render writes no such key, and import says so."""
    (tmp_path / "cm.yaml").write_text(RPI_FLUX)
    code, output, out = _import(tmp_path, str(tmp_path / "cm.yaml"), "--platform", "k3s", "--platform-version",
                                "v1.34.9+k3s1", "--cluster", "rpi")
    assert code == 0, output
    assert "imported: coredns-custom key empty.server -> nothing: it holds no server block" in output
    assert "imported: coredns-custom key empty.override -> overrides: empty" in output


APPS = """apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: apps
  namespace: flux-system
spec:
  interval: 10m
  path: ./apps/home
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
"""


def test_an_umbrella_kustomization_that_applies_more_than_dns_is_not_repointed(tmp_path: Path) -> None:
    """JobDouma/k8s-home-server: docs/migrate.md says to pass "the Flux Kustomization whose path
    holds those files"; for `apps` that is an umbrella, and repointing it at the DNS overlay would
    prune every other app (45 objects there). Refused (exit 2), nothing written, naming the files."""
    build_tree(tmp_path, {"apps/home/kustomization.yaml": "resources: [coredns, blocky]\n",
                          "apps/home/coredns/kustomization.yaml": "resources: [configmap.yaml]\n",
                          "apps/home/coredns/configmap.yaml": TALOS,
                          "apps/home/blocky/deployment.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: blocky}\n",
                          "clusters/home/apps.yaml": APPS})
    code, output, out = _import(tmp_path, str(tmp_path / "apps/home/coredns"), str(tmp_path / "clusters/home/apps.yaml"),
                                "--platform", "talos", "--platform-version", "v1.13.9", "--cluster", "home")
    assert code == 2, output
    assert "clusters/home/apps.yaml:1: spec.path: Flux Kustomization apps applies more than cluster DNS: its path ./apps/home " \
           "also holds apps/home/blocky/deployment.yaml" in output
    assert "leave apps.yaml out of the import" in output and not out.exists()
    code, output, out = _import(tmp_path, str(tmp_path / "apps/home/coredns"), "--platform", "talos",
                                "--platform-version", "v1.13.9", "--cluster", "home")
    assert code == 0, output  # without it: a Kustomization of its own, switched to in two commits


@pytest.mark.parametrize("release", ["1.11", "v1.11.99"])
def test_a_talos_release_that_does_not_exist_is_refused(tmp_path: Path, release: str) -> None:
    """`1.11` and `v1.11.99` were accepted silently (a stand-in was borrowed)."""
    (tmp_path / "cm.yaml").write_text(TALOS)
    code, output, out = _import(tmp_path, str(tmp_path / "cm.yaml"), "--platform", "talos", "--platform-version", release,
                                "--cluster", "home")
    assert code == 2 and not out.exists(), output
    assert f"talos release '{release}' is not a release coredns-gen's tables hold" in output
    assert "v1.13.x" in output or "v1.13.9" in output  # the valid ones are listed


TALCONFIG = """clusterName: home
# renovate: datasource=docker depName=ghcr.io/siderolabs/installer
talosVersion: v1.13.9
"""


def test_import_reads_the_release_where_the_repository_says_it(tmp_path: Path) -> None:
    build_tree(tmp_path, {"talos/talconfig.yaml": TALCONFIG, "dns-in/cm.yaml": TALOS})
    code, output, out = _import(tmp_path, str(tmp_path / "dns-in/cm.yaml"), "--platform", "talos", "--cluster", "prod-talos")
    assert code == 0, output
    assert "release: talos v1.13.9 (from talos/talconfig.yaml:3)" in output
    assert "platformVersion: v1.13.9" in out.read_text()


def test_import_without_a_release_anywhere_lists_the_valid_ones(tmp_path: Path) -> None:
    (tmp_path / "cm.yaml").write_text(TALOS)
    code, output, out = _import(tmp_path, str(tmp_path / "cm.yaml"), "--platform", "talos", "--cluster", "home")
    assert code == 2 and not out.exists(), output
    assert "no --platform-version given and the repository names no talos release (talconfig.yaml talosVersion" in output
    assert "pass the release the cluster runs: one of v1.8.x" in output


INJECTED = "upstream:{br}  resolvers: [6.6.6.6]{br}#"


@pytest.mark.parametrize("br", ["\n", "\r", "\x85", "\u2028", "\u2029"], ids=["lf", "cr", "nel", "ls", "ps"])
def test_a_line_break_in_a_file_name_or_a_key_stays_inside_the_header_comment(tmp_path: Path, br: str) -> None:
    """The header names the input files and each difference (a ConfigMap key among them): a line
    break there ended the comment, and the rest became live YAML (`forward . 6.6.6.6` rendered).
    Every comment line is written single-line (gen/comments.py): the values read as written."""
    payload = INJECTED.format(br=br)
    folder = tmp_path / "in"
    folder.mkdir()
    name = folder / f"cm{payload}.yaml" if br in "\n\r" else folder / "cm.yaml"
    key = json.dumps(f"x{payload}.bogus")  # a key no platform imports: a difference, named with --allow-loss
    name.write_text((DATA / "mrmarble-home-ops-d22efe49.yaml").read_text()
                    + f"  {key}: |\n    log\n")
    code, output, out = _import(tmp_path, str(name), "--platform", "k3s", "--platform-version", "v1.34.2+k3s1",
                                "--cluster", "home", "--allow-loss")
    assert code == 0, output
    text = out.read_text(encoding="utf-8")
    head = text[:text.index("\ncluster")]
    assert all(line.startswith("#") for line in head.splitlines()), head
    values = yaml.safe_load(text)
    assert "upstream" not in values and "6.6.6.6" not in json.dumps(values)
    assert values_from_data(values, "imported").upstream is None or \
        "6.6.6.6" not in values_from_data(values, "imported").upstream.resolvers


def _bomb(indent: str) -> str:
    """Nine aliases of nine aliases, nine deep: 1 KB of YAML, 9^9 nodes when followed."""
    lines = [f'{indent}l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"{indent}l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]" for i in range(1, 9)]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("where", ["configmap", "valuesContent"])
def test_an_alias_bomb_is_bad_input_not_a_hang(tmp_path: Path, where: str) -> None:
    """import walked the aliases of a 1 KB document (10^9 nodes) and never ended."""
    if where == "configmap":
        text = (DATA / "mrmarble-home-ops-d22efe49.yaml").read_text() + "bomb:\n" + _bomb("  ")
        platform = ["k3s", "v1.34.2+k3s1"]
    else:
        text = ("apiVersion: helm.cattle.io/v1\nkind: HelmChartConfig\nmetadata: {name: rke2-coredns, namespace: kube-system}\n"
                "spec:\n  valuesContent: |\n" + _bomb("    "))
        platform = ["rke2", "v1.34.10+rke2r1"]
    (tmp_path / "in.yaml").write_text(text)
    assert len(text) < 2000
    proc = subprocess.run([sys.executable, "-m", "gen", "import", str(tmp_path / "in.yaml"), "--platform", platform[0],
                           "--platform-version", platform[1], "--cluster", "x", "-o", str(tmp_path / "dns/x.yaml"),
                           "--repo", str(tmp_path)], capture_output=True, text=True, timeout=120, check=False,
                          env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert "alias bomb" in proc.stderr and not (tmp_path / "dns/x.yaml").exists()


def test_a_line_separator_inside_a_quoted_token_does_not_split_the_line(tmp_path: Path) -> None:
    """CoreDNS breaks lines at LF only; import split `log . "a<U+2028>b"` in two (str.splitlines)
    and named `log . "a` and `b"` as two lines the render lacks."""
    (tmp_path / "in.yaml").write_text(
        'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: coredns-custom, namespace: kube-system}\n'
        'data:\n  internal.server: "internal.:53 {\\n  log . \\"a\\u2028b\\"\\n  forward . 192.168.0.1\\n}\\n"\n')
    result = import_dns([tmp_path / "in.yaml"], "k3s", "v1.34.2+k3s1", "home")
    said = [str(d) for d in result.differences]
    assert not any(s.endswith('`b"`: is not in the render: no values key says it') for s in said), said
    assert any('log . "a\u2028b"' in s for s in said), said
