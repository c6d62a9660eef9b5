"""A HelmRelease kept in git whose release target changes: helm-controller uninstalls the old release.

helm-controller compares a HelmRelease with the release it last made (`ReleaseTargetChanged` in
fluxcd/helm-controller internal/action): when the storage namespace, the release namespace, the
release name or the chart's name differ, it runs `helm uninstall` of the old release, deleting
every object of it (its ConfigMaps included), and then installs the new one. The HelmRelease
object itself stays, so no prune rule sees it. What sets each (its api/v2 `Get…` methods):
release name `spec.releaseName`, else `<spec.targetNamespace>-<name>` when a targetNamespace is
set, else the name; release namespace `spec.targetNamespace`, else the object's namespace;
storage namespace `spec.storageNamespace`, else the object's namespace. The chart's name is its
Chart.yaml's, as helm-controller loads the chart: read from the chart itself when the Helm layer
rendered the release at both revisions (gen/guard/helm/), else known only where the cluster's
own objects say it: a chart of an HTTP HelmRepository the cluster applies (by `spec.chart.spec` or
a `spec.chartRef` HelmChart), whose index names each chart as its Chart.yaml does (a chart's name
holds no `/`, so the last segment of `chart`). A chart of an OCI registry, git, a Bucket, an
ExternalArtifact or a source no build applies has a name only its own files say (an OCI path is
not one: home-ops charts mirrors copy chart `volsync` to `…/volsync-perfectra1n`). Such a chart
whose source stays the same at both revisions is no change of target; when its source moves (the
HTTP-to-OCI mirror migration, another folder, source or url, a GitRepository's or Bucket's included, an OCIRepository's layerSelector, an ExternalArtifact's ArtifactGenerator copy list or sources), the guard cannot tell whether the
name changes, so the change is refused as not judged, with the fix: the head's
`spec.upgrade.chartNameChangeStrategy: InPlaceUpdate`, under which a chart's name change is no
uninstall (the controller reads it from the object it reconciles). Release names are compared as helm-controller
stores them: `release.ShortenName` cuts a name longer than 53 characters to its first 40, `-` and
the first 12 hex digits of its SHA-256, so a `releaseName` written as that short form is no change.
A HelmRelease kustomize-controller does not update (`reconcile: disabled` or `ssa: Ignore` at
base or head, `ssa: IfNotPresent` at head) passes: the new spec never reaches helm-controller.
`prune: disabled` stops deletion only, so a HelmRelease carrying it is judged. A HelmRelease
suspended at head is not reconciled until resumed: a warning (one suspended at
base and resumed at head is reconciled now: an error).

PASS: the HelmRelease keeps its release name, namespaces and chart; or it is new at head; or its
chart moves to a new source with `spec.upgrade.chartNameChangeStrategy: InPlaceUpdate` at head.
FAIL: head adds `targetNamespace: media` to HelmRelease sonarr-4k (release `sonarr-4k` becomes
`media-sonarr-4k`) -> error at that HelmRelease; head replaces chart `sonarr` of a HelmRepository
by a `chartRef` OCIRepository -> error (the chart's name at head is not known here).
"""

from __future__ import annotations

import json
from typing import Any, Iterator, NamedTuple

from gen.finding import Finding, Severity
from gen.guard.change import Change, ClusterObjects
from gen.guard.flux.charts import SOURCE_GROUP, chart_ref
from gen.guard.flux.fluxspec import normalize_path
from gen.guard.helm.names import release_name, release_namespace
from gen.guard.model import HELM_GROUP, KsRef, ObjKey, apply_skipped

GENERATOR_GROUP = "source.extensions.fluxcd.io"
ID = "helmrelease-retargeted"
SEVERITY = Severity.ERROR

# the spec keys that set each part of the target, in the order a finding points at them
_FIELDS = {"release name": ("releaseName", "targetNamespace"), "release namespace": ("targetNamespace",),
           "storage namespace": ("storageNamespace",), "chart": ("chartRef", "chart")}


class Chart(NamedTuple):
    """A HelmRelease's chart as far as this cluster's objects say."""

    name: str | None  # its Chart.yaml's name, when known here
    artifact: str  # what source-controller fetches it from: the same artifact is the same chart
    said: str  # where it comes from, in words


def target(key: ObjKey, obj: dict[str, Any], chart: Chart) -> dict[str, str]:
    """What helm-controller compares with the release it last made (ReleaseTargetChanged); the
    chart's name where it is known here (`chart`: chart_of the HelmRelease)."""
    spec = obj.get("spec") or {}
    out = {"release name": release_name(key, obj), "release namespace": release_namespace(key, obj),
           "storage namespace": str(spec.get("storageNamespace") or "") or key.namespace}
    if chart.name is not None:
        out["chart"] = chart.name
    return out


