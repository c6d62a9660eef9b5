"""RKE2: the HelmChartConfig restates the chart's default server, and every command judges the
Corefile the chart renders from it (not the values we meant)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gen.cli import app
from gen.platforms import rke2
from gen.render.values import load_values
from tests.conftest import REPO_ROOT
from tests.helpers import render_refused

runner = CliRunner()
EXAMPLE = (REPO_ROOT / "examples/rke2.yaml").read_text()


def _values(tmp_path: Path, text: str = EXAMPLE):  # type: ignore[no-untyped-def]
    (tmp_path / "v.yaml").write_text(text)
    return load_values(tmp_path / "v.yaml", repo=tmp_path)


@pytest.mark.parametrize("release", sorted(rke2.CHARTS))
def test_default_server_restates_every_stock_plugin_with_the_forward_pair(release: str, tmp_path: Path) -> None:
    values = _values(tmp_path, EXAMPLE.replace("v1.34.10+rke2r1", release))
    stock = rke2.chart_values(rke2.CHARTS[release])["servers"][0]
    ours = rke2.chart_values_for(values)["servers"][0]
    assert {k: v for k, v in ours.items() if k != "plugins"} == {k: v for k, v in stock.items() if k != "plugins"}  # zones, use_tcp, port
    forward = [p["name"] for p in stock["plugins"]].index("forward")
    assert ours["plugins"][:forward] == stock["plugins"][:forward]
    assert ours["plugins"][forward + 2:] == stock["plugins"][forward + 1:]
    assert ours["plugins"][forward:forward + 2] == [
        {"name": "forward", "parameters": ". 10.0.0.53 10.0.0.54 /etc/resolv.conf", "configBlock": "policy sequential\nnext SERVFAIL REFUSED"},
        {"name": "forward", "parameters": ". /etc/resolv.conf"},
    ]
    assert values.coredns_version == str(rke2.coredns_for(release))


def test_each_revision_keeps_its_own_chart_and_coredns() -> None:
    assert (str(rke2.coredns_for("v1.33.13+rke2r1")), str(rke2.coredns_for("v1.33.13+rke2r2"))) == ("1.14.4", "1.14.6")


def test_main_corefile_names_the_cluster_domain_as_the_chart_does(tmp_path: Path) -> None:
    values = _values(tmp_path, EXAMPLE.replace("platform: rke2", "platform: rke2\nclusterDomain: cluster.internal"))
    assert "    kubernetes  cluster.internal  in-addr.arpa ip6.arpa {" in rke2.main_corefile(values).splitlines()


def test_unknown_release_is_refused_with_the_known_ones(tmp_path: Path) -> None:
    """v1.34.0+rke2r1 was never tagged: older than every known 1.34 release, so no stand-in."""
    (line,) = render_refused(tmp_path, EXAMPLE.replace("v1.34.10+rke2r1", "v1.34.0+rke2r1"))
    assert line.startswith("v.yaml:6:18: platformVersion: unknown RKE2 release v1.34.0+rke2r1 — fix: write it as `rke2 --version` prints it; known: v1.32.0+rke2r1 … v1.32.13+rke2r2, ")
    assert "v1.34.1+rke2r1 … v1.34.10+rke2r1" in line


def test_nodelocal_cannot_carry_the_upstream_forwards(tmp_path: Path) -> None:
    lines = render_refused(tmp_path, EXAMPLE.replace("rke2:\n", "rke2:\n  nodelocal:\n    enabled: true\n"))
    assert lines == ["v.yaml:18:14: rke2.nodelocal.enabled: node-local-dns forwards every name outside the cluster to the node's "
                     "/etc/resolv.conf, so the `upstream` forwards in CoreDNS would never be reached — fix: drop `upstream:` and set "
                     "the resolvers on the nodes, or disable nodelocal"]


def test_nodelocal_sends_extra_zones_to_coredns_where_the_chart_can(tmp_path: Path) -> None:
    text = EXAMPLE.replace("upstream:\n  resolvers:\n    - 10.0.0.53\n    - 10.0.0.54\n", "").replace("rke2:\n", "rke2:\n  nodelocal:\n    enabled: true\n")
    assert rke2.chart_values_for(_values(tmp_path, text))["nodelocal"] == {"enabled": True, "ipvs": False, "extraClusterDomains": ["corp.example.com"]}
    lines = render_refused(tmp_path, text.replace("v1.34.10+rke2r1", "v1.34.8+rke2r1"))
    assert len(lines) == 1 and "chart 1.45.212 of RKE2 v1.34.8+rke2r1 has no nodelocal.extraClusterDomains" in lines[0]


@pytest.mark.parametrize(("text", "message"), [
    (EXAMPLE.replace("rke2:\n", "autoscaling:\n  minReplicas: 2\nrke2:\n"), "autoscaling: 'autoscaling' does not apply to RKE2"),
    ((REPO_ROOT / "examples/talos.yaml").read_text() + "rke2:\n  autoscaler:\n    min: 2\n", "rke2: 'rke2' applies only to platform rke2"),
    (EXAMPLE.replace("    min: 2\n", "    min: 1\n"), "rke2.autoscaler.min: 1 is out of range — fix: keep at least 2 so one node drain cannot take DNS down"),
])
def test_keys_that_mean_nothing_or_harm_on_rke2_are_refused(text: str, message: str, tmp_path: Path) -> None:
    assert any(message in line for line in render_refused(tmp_path, text)), message


def _lint(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["lint", *args, "--platform", "rke2", "--coredns-version", "1.14.6", "--format", "json"])
    return result.exit_code, result.stdout


def test_lint_judges_the_corefile_the_chart_renders(tmp_path: Path) -> None:
    rendered = (REPO_ROOT / "overlays/rke2/edge-rke2/rke2-coredns-helmchartconfig.yaml").read_text()
    broken = rendered.replace("      - name: forward\n        parameters: . /etc/resolv.conf\n", "", 1)
    assert broken != rendered
    (tmp_path / "hcc.yaml").write_text(broken)
    code, out = _lint(str(tmp_path / "hcc.yaml"))
    assert code == 1
    (finding,) = json.loads(out)
    assert (finding["rule"], finding["line"]) == ("forward-next-ignored", 11)  # the valuesContent line


def test_lint_refuses_values_content_that_is_not_yaml(tmp_path: Path) -> None:
    shutil.copy(REPO_ROOT / "overlays/rke2/edge-rke2/rke2-coredns-helmchartconfig.yaml", tmp_path / "hcc.yaml")
    text = (tmp_path / "hcc.yaml").read_text().replace("    servers:\n", "    servers: [\n", 1)
    (tmp_path / "hcc.yaml").write_text(text)
    result = runner.invoke(app, ["lint", str(tmp_path / "hcc.yaml")])
    assert result.exit_code == 2
    assert "spec.valuesContent: valuesContent is not valid YAML" in result.stderr


def _paths(node: object, prefix: tuple[str, ...] = ()) -> set[tuple[str, ...]]:
    """Key paths of nested mappings (a list is a leaf: Helm replaces it whole)."""
    if not isinstance(node, dict):
        return {prefix}
    return {p for k, v in node.items() for p in _paths(v, (*prefix, str(k)))}


@pytest.mark.parametrize("release", sorted(rke2.CHARTS))
def test_every_value_we_set_is_one_the_chart_of_that_release_has(release: str, tmp_path: Path) -> None:
    """The chart ships no values schema, so a key it lacks would be silently ignored by Helm."""
    chart = rke2.CHARTS[release]
    text = EXAMPLE.replace("v1.34.10+rke2r1", release).replace(
        "    max: 10\n", "    max: 10\n    coresPerReplica: 128\n    nodesPerReplica: 8\n    preventSinglePointFailure: true\n    enabled: true\n")
    nodelocal = "rke2:\n  nodelocal:\n    enabled: true\n    ipvs: true\n"
    text = text.replace("upstream:\n  resolvers:\n    - 10.0.0.53\n    - 10.0.0.54\n", "").replace("rke2:\n", nodelocal)
    if rke2.parse_version(chart) < rke2.Version(*rke2.EXTRA_CLUSTER_DOMAINS_FROM):
        text = text.replace("zones:\n  - zone: corp.example.com\n    upstreams:\n      - 10.20.0.10\n      - 10.20.0.11\n", "")
    ours = _paths(rke2.chart_values_for(_values(tmp_path, text)))
    assert ours and ours <= _paths(rke2.chart_values(chart)), ours - _paths(rke2.chart_values(chart))


@pytest.mark.parametrize(("values", "said"), [
    ("servers: [[]]", "servers[0] is a list"),
    ("servers: [{zones: [x]}]", "servers[0].zones[0] is a str"),
    ("servers: [{plugins: {name: log}}]", "servers[0].plugins is a dict"),
    ("extraConfig: [a]", "extraConfig is a list"),
])
def test_chart_values_of_the_wrong_shape_are_bad_input_not_a_crash(values: str, said: str, tmp_path: Path) -> None:
    """Helm's template cannot read a list where it reads a mapping; `lint` exited 4 on it."""
    hcc = tmp_path / "hcc.yaml"
    hcc.write_text("apiVersion: helm.cattle.io/v1\nkind: HelmChartConfig\nmetadata:\n  name: rke2-coredns\n"
                   f"  namespace: kube-system\nspec:\n  valuesContent: {json.dumps(values)}\n")
    result = CliRunner().invoke(app, ["lint", str(hcc)])
    assert result.exit_code == 2, result.output
    assert said in result.stderr and "hcc.yaml:7: spec.valuesContent" in result.stderr


