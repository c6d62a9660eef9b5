"""RKE2: the `rke2-coredns` Helm chart owns the Corefile; the repo owns its HelmChartConfig.

RKE2 installs CoreDNS from its bundled chart and users change it only through a HelmChartConfig
`kube-system/rke2-coredns` (`spec.valuesContent`, merged over the chart's values by Helm). Helm
replaces lists whole, so setting `servers` drops the chart's default server: we restate it from
the chart values of that RKE2 release (vendored in gen/data/rke2/), with the forward pair's
stanzas (README.md: why two stanzas) in place of its `forward . /etc/resolv.conf` and the extra zones as servers of their own.
`main_corefile` is what the chart's template makes of those values (gen.platforms.rke2_chart,
tested against the real chart), so lint and verify judge what RKE2 loads.

nodelocal: the chart's node-local-dns answers every pod; its `.:53` block forwards to each node's
/etc/resolv.conf, never to CoreDNS, so `upstream` and nodelocal cannot be combined; extra zones
reach CoreDNS only through `nodelocal.extraClusterDomains` (chart 1.46.201 and later).
"""

from __future__ import annotations

import functools
from importlib import resources
from typing import Any, Mapping

from gen import yamlio
from gen.corefile import Directive, parse_corefile, parse_directives
from gen.corefile.tree import quote
from gen.errors import Problem
from gen.platforms import newer, rke2_chart
from gen.platforms import releases as releases_table
from gen.platforms.base import At, ImportPoint, ObjectRef, keys_not_applicable
from gen.rendered import Obj
from gen.spec import Values
from gen.templating import render_macro
from gen.versions import Version, parse_version

NAME = "rke2"
DEFAULT_RELEASE = "v1.34.10+rke2r1"
HELM_CHART_CONFIG = ObjectRef("HelmChartConfig", "kube-system", "rke2-coredns")
OWNS: tuple[ObjectRef, ...] = (HELM_CHART_CONFIG,)
NEVER_TOUCH: tuple[ObjectRef, ...] = (
    ObjectRef("HelmChart", "kube-system", "rke2-coredns"),
    ObjectRef("ConfigMap", "kube-system", "rke2-coredns-rke2-coredns"),
    ObjectRef("Deployment", "kube-system", "rke2-coredns-rke2-coredns"),
)
ORDER_HINT = "forward specific domains with a `zones:` entry instead"
SERVER_PORT = 53
NEXT_HINT = "upgrade RKE2 (every release we know ships CoreDNS ≥ 1.12.0), or set `corednsVersion:` to the image tag it runs"

# RKE2 release -> the rke2-coredns chart it pins (rancher/rke2 · charts/chart_versions.yaml at
# each release tag): gen/platforms/releases.py, rebuilt by scripts/refresh-platform-data. The
# CoreDNS it runs is the chart's image.tag (rancher/hardened-coredns:vX.Y.Z-buildN), read from the
# vendored values.
CHARTS: dict[str, str] = releases_table.RKE2
HEADS = releases_table.HEADS["rke2"]
EXTRA_CLUSTER_DOMAINS_FROM = (1, 46, 201)  # nodelocal.extraClusterDomains first appears in this chart


def _release(text: str) -> str:
    return text if text.startswith("v") else "v" + text


def _order(release: str) -> tuple[int, ...]:
    """Release order: the Kubernetes patch, then the rke2rN revision."""
    revision = release.rsplit("rke2r", 1)[1] if "rke2r" in release else "0"
    return (*parse_version(release), int(revision) if revision.isdigit() else 0)


def stand_in(release: str) -> str | None:
    if _release(release) in CHARTS:
        return release
    return newer.stand_in(_release(release), CHARTS, _order) or newer.newer_minor_base(_release(release), CHARTS, HEADS)


def newest_release() -> str:
    return max(CHARTS, key=_order)


def chart_of(release: str) -> str | None:
    """The chart the release pins (a later patch: its stand-in's, gen/platforms/newer.py)."""
    chosen = stand_in(release)
    return CHARTS[_release(chosen)] if chosen else None


@functools.lru_cache(maxsize=None)
def chart_values(chart: str) -> Mapping[str, Any]:
    """The chart's own values.yaml (read-only: callers merge, never mutate)."""
    text = resources.files("gen").joinpath(f"data/rke2/rke2-coredns-{chart}.values.yaml").read_text(encoding="utf-8")
    return dict(yamlio.load_all_safe(text)[0])