def chart_of(key: ObjKey, obj: dict[str, Any], objects: ClusterObjects) -> Chart:
    """A HelmRelease's chart: by `spec.chart.spec`, or by the source its `spec.chartRef` names."""
    spec: dict[str, Any] = obj["spec"] if isinstance(obj.get("spec"), dict) else {}
    found = chart_ref(obj)
    if found is None:
        template = (spec.get("chart") or {}).get("spec") if isinstance(spec.get("chart"), dict) else None
        return _template_chart(template if isinstance(template, dict) else {}, key.namespace, objects)
    kind, namespace, name = found
    where = f"chartRef {kind} {namespace or key.namespace}/{name}"
    if kind == "ExternalArtifact":
        made = _generated(namespace or key.namespace, name, objects)
        return Chart(None, f"{where} {made}" if made else where,
                     f"{where} (made by {made})" if made else where + " (not applied by this cluster's builds)")
    source = objects.get(ObjKey(namespace or key.namespace, name, SOURCE_GROUP, kind))
    if source is None:
        return Chart(None, where, where + " (not applied by this cluster's builds)")
    source_spec: dict[str, Any] = source[1]["spec"] if isinstance(source[1].get("spec"), dict) else {}
    if kind == "HelmChart":
        chart = _template_chart(source_spec, namespace or key.namespace, objects, local=True)
        return chart._replace(said=f"{where} ({chart.said})")
    url = str(source_spec.get("url") or "").rstrip("/")
    if kind == "OCIRepository" and url:  # the artifact at url; its name is in its Chart.yaml only
        layer = source_spec.get("layerSelector")  # another layer of it may be another chart
        return Chart(None, f"{url} {json.dumps(layer, sort_keys=True)}" if layer else url, f"{where} ({url})")
    return Chart(None, where, where)


def _template_chart(spec: dict[str, Any], namespace: str, objects: ClusterObjects, local: bool = False) -> Chart:
    """A chart template's (`spec.chart.spec`, a HelmChart's spec) chart; its name when it is an HTTP
    HelmRepository's (the index's key: a chart's name holds no `/`). A HelmChart's (`local`)
    sourceRef has no namespace (source-controller's LocalHelmChartSourceReference: one written is
    dropped by the API server): its source is in the HelmChart's namespace."""
    ref: dict[str, Any] = spec["sourceRef"] if isinstance(spec.get("sourceRef"), dict) else {}
    kind, chart = str(ref.get("kind") or ""), str(spec.get("chart") or "")
    ref_ns = namespace if local else str(ref.get("namespace") or namespace)
    source = f"{kind or 'a source'} {ref_ns}/{ref.get('name') or ''}"
    applied = objects.get(ObjKey(ref_ns, str(ref.get("name") or ""), SOURCE_GROUP, kind))
    if kind != "HelmRepository" or not chart:
        where = f"chart ./{normalize_path(chart)} of {source}" if chart else f"a chart of {source}"
        fetched = _fetched_from(kind, applied[1] if applied else None)
        return Chart(None, f"{where} {fetched}", f"{where} {fetched}" if applied else where)
    repo: dict[str, Any] = applied[1]["spec"] if applied and isinstance(applied[1].get("spec"), dict) else {}
    url = str(repo.get("url") or "").rstrip("/")
    if not url:
        where = f"chart {chart} of {source} (not applied by this cluster's builds)"
        return Chart(None, where, where)
    said = f"chart {chart} of {source} ({url})"
    if url.startswith("oci://") or repo.get("type") == "oci":  # source-controller pulls <url>/<chart>
        return Chart(None, f"{url}/{chart.strip('/')}", said)
    return Chart(chart.rstrip("/").rsplit("/", 1)[-1], f"{url}#{chart}", said)


def _generated(namespace: str, name: str, objects: ClusterObjects) -> str:
    """What makes ExternalArtifact `namespace/name` when an ArtifactGenerator the cluster applies
    does (its output's copy list and its sources, each where it is fetched from), "" when none:
    another copy list or source is another artifact, whose chart may have another name."""
    out = []
    generators = sorted((key, obj) for key, (_, obj) in objects.items()
                        if key.kind == "ArtifactGenerator" and key.group == GENERATOR_GROUP and key.namespace == namespace)
    for key, obj in generators:
        spec: dict[str, Any] = obj["spec"] if isinstance(obj.get("spec"), dict) else {}
        arts: list[Any] = spec["artifacts"] if isinstance(spec.get("artifacts"), list) else []
        listed: list[Any] = spec["sources"] if isinstance(spec.get("sources"), list) else []
        for art in (a for a in arts if isinstance(a, dict) and a.get("name") == name):
            sources = []
            for src in listed:
                if isinstance(src, dict):
                    kind, ns = str(src.get("kind") or ""), str(src.get("namespace") or namespace)
                    applied = objects.get(ObjKey(ns, str(src.get("name") or ""), SOURCE_GROUP, kind))
                    sources.append(f"@{src.get('alias') or ''} {kind} {ns}/{src.get('name') or ''} "
                                   f"{_fetched_from(kind, applied[1] if applied else None)}")
            out.append(f"ArtifactGenerator {key.namespace}/{key.name}: {json.dumps(art.get('copy'), sort_keys=True)} "
                       f"of {', '.join(sources)}")
    return "; ".join(out)


