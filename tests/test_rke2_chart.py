"""Our port of the rke2-coredns chart's Corefile template renders what the real chart renders.

The expected data is the real chart's `helm template` output (tests/data/upstream/rke2-coredns/,
recorded by scripts/record-rke2-chart with helm v3.19.0 from the chart archives RKE2 pins): each
case's values file is merged over the vendored chart values the way Helm merges them, run
through the port, and compared with the Corefile the real chart put in its ConfigMap, byte for
byte. A case is any file in tests/data/rke2-chart/; a case without its recording fails.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gen import yamlio
from gen.platforms import rke2_chart

REPO = Path(__file__).resolve().parents[1]
CASES = sorted((REPO / "tests" / "data" / "rke2-chart").glob("*.values.yaml"))
RECORDED = REPO / "tests" / "data" / "upstream" / "rke2-coredns"


def _chart_values(chart: str) -> dict[str, object]:
    text = (REPO / "gen" / "data" / "rke2" / f"rke2-coredns-{chart}.values.yaml").read_text(encoding="utf-8")
    return dict(yamlio.load_all_safe(text)[0])


def _recorded_corefile(name: str) -> str:
    path = RECORDED / f"{name}.configmap.yaml"
    assert path.is_file(), f"no recording for {name}: run scripts/record-rke2-chart"
    (configmap,) = yamlio.load_all_safe(path.read_text(encoding="utf-8"))
    return str(configmap["data"]["Corefile"])


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name.removesuffix(".values.yaml"))
def test_port_renders_what_the_real_chart_renders(case: Path) -> None:
    name = case.name.removesuffix(".values.yaml")
    chart = name.split("-", 1)[0]
    overrides = yamlio.load_all_safe(case.read_text(encoding="utf-8"))[0]
    values = rke2_chart.merged(_chart_values(chart), overrides)
    assert rke2_chart.corefile(values) == _recorded_corefile(name)


def test_every_chart_a_release_renders_with_has_a_stock_case() -> None:
    """The port is held to the real chart for every chart an RKE2 release pins (gen/platforms/
    releases.py RKE2). A chart vendored only to compare a branch head's stock Corefile with its
    base's (refresh-platform-data; 1.47.003, pinned by the heads of rancher/rke2 but by no tag,
    whose archive the stored copies do not hold) is rendered by no release, so it needs no case."""
    from gen.platforms.releases import RKE2

    vendored = {p.name.removeprefix("rke2-coredns-").removesuffix(".values.yaml")
                for p in (REPO / "gen" / "data" / "rke2").glob("*.values.yaml")}
    pinned = set(RKE2.values())
    assert pinned and pinned <= vendored
    assert pinned <= {p.name.split("-", 1)[0] for p in CASES if p.name.endswith("-stock.values.yaml")}


def test_charts_up_to_1_45_201_name_the_cluster_domain_twice() -> None:
    """A quirk RKE2 really ships (the chart puts the domain before parameters that already hold it)."""
    values = rke2_chart.merged(_chart_values("1.45.201"), {"global": {"clusterDomain": "cluster.local"}})
    assert "    kubernetes  cluster.local  cluster.local in-addr.arpa ip6.arpa {" in rke2_chart.corefile(values).splitlines()


def test_helm_merge_replaces_lists_and_deletes_on_null() -> None:
    merged = rke2_chart.merged({"servers": [1, 2], "a": {"b": 1, "c": 2}}, {"servers": [3], "a": {"c": None, "d": 4}})
    assert merged == {"servers": [3], "a": {"b": 1, "d": 4}}


@pytest.mark.parametrize(("case", "release"), [("1.46.201-example", None), ("1.45.201-example", "v1.34.5+rke2r1")])
def test_recorded_cases_are_what_we_render_for_the_example(case: str, release: str | None) -> None:
    """The chart was run on our real output: re-record (scripts/record-rke2-chart) when it changes."""
    from gen.platforms import rke2
    from gen.render.values import load_values

    values = load_values(REPO / "examples" / "rke2.yaml", repo=REPO)
    if release:
        values = values._replace(platform_version=release)
    recorded = yamlio.load_all_safe((REPO / "tests" / "data" / "rke2-chart" / f"{case}.values.yaml").read_text(encoding="utf-8"))[0]
    recorded.pop("global")
    assert recorded == rke2.chart_values_for(values)
    assert rke2.main_corefile(values) == _recorded_corefile(case)


def test_nodelocal_sends_only_the_cluster_domains_to_coredns() -> None:
    """Why rke2.nodelocal refuses `upstream` and fills extraClusterDomains (docs/rke2.md), from the
    real chart's node-local-dns Corefile: the cluster domain and our zones are forwarded to CoreDNS
    (the cluster DNS IP), every other name to the node's own resolvers."""
    case = "1.46.201-nodelocal"
    values = yamlio.load_all_safe((REPO / "tests" / "data" / "rke2-chart" / f"{case}.values.yaml").read_text(encoding="utf-8"))[0]
    (configmap,) = yamlio.load_all_safe((RECORDED / f"{case}.configmap-nodelocal.yaml").read_text(encoding="utf-8"))
    lines = configmap["data"]["Corefile"].splitlines()
    domains = [values["global"]["clusterDomain"], *values["nodelocal"]["extraClusterDomains"]]
    assert lines[0] == " ".join(f"{d}:53" for d in domains) + " {"
    assert "    forward . __PILLAR__CLUSTER__DNS__ {" in lines[:lines.index("in-addr.arpa:53 {")]  # to CoreDNS (node-cache fills in the service IP)
    root = lines.index(".:53 {")
    assert "    forward . __PILLAR__UPSTREAM__SERVERS__ " in lines[root:]  # the node's resolv.conf, not CoreDNS