def known_releases() -> str:
    """Per minor, the first and the last release the tables hold (every tag between is a row)."""
    minors = sorted({parse_version(r)[:2] for r in CHARTS})
    spans = []
    for a, b in minors:
        mine = sorted((r for r in CHARTS if parse_version(r)[:2] == (a, b)), key=_order)
        spans.append(f"{mine[0]} … {mine[-1]}" if len(mine) > 1 else mine[0])
    return ", ".join(spans)


def releases() -> tuple[Version, ...]:
    return tuple(sorted({parse_version(r) for r in CHARTS}))


def coredns_for(release: str) -> Version | None:
    chart = chart_of(release)
    if chart is None:
        return None
    tag = str((chart_values(chart).get("image") or {}).get("tag", ""))
    return parse_version(tag) if tag else None


def kubernetes_version(values: Values) -> str | None:
    return str(values.platform_version)


def check_version(values: Values) -> tuple[str, str] | None:
    if chart_of(values.platform_version) is None:
        return (f"unknown RKE2 release {values.platform_version}",
                f"write it as `rke2 --version` prints it; known: {known_releases()}")
    return None


def _newest_revision(release: Version) -> str | None:
    same = [r for r in CHARTS if parse_version(r) == release]
    return max(same, key=lambda r: int(r.rsplit("rke2r", 1)[1])) if same else None


def _with_globals(values: Mapping[str, Any], cluster_domain: str) -> dict[str, Any]:
    """What RKE2 adds to every chart it installs (rancher/rke2 pkg/bootstrap setChartValues)."""
    return rke2_chart.merged(values, {"global": {"clusterDomain": cluster_domain}})


def stock_corefile(release: Version, cluster_domain: str) -> str | None:
    """The Corefile the chart renders with its own values (newest rke2rN of that patch)."""
    name = _newest_revision(release)
    chart = chart_of(name) if name else None
    return rke2_chart.corefile(_with_globals(chart_values(chart), cluster_domain)) if chart else None


def stock_of(release: str, cluster_domain: str) -> str | None:
    """The Corefile the chart this very release pins renders with its own values."""
    chart = chart_of(release)
    return rke2_chart.corefile(_with_globals(chart_values(chart), cluster_domain)) if chart else None


def import_points(release: Version) -> tuple[ImportPoint, ...]:
    return ()  # the chart's Corefile imports nothing; our zones are servers of their own


def check(values: Values, data: Mapping[str, Any], at: At) -> list[Problem]:
    problems = keys_not_applicable(data, at, "RKE2", {
        "overrides": "the repo writes the whole default server; put zones under `zones:`",
        "autoscaling": "the chart runs a cluster-proportional-autoscaler: set `rke2.autoscaler` (min, max, …)",
        "alert": "the replica alert is for k3s"})
    nodelocal = values.rke2.nodelocal
    if nodelocal is not None and nodelocal.enabled:
        if values.upstream is not None:
            problems.append(at(["rke2", "nodelocal", "enabled"],
                               "node-local-dns forwards every name outside the cluster to the node's /etc/resolv.conf, "
                               "so the `upstream` forwards in CoreDNS would never be reached",
                               "drop `upstream:` and set the resolvers on the nodes, or disable nodelocal"))
        chart = chart_of(values.platform_version) or ""
        if values.zones and parse_version(chart) < Version(*EXTRA_CLUSTER_DOMAINS_FROM):
            problems.append(at(["rke2", "nodelocal", "enabled"],
                               f"chart {chart} of RKE2 {values.platform_version} has no nodelocal.extraClusterDomains: "
                               "node-local-dns would send the extra zones to the node's resolver, not to CoreDNS",
                               "upgrade to an RKE2 release with chart 1.46.201 or later (v1.33.13+rke2r2, v1.34.10, v1.35.7, v1.36.3), or disable nodelocal"))
    return problems


def _plugin(d: Directive) -> dict[str, Any]:
    """A parsed directive as the chart's plugin entry (name, parameters, configBlock)."""
    plugin: dict[str, Any] = {"name": d.name}
    if d.args:
        plugin["parameters"] = " ".join(quote(a) for a in d.args)
    if d.block:
        plugin["configBlock"] = "".join(c.render(0) for c in d.block).rstrip("\n")
    return plugin