def _fetched_from(kind: str, source: dict[str, Any] | None) -> str:
    """Where source-controller fetches a git or Bucket source's artifact, as the cluster applies it
    (its url; a Bucket's endpoint, bucket and prefix): another repository or bucket holds another
    chart at the same folder. Its revision (a branch, tag or commit) is not in it: a new revision of
    the same source is the same chart, as a new version of a registry's is."""
    if source is None:
        return "(not applied by this cluster's builds)"
    spec: dict[str, Any] = source["spec"] if isinstance(source.get("spec"), dict) else {}
    if kind == "OCIRepository":
        return f"({str(spec.get('url') or '').rstrip('/')} {json.dumps(spec.get('layerSelector'), sort_keys=True)})"
    if kind == "Bucket":
        parts = [str(spec.get(k) or "") for k in ("provider", "endpoint", "bucketName", "prefix")]
        return "(bucket " + " ".join(parts) + ")"
    return f"({str(spec.get('url') or '').rstrip('/')})"


def check(change: Change) -> Iterator[Finding]:
    base_views = change.clusters("base")
    seen: set[tuple[str, ObjKey]] = set()
    renders = {(u.cluster, u.key): u for u in change.helm.upgrades}
    for root, objects in sorted(change.clusters("head").items()):
        before = base_views.get(root, {})
        for key, (ks, obj) in sorted(objects.items()):
            if key.kind != "HelmRelease" or key.group != HELM_GROUP or key not in before:
                continue
            _, old = before[key]
            if (root.cluster, key) in seen or apply_skipped(old, obj):
                continue  # kustomize-controller does not apply the new spec (prune: disabled does not stop that)
            came, comes = chart_of(key, old, before), chart_of(key, obj, objects)
            rendered = renders.get((root.cluster, key))
            if rendered is not None:  # the Helm layer loaded both charts: their Chart.yaml names are known
                came, comes = came._replace(name=rendered.base.chart), comes._replace(name=rendered.head.chart)
            was, now = target(key, old, came), target(key, obj, comes)
            changed = [k for k in was if k in now and was[k] != now[k]]
            in_place = ((obj.get("spec") or {}).get("upgrade") or {}).get("chartNameChangeStrategy") == "InPlaceUpdate"
            if in_place:
                changed = [k for k in changed if k != "chart"]  # helm-controller upgrades the release in place
            unknown = None if in_place or "chart" in was and "chart" in now else _unjudged_chart(came, comes)
            if not changed and unknown is None:
                continue
            seen.add((root.cluster, key))
            yield _finding(change, root.cluster, ks, key, obj, was, now, changed, unknown)


def _unjudged_chart(came: Chart, comes: Chart) -> str | None:
    """Why a chart whose name is not known at base or head may have changed it (it comes from
    another artifact), or None when it comes from the same artifact at both revisions."""
    if came.artifact == comes.artifact:
        return None
    sides = [label for label, chart in (("base", came), ("head", comes)) if chart.name is None]
    return (f"its chart moves ({came.said} -> {comes.said}) and the chart's name at {' and '.join(sides)} is in "
            "the chart's own files, which the guard does not read")


def _finding(change: Change, cluster: str, ks: KsRef, key: ObjKey, obj: dict[str, Any], was: dict[str, str],
             now: dict[str, str], changed: list[str], unknown: str | None) -> Finding:
    spec = obj.get("spec") or {}
    suspended = spec.get("suspend") is True  # the head's: helm-controller reconciles it (or not) as applied
    field = next((f"spec.{f}" for k in changed + (["chart"] if unknown else []) for f in _FIELDS[k] if f in spec), "spec")
    file, line = change.locator.invariant_anchor(ks, key, field)
    release = f"{was['release namespace']}/{was['release name']}"
    will = "will, once it is resumed (it is suspended), uninstall" if suspended else "uninstalls"
    if changed:
        what = "; ".join(f"{k} {was[k]} -> {now[k]}" for k in changed)
        message = (f"{key.ref} changes its release target ({what}): helm-controller {will} release {release} "
                   "with every object in it (ConfigMaps included) before it installs the new one")
        hint = (f"keep the release's {', '.join(changed)} as at base (set spec.releaseName/targetNamespace/"
                f"storageNamespace to the old values); to move the release deliberately, allow {key.id} once "
                "what it holds can be deleted and installed again")
        fate = "uninstalled"
    else:
        what = str(unknown)
        message = (f"{key.ref}: {what}; when it differs from the release's, helm-controller {will} release "
                   f"{release} with every object in it (ConfigMaps included) before it installs the new one: not "
                   "judged, refused")
        hint = ("set spec.upgrade.chartNameChangeStrategy: InPlaceUpdate on the HelmRelease (helm-controller then "
                "upgrades the release in place whatever the chart's name), or compare the names (`helm show chart`"
                f" of both) and, when they are the same, allow {key.id}")
        fate = "not-judged"
    return Finding(
        ID, Severity.WARNING if suspended else SEVERITY, file or ".", line, message + change.where(ks), hint,
        details={"object": key.id, "kustomization": str(ks), "cluster": cluster, "fate": fate, "cause": f"{key.ref}: {what}"},
    )