# Charts up to 1.45.201 keep `cluster.local` in the kubernetes plugin's parameters and put the
# cluster domain in front: the chart renders both zones, and CoreDNS serves both.
OLD_CHART_RELEASES = sorted(r for r, chart in rke2.CHARTS.items() if rke2.parse_version(chart) <= rke2.Version(1, 45, 201))


@pytest.mark.parametrize("release", OLD_CHART_RELEASES)
def test_custom_cluster_domain_renders_on_charts_that_keep_cluster_local(release: str, tmp_path: Path) -> None:
    text = EXAMPLE.replace("v1.34.10+rke2r1", release).replace("platform: rke2", "platform: rke2\nclusterDomain: corp.internal")
    (tmp_path / "v.yaml").write_text(text)
    result = runner.invoke(app, ["render", "--repo", str(tmp_path), str(tmp_path / "v.yaml")])
    assert result.exit_code == 0, result.stderr
    assert "    kubernetes  corp.internal  cluster.local in-addr.arpa ip6.arpa {" in rke2.main_corefile(_values(tmp_path, text)).splitlines()


@pytest.mark.coredns
def test_custom_cluster_domain_on_an_old_chart_loads_in_coredns(coredns_bin: Path, tmp_path: Path) -> None:
    from tests.lint.test_real_binary import _load
    text = EXAMPLE.replace("v1.34.10+rke2r1", "v1.32.12+rke2r1").replace("platform: rke2", "platform: rke2\nclusterDomain: corp.internal")
    result = _load(coredns_bin, rke2.main_corefile(_values(tmp_path, text)))
    assert result.started, result.output
