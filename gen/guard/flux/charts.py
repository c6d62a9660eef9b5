"""Where a HelmRelease's chart comes from when `spec.chartRef` names it, in this repository's terms.

helm-controller's HelmRelease v2 names its chart either by a template (`spec.chart.spec`, read by
rules/helm_chart_not_judged.py itself) or by `spec.chartRef` (helm.toolkit.fluxcd.io_helmreleases
CRD, fluxcd/helm-controller config/crd/bases: `kind` OCIRepository | HelmChart | ExternalArtifact,
`name`, `namespace` defaulting to the HelmRelease's). The chart is then that source's artifact:
- an OCIRepository: this repository's when it is one of its folders (`guard.sources`, or pushed by
  its CI: gen/guard/flux/sources.py), the chart being that folder; else another repository's;
- a HelmChart: its own `spec.sourceRef` and `spec.chart`, a folder of a GitRepository (judged as
  a `spec.chart.spec` GitRepository chart is) or a HelmRepository/Bucket chart (remote);
- an ExternalArtifact: the files its ArtifactGenerator copies from sources of this repository
  (even beside files of another repository's source: those of this one are in the chart).
Sources are decided by sources.py, exactly as for a Kustomization's; only the answer differs:
a chart of unknown origin is a remote chart (helm-controller fetches it), not a mirror to judge.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, get_args

from gen.guard.flux.fluxspec import normalize_path
from gen.guard.flux.knowledge import RepoValues, gather
from gen.guard.flux.sources import SourceRef, Sources
from gen.guard.model import HELM_GROUP, ObjKey, Revision

RefKind = Literal["OCIRepository", "HelmChart", "ExternalArtifact"]
SOURCE_GROUP = "source.toolkit.fluxcd.io"


@dataclass(frozen=True)
class RefChart:
    """One chart a HelmRelease's `spec.chartRef` may render, and which files of this repository it is."""

    via: str  # "OCIRepository flux-system/dns-chart", "HelmChart flux-system/dns (GitRepository ...)"
    git: SourceRef | None = None  # a HelmChart of a GitRepository: that source, judged like spec.chart's
    folder: str = ""  # ... and the chart's folder in its artifact
    files: frozenset[str] = frozenset()  # an artifact made of this repository: the repository files in it
    elsewhere: str = ""  # why its content is not this repository's ("" when it is, or may be)


def chart_ref(obj: dict[str, Any]) -> tuple[RefKind, str, str] | None:
    """(kind, namespace as written, name) of a HelmRelease's `spec.chartRef`, when it has one."""
    spec = obj.get("spec")
    ref = spec.get("chartRef") if isinstance(spec, dict) else None
    if not isinstance(ref, dict):
        return None
    kind = ref.get("kind")
    for known in get_args(RefKind):
        if kind == known:
            return known, str(ref.get("namespace") or ""), str(ref.get("name") or "")
    return None


def ref_charts(revision: Revision, sources: Sources, repo: RepoValues) -> dict[tuple[str, ObjKey], list[RefChart]]:
    """(cluster, HelmRelease) -> the charts its `spec.chartRef` may render, for every HelmRelease
    a judged build of `revision` applies with one."""
    releases = [(ref.cluster, key, obj) for ref, node in sorted(revision.nodes.items())
                if not node.external and node.build.error is None
                for key, obj in sorted(node.build.objects.items())
                if key.kind == "HelmRelease" and key.group == HELM_GROUP and chart_ref(obj) is not None]
    if not releases:
        return {}
    knowledge = gather(revision, [])
    roots = {root.cluster: revision.nodes[root].ks.source for root in revision.roots if root in revision.nodes}
    out: dict[tuple[str, ObjKey], list[RefChart]] = {}
    for cluster, key, obj in releases:
        found = chart_ref(obj)
        assert found is not None
        kind, namespace, name = found
        source: SourceRef = (kind, namespace or key.namespace, name)
        known = knowledge[cluster].sources if cluster in knowledge else {}
        root = roots.get(cluster, source)
        via = f"{kind} {source[1]}/{name}"
        if kind == "HelmChart":
            out[(cluster, key)] = _helm_charts(revision, cluster, source, repo)
            continue
        if kind == "ExternalArtifact":  # any file copied from here, even beside another repository's
            files = sources.external_files(source, root, known)
            out[(cluster, key)] = [RefChart(via, files=files) if files else
                                   RefChart(via, elsewhere=f"{via} holds no file of this repository")]
            continue
        got = sources.deliver(source, root, known)
        if got.view is None:
            out[(cluster, key)] = [RefChart(via, elsewhere=got.reason)]
            continue
        view = sources.view(got.view)
        out[(cluster, key)] = [RefChart(via, files=frozenset(view.repo_path(p) for p in view.blobs))]
    return out


def _helm_charts(revision: Revision, cluster: str, ref: SourceRef, repo: RepoValues) -> list[RefChart]:
    """The HelmChart objects `ref` may be: the one the cluster's builds apply, else those this
    repository's files write (each may be it); one made out of band is another repository's."""
    _, namespace, name = ref
    via = f"HelmChart {namespace}/{name}"
    applied = [obj for node_ref, node in sorted(revision.nodes.items())
               if node_ref.cluster == cluster and node.build.error is None
               for key, obj in node.build.objects.items()
               if (key.kind, key.group, key.namespace, key.name) == ("HelmChart", SOURCE_GROUP, namespace, name)]
    written = [d for d in repo.docs(("HelmChart", namespace, name))
               if str(d.get("apiVersion") or "").rsplit("/", 1)[0] == SOURCE_GROUP]
    found = applied[:1] or written
    if not found:
        return [RefChart(via, elsewhere=f"{via} is not in this repository (made out of band)")]
    out = []
    for obj in found:
        spec: dict[str, Any] = obj["spec"] if isinstance(obj.get("spec"), dict) else {}
        src: dict[str, Any] = spec["sourceRef"] if isinstance(spec.get("sourceRef"), dict) else {}
        kind = str(src.get("kind") or "")
        if kind != "GitRepository" or not isinstance(spec.get("chart"), str):
            out.append(RefChart(via, elsewhere=f"{via} reads chart {spec.get('chart')!r} of {kind or 'an unnamed source'} "
                                               f"{src.get('name', '')}"))
            continue
        git = ("GitRepository", str(src.get("namespace") or namespace), str(src.get("name") or ""))
        out.append(RefChart(f"{via} (chart ./{normalize_path(spec['chart'])} of GitRepository {git[1]}/{git[2]})",
                            git=git, folder=normalize_path(spec["chart"])))
    return out
