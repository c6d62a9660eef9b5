"""Read Flux Kustomization objects and reproduce what kustomize-controller adds to a build.

kustomize-controller does not build `spec.path` verbatim: it generates a kustomization.yaml
where the path has none, applies `spec.targetNamespace`, `patches`, `images`, `components`,
`namePrefix`/`nameSuffix`, then substitutes `spec.postBuild.substitute` variables in every object
not marked `kustomize.toolkit.fluxcd.io/substitute: disabled`. We express the first part as a
wrapper kustomization around the path (kustomize itself does the work); the substitution is
gen/guard/flux/substitution.py.
"""

from __future__ import annotations

import json
import posixpath
from typing import Any

from gen.guard.model import FLUX_GROUP, FLUX_VERSIONS, FluxKs, KsRef
from gen.guard.repo.revision import Tree, flux_scan

_TRANSFORM_KEYS = ("patches", "images", "components", "namePrefix", "nameSuffix")


def is_flux_kustomization(obj: Any) -> bool:
    return (
        isinstance(obj, dict)
        and obj.get("kind") == "Kustomization"
        and str(obj.get("apiVersion", "")).rsplit("/", 1)[0] == FLUX_GROUP
        and str(obj.get("apiVersion", "")).rsplit("/", 1)[-1] in FLUX_VERSIONS
    )


def normalize_path(raw: Any) -> str:
    text = str(raw or "").strip()
    norm = posixpath.normpath("/" + text).lstrip("/")  # Flux joins under the source root
    return "" if norm == "." else norm


def parse_ks(obj: dict[str, Any], default_namespace: str = "default", cluster: str = "") -> FluxKs:
    meta = obj.get("metadata") or {}
    spec = obj.get("spec") or {}
    namespace = str(meta.get("namespace") or default_namespace)
    source = spec.get("sourceRef") or {}
    post = spec.get("postBuild")
    substitute: tuple[tuple[str, str], ...] | None = None
    substitute_from: tuple[tuple[str, str, bool], ...] = ()
    if isinstance(post, dict):
        values = post.get("substitute") or {}
        substitute = tuple(sorted((str(k), _scalar(v)) for k, v in values.items())) if isinstance(values, dict) else ()
        refs = post.get("substituteFrom") or []
        substitute_from = tuple((str(r.get("kind") or ""), str(r.get("name") or ""), r.get("optional") is True)
                                for r in refs if isinstance(r, dict)) if isinstance(refs, list) else ()
    transforms = tuple(
        (key, json.dumps(spec[key], sort_keys=True, default=str)) for key in _TRANSFORM_KEYS if spec.get(key)
    )
    annotations = meta.get("annotations") or {}
    return FluxKs(
        ref=KsRef(cluster, namespace, str(meta.get("name") or "")),
        path=normalize_path(spec.get("path")),
        prune=spec.get("prune") is True,
        source=(str(source.get("kind") or ""), str(source.get("namespace") or namespace), str(source.get("name") or "")),
        target_namespace=str(spec["targetNamespace"]) if spec.get("targetNamespace") else None,
        transforms=transforms,
        substitute=substitute,
        substitute_from=substitute_from,
        annotations=tuple(sorted((str(k), str(v)) for k, v in annotations.items())) if isinstance(annotations, dict) else (),
        suspended=spec.get("suspend") is True,
    )


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def needs_wrapper(ks: FluxKs, tree: Tree) -> bool:
    return bool(ks.target_namespace or ks.transforms or tree.kustomization_file(ks.path) is None)


def wrapper(ks: FluxKs, tree: Tree, rel_to_root: str) -> str:
    """kustomization.yaml text for a wrapper dir whose path back to the tree root is `rel_to_root`."""
    def rel(path: str) -> str:
        return posixpath.join(rel_to_root, path) if path else rel_to_root

    if tree.kustomization_file(ks.path):
        resources = [rel(ks.path)]
    else:
        resources = [rel(p) for p in flux_scan(tree, ks.path)]
    doc: dict[str, Any] = {
        "apiVersion": "kustomize.config.k8s.io/v1beta1",
        "kind": "Kustomization",
        "resources": resources,
    }
    if ks.target_namespace:
        doc["namespace"] = ks.target_namespace
    for key, raw in ks.transforms:
        value = json.loads(raw)
        if key == "components":
            value = [rel(posixpath.normpath(posixpath.join(ks.path, c))) for c in value]
        doc[key] = value
    return json.dumps(doc, indent=1) + "\n"  # JSON is YAML, and much faster to write
