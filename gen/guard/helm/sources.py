"""Where a HelmRelease's chart comes from, as source-controller would fetch it, mirrors applied.

helm-controller renders the artifact source-controller made of the chart (fluxcd/source-controller
API, gen/data/SOURCES.md "Flux CRD schemas"):
- `spec.chart.spec` (a HelmChart template): `sourceRef` a HelmRepository (its `spec.url`; `spec.type:
  oci` an OCI registry, `spec.insecure` plain HTTP), a GitRepository (a folder of its artifact) or a
  Bucket; `chart` the chart's name or folder; `version` a version or semver constraint ("*" when unset);
- `spec.chartRef`: an OCIRepository (`spec.url`, `spec.ref.digest` / `semver` / `tag`, "latest" when
  unset), a HelmChart (its own spec, as above) or an ExternalArtifact.
Only sources the cluster's own builds apply are believed: a HelmRepository made out of band is not
this repository's to describe. A mirror (`guard.charts` in .coredns-gen.yaml, `--chart-mirror`)
stands in for an origin: `oci+http://` names a registry spoken to in plain HTTP (a local one),
`file:FOLDER` a folder laid out as a chart repository (index.yaml and its archives).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

from gen.guard.flux.fluxspec import normalize_path
from gen.guard.model import ObjKey

SOURCE_GROUP = "source.toolkit.fluxcd.io"
Kind = Literal["http", "oci", "git", "none"]
Objects = Mapping[ObjKey, tuple[Any, dict[str, Any]]]  # one cluster's objects: key -> (Kustomization, object)


# spec.url patterns of Flux's API (source-controller HelmRepositorySpec `^(http|https|oci)://.*$`;
# OCIRepository gen/data/flux/ocirepository-source-v1.json `^oci://.*$`): any other url, a `file:`
# path of the machine the guard runs on included, is refused by the API server and never fetched.
URL_SCHEMES = {"HelmRepository": ("http://", "https://", "oci://"), "OCIRepository": ("oci://",)}


@dataclass(frozen=True)
class ChartLocation:
    """One chart as its source says it; `why` says why a `none` cannot be had."""

    kind: Kind
    url: str = ""  # the repository (http), the registry path (oci: without the chart for a HelmRepository)
    name: str = ""  # the chart's name in that repository ("" for an OCIRepository: url names it)
    version: str = ""  # a version or constraint (http, oci)
    tag: str = ""  # an OCIRepository's ref.tag
    digest: str = ""  # an OCIRepository's ref.digest
    plain_http: bool = False
    git: tuple[str, str, str] = ("", "", "")  # git: the GitRepository (kind, namespace, name)
    folder: str = ""  # git: the chart's folder in its artifact
    why: str = ""
    source: dict[str, Any] | None = None  # the source object's spec, an input of the render
    mirror_of: str = ""  # the origin's url, when a mirror stands in for it (the cache keeps charts by origin)

    def origin(self) -> str:
        """The chart as a reviewer would name it."""
        if self.mirror_of:
            return f"{replace(self, url=self.mirror_of, mirror_of='').origin()} (from mirror {self.url})"
        if self.kind == "git":
            return f"./{self.folder} of GitRepository {self.git[1]}/{self.git[2]}"
        at = self.digest or self.tag or self.version or "latest"
        return f"{self.url}{'/' + self.name if self.kind == 'oci' and self.name else ''}" \
               f"{' chart ' + self.name if self.kind == 'http' else ''} {at}".strip()


def locate(release: dict[str, Any], key: ObjKey, objects: Objects) -> ChartLocation:
    """Where `release` (a HelmRelease of the cluster whose objects are `objects`) takes its chart."""
    spec = release.get("spec") if isinstance(release.get("spec"), dict) else {}
    assert isinstance(spec, dict)
    ref = spec.get("chartRef")
    if isinstance(ref, dict):
        kind, name = str(ref.get("kind") or ""), str(ref.get("name") or "")
        namespace = str(ref.get("namespace") or key.namespace)
        source = _source(objects, kind, namespace, name)
        if source is None:
            return ChartLocation("none", why=f"its chartRef {kind} {namespace}/{name} is not applied by this cluster's builds")
        if kind == "OCIRepository":
            return _oci_repository(source, namespace, name)
        if kind == "HelmChart":
            inner = source.get("spec") if isinstance(source.get("spec"), dict) else {}
            return _template(inner or {}, namespace, objects, f"HelmChart {namespace}/{name}")
        return ChartLocation("none", why=f"its chart is an {kind}'s artifact, which the guard does not lay out")
    chart = (spec.get("chart") or {}).get("spec") if isinstance(spec.get("chart"), dict) else None
    if not isinstance(chart, dict):
        return ChartLocation("none", why="it names no chart (spec.chart.spec or spec.chartRef)")
    return _template(chart, key.namespace, objects, "")


def _template(chart: dict[str, Any], namespace: str, objects: Objects, via: str) -> ChartLocation:
    src = chart.get("sourceRef") if isinstance(chart.get("sourceRef"), dict) else {}
    assert isinstance(src, dict)
    kind, name = str(src.get("kind") or ""), str(src.get("name") or "")
    # a HelmChart's sourceRef has no namespace field: the API drops one written (its own namespace)
    src_ns = namespace if via else str(src.get("namespace") or namespace)
    wanted = str(chart.get("chart") or "")
    version = str(chart.get("version") or "*")
    if chart.get("valuesFiles") or chart.get("valuesFile"):
        # source-controller packages the chart with those files merged as its values.yaml
        return ChartLocation("none", why="its chart takes other values files (valuesFiles), which the guard "
                                         "does not merge into the chart")
    if kind == "GitRepository":
        return ChartLocation("git", git=(kind, src_ns, name), folder=normalize_path(wanted), version=version)
    source = _source(objects, kind, src_ns, name)
    if source is None:
        return ChartLocation("none", why=f"{kind} {src_ns}/{name} is not applied by this cluster's builds")
    spec = source.get("spec") if isinstance(source.get("spec"), dict) else {}
    assert isinstance(spec, dict)
    if kind != "HelmRepository":
        return ChartLocation("none", why=f"its chart comes from a {kind}, which the guard does not fetch")
    url = str(spec.get("url") or "")
    if not url.startswith(URL_SCHEMES["HelmRepository"]):
        return _refused_url("HelmRepository", src_ns, name, url)
    oci = spec.get("type") == "oci" or url.startswith("oci://")
    return ChartLocation("oci" if oci else "http", url=url.rstrip("/"), name=wanted, version=version,
                         plain_http=bool(spec.get("insecure")) and oci, source=spec)


def _oci_repository(source: dict[str, Any], namespace: str, name: str) -> ChartLocation:
    spec = source.get("spec") if isinstance(source.get("spec"), dict) else {}
    assert isinstance(spec, dict)
    ref = spec.get("ref") if isinstance(spec.get("ref"), dict) else {}
    assert isinstance(ref, dict)
    url = str(spec.get("url") or "").rstrip("/")
    if not url.startswith(URL_SCHEMES["OCIRepository"]):
        return _refused_url("OCIRepository", namespace, name, url)
    if ref.get("digest"):
        return ChartLocation("oci", url=url, digest=str(ref["digest"]), plain_http=bool(spec.get("insecure")), source=spec)
    if ref.get("semver"):
        return ChartLocation("oci", url=url, version=str(ref["semver"]), plain_http=bool(spec.get("insecure")), source=spec)
    return ChartLocation("oci", url=url, tag=str(ref.get("tag") or "latest"), plain_http=bool(spec.get("insecure")),
                         source=spec)


def _source(objects: Objects, kind: str, namespace: str, name: str) -> dict[str, Any] | None:
    found = objects.get(ObjKey(namespace, name, SOURCE_GROUP, kind))
    return found[1] if found is not None else None


def mirrored(location: ChartLocation, mirrors: Mapping[str, str]) -> ChartLocation:
    """`location` fetched from the mirror standing in for its origin (the longest matching prefix of
    the origin's url); itself when none does."""
    if location.kind not in ("http", "oci"):
        return location
    best = ""
    for origin in mirrors:
        stem = origin.rstrip("/")
        if (location.url == stem or location.url.startswith(stem + "/")) and len(stem) > len(best):
            best = stem
    if not best:
        return location
    target = mirrors[best].rstrip("/") + location.url[len(best):]
    location = replace(location, mirror_of=location.url)
    if target.startswith("oci+http://"):
        return _replace(location, kind="oci", url="oci://" + target[len("oci+http://"):], plain_http=True)
    if target.startswith("oci://"):
        return _replace(location, kind="oci", url=target, plain_http=False)
    if target.startswith("file:"):
        return _replace(location, kind="http", url="file://" + target[len("file:"):].removeprefix("//"))
    return _replace(location, kind="http", url=target)


def _refused_url(kind: str, namespace: str, name: str, url: str) -> ChartLocation:
    return ChartLocation("none", why=f"{kind} {namespace}/{name} has url {url!r}, which Flux's API refuses (spec.url must "
                                     f"start with {' or '.join(URL_SCHEMES[kind])}): no chart is ever fetched from it")


def _replace(location: ChartLocation, **changes: Any) -> ChartLocation:
    moved = replace(location, **changes)
    if moved.kind == "http" and not moved.name:  # an OCIRepository's url names its chart last
        url, _, name = moved.url.rpartition("/")
        moved = replace(moved, url=url, name=name, version=moved.version or moved.tag or "*", tag="")
    return moved
