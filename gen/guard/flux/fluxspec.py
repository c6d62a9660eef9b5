"""Read Flux Kustomization objects: what each applies, prunes, and hands Flux's build.

What kustomize-controller adds to a build (its generated kustomization, targetNamespace,
patches, images, components, name prefix and suffix, postBuild) is done by Flux's own library in
the helper (tools/helper/build/flux.go); this module only keeps the object as Flux reads it
(`FluxKs.build_spec`) so the helper gets it whole.
"""

from __future__ import annotations

import json
import posixpath
from typing import Any

from gen.guard.model import FLUX_GROUP, FLUX_VERSIONS, FluxKs, KsRef

_TRANSFORM_KEYS = ("patches", "images", "components", "namePrefix", "nameSuffix")
# Fields of spec that say when and how to apply, never what the build makes: left out of what the
# helper is sent so that changing them does not rebuild (everything else goes, known or not).
_NOT_BUILD = frozenset({"interval", "retryInterval", "timeout", "suspend", "wait", "healthChecks",
                        "healthCheckExprs", "dependsOn", "force", "prune", "serviceAccountName", "kubeConfig",
                        "decryption", "commonMetadata", "sourceRef", "deletionPolicy"})


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
        deletion_policy=str(spec.get("deletionPolicy") or "MirrorPrune"),
        depends_on=_depends_on(spec.get("dependsOn"), namespace),
        build_spec=json.dumps({"apiVersion": obj.get("apiVersion"), "kind": obj.get("kind"),
                               "metadata": {"name": str(meta.get("name") or ""), "namespace": namespace},
                               "spec": {**{k: v for k, v in spec.items() if k not in _NOT_BUILD},
                                        **_decryption(spec.get("decryption"))}},
                              sort_keys=True, separators=(",", ":"), default=str),
    )


def _decryption(raw: Any) -> dict[str, Any]:
    """`spec.decryption` as the build reads it: only its provider (kustomize-controller decrypts
    what it builds when it is `sops`: gen/guard/flux/secrets.py); which Secret holds the key is
    the cluster's, and the guard takes the CI's key instead."""
    if isinstance(raw, dict) and raw.get("provider"):
        return {"decryption": {"provider": str(raw["provider"])}}
    return {}


def _depends_on(raw: Any, namespace: str) -> tuple[tuple[str, str], ...]:
    """`spec.dependsOn` entries as (namespace, name); an entry without a namespace is in the
    Kustomization's own (Flux's CrossNamespaceDependencyReference)."""
    if not isinstance(raw, list):
        return ()
    return tuple(sorted((str(d.get("namespace") or namespace), str(d["name"]))
                        for d in raw if isinstance(d, dict) and d.get("name")))


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
