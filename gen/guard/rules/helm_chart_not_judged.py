"""A change to a Helm chart kept in this repository, which a HelmRelease renders: refused.

helm-controller renders a HelmRelease's chart and, on upgrade, deletes every object of the
release that the new chart no longer renders, ConfigMaps included. When the chart is a folder of
this repository (`spec.chart.spec.sourceRef` a GitRepository of it), a change to that folder
reaches the cluster through helm-controller, not through any Kustomization build, and the guard
does not render Helm charts: what the upgrade would delete is unknown, so the change fails
closed. A GitRepository that only Kustomizations of another repository use is another
repository's chart; one no Kustomization of the cluster uses may be this one (counted).

PASS: the change touches no file under the chart folder of a HelmRelease's GitRepository chart;
      or `--allow <namespace>_<name>_helm.toolkit.fluxcd.io_HelmRelease`.
FAIL: `charts/dns-extras/templates/coredns-custom.yaml` is deleted and HelmRelease
      kube-system/dns-extras renders `./charts/dns-extras` -> error at that file.
"""

from __future__ import annotations

from typing import Any, Iterator

from gen.finding import Finding, Severity
from gen.guard.change import Change
from gen.guard.diff import HELM_GROUP
from gen.guard.flux.fluxspec import normalize_path
from gen.guard.model import ObjKey, Revision

ID = "helm-chart-not-judged"
SEVERITY = Severity.ERROR
_SHOWN = 3
Source = tuple[str, str, str]  # kind, namespace, name


def check(change: Change) -> Iterator[Finding]:
    if not change.changed:
        return
    done: set[tuple[str, ObjKey]] = set()
    for rev in (change.head, change.base):
        ours, theirs = _sources(rev)
        for ref in sorted(rev.nodes):
            node = rev.nodes[ref]
            if node.external or node.build.error is not None:
                continue
            for key, obj in sorted(node.build.objects.items()):
                if key.kind != "HelmRelease" or key.group != HELM_GROUP or (ref.cluster, key) in done:
                    continue
                chart = _chart(obj)
                if chart is None:
                    continue
                source, folder = chart[0], chart[1]
                source = (source[0], source[1] or key.namespace, source[2])
                if source in theirs.get(ref.cluster, set()) and source not in ours.get(ref.cluster, set()):
                    continue  # another repository's chart
                files = [f for f in sorted(change.changed) if not folder or f == folder or f.startswith(folder + "/")]
                if not files:
                    continue
                done.add((ref.cluster, key))
                shown = ", ".join(files[:_SHOWN]) + (f" (+{len(files) - _SHOWN} more)" if len(files) > _SHOWN else "")
                yield Finding(
                    ID, SEVERITY, files[0], 1,
                    f"{key.ref} renders chart ./{folder} of GitRepository {source[1]}/{source[2]}, and this change "
                    f"touches {len(files)} file{'s' if len(files) != 1 else ''} of it ({shown}): helm-controller "
                    "upgrades the release from it and deletes what it no longer renders, and the guard does not "
                    "render Helm charts, so what would be deleted is unknown: refused" + change.where(ref),
                    f"compare `helm template ./{folder}` at both revisions; if nothing in place is lost, allow it "
                    f"with --allow {key.id}",
                    details={"object": key.id, "cluster": ref.cluster, "kustomization": str(ref),
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
