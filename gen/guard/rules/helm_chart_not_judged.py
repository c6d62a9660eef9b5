"""A change to a Helm chart kept in this repository, which a HelmRelease renders: refused.

helm-controller renders a HelmRelease's chart and, on upgrade, deletes every object of the
release that the new chart no longer renders, ConfigMaps included. When the chart is a folder of
this repository (`spec.chart.spec.sourceRef` a GitRepository of it), a change to that folder
reaches the cluster through helm-controller, not through any Kustomization build, and the guard
does not render Helm charts: what the upgrade would delete is unknown, so the change fails
closed. A GitRepository that only Kustomizations of another repository use is another
repository's chart; one no Kustomization of the cluster uses may be this one (counted).
A chart named by `spec.chartRef` counts the same way when its content is this repository's
(gen/guard/flux/charts.py): an OCIRepository pushed from or mapped to a folder of it, a HelmChart
of a GitRepository chart folder, an ExternalArtifact copied from it; one from elsewhere (a
registry's chart, a HelmChart of a HelmRepository) is a remote chart, which no change here touches.

PASS: the change touches no file of a chart of this repository that a HelmRelease renders;
      or `--allow <namespace>_<name>_helm.toolkit.fluxcd.io_HelmRelease`.
FAIL: `charts/dns-extras/templates/coredns-custom.yaml` is deleted and HelmRelease
      kube-system/dns-extras renders `./charts/dns-extras` (by `spec.chart.spec`, or by a
      `spec.chartRef` OCIRepository that CI pushes from that folder) -> error at that file.
"""

from __future__ import annotations

from typing import Any, Iterator

from gen.finding import Finding, Severity
from gen.guard.change import Change
from gen.guard.flux.fluxspec import normalize_path
from gen.guard.flux.charts import RefChart
from gen.guard.model import HELM_GROUP, KsRef, ObjKey, Revision

ID = "helm-chart-not-judged"
SEVERITY = Severity.ERROR
_SHOWN = 3
Source = tuple[str, str, str]  # kind, namespace, name


def check(change: Change) -> Iterator[Finding]:
    if not change.changed:
        return
    # (cluster, HelmRelease) -> (its Kustomization, chart -> changed files); head first, then base:
    # a file the change deletes is in base's artifact only
    found: dict[tuple[str, ObjKey], tuple[KsRef, dict[str, set[str]]]] = {}
    for rev in (change.head, change.base):
        ours, theirs = _sources(rev)
        by_ref = change.ref_charts.get(rev.label, {})
        for ref in sorted(rev.nodes):
            node = rev.nodes[ref]
            if node.external or node.build.error is not None:
                continue
            for key, obj in sorted(node.build.objects.items()):
                if key.kind != "HelmRelease" or key.group != HELM_GROUP:
                    continue
                for via, files in _touched(change, key, _charts(obj, key, by_ref.get((ref.cluster, key), [])),
                                           ours.get(ref.cluster, set()), theirs.get(ref.cluster, set())):
                    found.setdefault((ref.cluster, key), (ref, {}))[1].setdefault(via, set()).update(files)
    rendered = change.helm.judged()  # releases the Helm layer rendered (or refused): judged there
    for (cluster, key), (ref, charts) in sorted(found.items()):
        if (cluster, key) in rendered:
            continue
        via, touched = next(iter(charts.items()))
        yield _finding(change, ref, key, via, sorted(touched))


def _charts(obj: dict[str, Any], key: ObjKey, by_ref: list[RefChart]) -> list[RefChart]:
    """The charts a HelmRelease may render: its `spec.chart.spec` of a GitRepository, or what its
    `spec.chartRef` names (gen/guard/flux/charts.py)."""
    chart = _chart(obj)
    if chart is None:
        return by_ref
    (kind, namespace, name), folder = chart
    source = (kind, namespace or key.namespace, name)
    return [RefChart(f"chart ./{folder} of GitRepository {source[1]}/{source[2]}", git=source, folder=folder)]


def _touched(change: Change, key: ObjKey, charts: list[RefChart], ours: set[Source],
             theirs: set[Source]) -> Iterator[tuple[str, list[str]]]:
    """(which chart, the changed files of it) for each chart of this repository the change touches."""
    for chart in charts:
        if chart.elsewhere:
            continue  # a remote chart: helm-controller fetches it, and this change does not touch it
        if chart.git is not None:
            if chart.git in theirs and chart.git not in ours:
                continue  # another repository's chart
            folder = chart.folder
            files = [f for f in sorted(change.changed) if not folder or f == folder or f.startswith(folder + "/")]
        else:
            files = sorted(change.changed & chart.files)
        if files:
            yield chart.via, files


def _finding(change: Change, ref: KsRef, key: ObjKey, via: str, files: list[str]) -> Finding:
    shown = ", ".join(files[:_SHOWN]) + (f" (+{len(files) - _SHOWN} more)" if len(files) > _SHOWN else "")
    return Finding(
        ID, SEVERITY, files[0], 1,
        f"{key.ref} renders {via}, and this change touches {len(files)} file{'s' if len(files) != 1 else ''} "
        f"of it ({shown}): helm-controller upgrades the release from it and deletes what it no longer renders, "
        "and the guard does not render Helm charts, so what would be deleted is unknown: refused" + change.where(ref),
        f"compare `helm template` of the chart at both revisions; if nothing in place is lost, allow it "
        f"with --allow {key.id}",
        details={"object": key.id, "cluster": ref.cluster, "kustomization": str(ref), "chart": via,
                 "files": ", ".join(files)})


def _chart(obj: dict[str, Any]) -> tuple[Source, str] | None:
    """(the chart's GitRepository, its folder in the artifact) for a chart kept in git."""
    spec = obj.get("spec")
    chart = ((spec.get("chart") or {}) if isinstance(spec, dict) else {}).get("spec")
    if not isinstance(chart, dict):
        return None
    ref = chart.get("sourceRef")
    if not isinstance(ref, dict) or ref.get("kind") != "GitRepository" or not isinstance(chart.get("chart"), str):
        return None
    return ("GitRepository", str(ref.get("namespace") or ""), str(ref.get("name") or "")), normalize_path(chart["chart"])


def _sources(rev: Revision) -> tuple[dict[str, set[Source]], dict[str, set[Source]]]:
    """Per cluster: the sources its judged Kustomizations read as this repository, and the
    sources of those judged to be another repository's."""
    ours: dict[str, set[Source]] = {}
    theirs: dict[str, set[Source]] = {}
    for ref, node in rev.nodes.items():
        (theirs if node.external else ours).setdefault(ref.cluster, set()).add(node.ks.source)
    return ours, theirs
