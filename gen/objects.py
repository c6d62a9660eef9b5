"""Validate every object we are about to write against its real schema, before anything is written.

Kubernetes kinds use the strict schemas shipped by kubernetes-validate (compiled once per kind
and version: its own `validate()` re-reads the schema files on every call, far too slow for a
fleet); Flux kinds use the Flux CRD schemas in gen/data/flux; PrometheusRule our own subset.
"""

from __future__ import annotations

import functools
import json
import re
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import kubernetes_validate
from referencing import Registry, Resource

from gen.errors import Problem
from gen.schema_errors import key_path

_K8S_ROOT = Path(kubernetes_validate.__file__).parent / "kubernetes-json-schema"
_OWN = {
    ("kustomize.toolkit.fluxcd.io/v1", "Kustomization"): "data/flux/kustomization-kustomize-v1.json",
    ("source.toolkit.fluxcd.io/v1", "GitRepository"): "data/flux/gitrepository-source-v1.json",
    ("source.toolkit.fluxcd.io/v1", "OCIRepository"): "data/flux/ocirepository-source-v1.json",
    ("monitoring.coreos.com/v1", "PrometheusRule"): "schema/prometheusrule-monitoring-v1.json",
}


@functools.lru_cache(maxsize=None)
def _k8s_versions() -> tuple[str, ...]:
    found = [p.name[1:-len("-local-strict")] for p in _K8S_ROOT.glob("v*-local-strict")]
    return tuple(sorted(found, key=lambda v: tuple(int(x) for x in v.split("."))))


def schema_version(kubernetes: str | None) -> str:
    """The newest shipped schema set not newer than `kubernetes` (newest if None or newer)."""
    versions = _k8s_versions()
    if not kubernetes:
        return versions[-1]
    want = tuple(int(x) for x in re.findall(r"\d+", kubernetes)[:2])
    fitting = [v for v in versions if tuple(int(x) for x in v.split(".")[:2]) <= want]
    return fitting[-1] if fitting else versions[0]


@functools.lru_cache(maxsize=None)
def _validator(api_version: str, kind: str, version: str) -> jsonschema.protocols.Validator | None:
    own = _OWN.get((api_version, kind))
    if own:
        schema = json.loads(resources.files("gen").joinpath(own).read_text(encoding="utf-8"))
        return jsonschema.Draft7Validator(schema)
    group_version = re.sub(r"^([^./]*)(?:\.[^/]*)?/", r"\1-", api_version)
    folder = _K8S_ROOT / f"v{version}-local-strict"
    path = folder / f"{kind.lower()}-{group_version}.json"
    if not path.is_file():
        return None
    schema = json.loads(path.read_text(encoding="utf-8"))
    defs = json.loads((folder / "_definitions.json").read_text(encoding="utf-8"))
    registry: Registry = Registry().with_resources(
        [("file://" + str(path), Resource.from_contents(schema)), ("_definitions.json", Resource.from_contents(defs))]
    )
    registry = Resource.from_contents(schema) @ registry
    registry = Resource.from_contents(defs) @ registry
    return jsonschema.Draft202012Validator(schema, registry=registry)


def validate_object(obj: dict[str, Any], *, file: str, kubernetes: str | None = None) -> list[Problem]:
    """Problems with one object; an unknown kind is a problem too (we only render known kinds)."""
    api, kind = str(obj.get("apiVersion", "")), str(obj.get("kind", ""))
    validator = _validator(api, kind, schema_version(kubernetes))
    if validator is None:
        return [Problem(f"no schema for {api} {kind}", file=file, hint="this is a coredns-gen bug; please report it")]
    return [
        Problem(f"{err.message.splitlines()[0][:200]} (rendered {kind} fails its schema)", file=file,
                key=key_path(err.absolute_path) or kind, hint="this is a coredns-gen bug; please report it")
        for err in validator.iter_errors(obj)
    ]