def _forward_plugins(values: Values) -> list[dict[str, Any]]:
    """The forward pair's stanzas, from the template every platform uses, as chart plugin entries."""
    u = values.upstream
    assert u is not None
    text = render_macro("common/forward.j2", "forward_stanzas", to=list(u.primary), fallback=list(u.fallback),
                        fallback_on=list(u.fallback_on), policy=u.policy, options=list(u.options), indent="", step="    ")
    return [_plugin(d) for d in parse_directives(text, filename="forward stanzas")]


def _zone_servers(values: Values) -> list[dict[str, Any]]:
    """Each extra zone's server block (the shared template), as a chart server entry."""
    servers = []
    for zone in values.zones:
        text = render_macro("common/zone.server.j2", "zone_server", zone=zone, indent="    ", step="    ")
        (block,) = parse_corefile(text, filename=f"zone {zone.zone}").server_blocks
        servers.append({"zones": [{"zone": zone.zone}], "port": 53, "plugins": [_plugin(d) for d in block.directives]})
    return servers


def _default_server(values: Values, chart: str) -> dict[str, Any]:
    """The chart's default server restated, its resolv.conf forward replaced by the stanzas."""
    stock = dict(chart_values(chart)["servers"][0])
    plugins: list[dict[str, Any]] = []
    for plugin in stock["plugins"]:
        if plugin.get("name") == "forward" and values.upstream is not None:
            plugins += _forward_plugins(values)
        else:
            plugins.append(dict(plugin))
    return {**stock, "plugins": plugins}


def chart_values_for(values: Values) -> dict[str, Any]:
    """The valuesContent we render: servers restated, plus nodelocal/autoscaler when asked."""
    chart = str(chart_of(values.platform_version))
    out: dict[str, Any] = {}
    if values.upstream is not None or values.zones:
        out["servers"] = [_default_server(values, chart), *_zone_servers(values)]
    nodelocal = values.rke2.nodelocal
    if nodelocal is not None:
        out["nodelocal"] = {"enabled": nodelocal.enabled, "ipvs": nodelocal.ipvs}
        if nodelocal.enabled and values.zones:
            out["nodelocal"]["extraClusterDomains"] = [z.zone for z in values.zones]
    if values.rke2.autoscaler:
        out["autoscaler"] = dict(values.rke2.autoscaler)
    return out


def main_corefile(values: Values) -> str:
    """What the chart renders from its values with ours merged over them (as Helm merges)."""
    chart = str(chart_of(values.platform_version))
    merged = rke2_chart.merged(chart_values(chart), chart_values_for(values))
    return rke2_chart.corefile(_with_globals(merged, values.cluster_domain))


def manifests(values: Values) -> list[tuple[str, Obj]]:
    config: Obj = {
        "apiVersion": "helm.cattle.io/v1",
        "kind": "HelmChartConfig",
        "metadata": {"name": HELM_CHART_CONFIG.name, "namespace": HELM_CHART_CONFIG.namespace},
        "spec": {"valuesContent": yamlio.dump(chart_values_for(values))},
    }
    return [("rke2-coredns-helmchartconfig.yaml", config)]


NEWEST_CHART = max(set(CHARTS.values()), key=parse_version)


def corefile_of(values_content: str, release: str | None = None) -> str:
    """The Corefile the chart renders from a HelmChartConfig's valuesContent, for `lint` and
    `guard` (the chart of `release`, else the newest we vendor; cluster domain cluster.local).

    Raises:
        ValueError: valuesContent is not a YAML mapping, or its servers break the chart's block.
    """
    try:
        docs = yamlio.load_all_safe(values_content)
    except Exception as err:  # yaml.YAMLError and its kin: the text is the user's
        if yamlio.past_parser_limit(err):
            raise ValueError("valuesContent is nested too deeply to read (past libyaml's own limit)") from None
        raise ValueError(f"valuesContent is not valid YAML: {str(err).splitlines()[0]}") from None
    overrides = docs[0] if docs else {}
    if not isinstance(overrides, dict):
        raise ValueError("valuesContent is not a YAML mapping")
    chart = (chart_of(release) if release else None) or NEWEST_CHART
    return rke2_chart.corefile(_with_globals(rke2_chart.merged(chart_values(chart), overrides), "cluster.local"))


def documents(values: Values) -> list[tuple[str, str]]:
    return []
