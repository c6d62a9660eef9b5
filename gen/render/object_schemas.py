"""Validate every object we are about to write against its real schema, before anything is written.

Kubernetes kinds use the strict schemas shipped by kubernetes-validate (compiled once per kind
and version: its own `validate()` re-reads the schema files on every call, far too slow for a
fleet); Flux kinds use the Flux CRD schemas in gen/data/flux; PrometheusRule our own subset.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import re
from importlib import resources
from pathlib import Path
from typing import Any


from gen.errors import Problem
from gen.schema_errors import key_path
from gen.validation import Checker

# The strict schemas kubernetes-validate ships, found without importing it (its import pulls in
# jsonschema, a tenth of our start-up, which only error explanations need).
_SPEC = importlib.util.find_spec("kubernetes_validate")
_K8S_ROOT = Path(next(iter(_SPEC.submodule_search_locations or []))) / "kubernetes-json-schema" if _SPEC else Path("/nonexistent")
_OWN = {
    ("kustomize.toolkit.fluxcd.io/v1", "Kustomization"): "data/flux/kustomization-kustomize-v1.json",
    ("source.toolkit.fluxcd.io/v1", "GitRepository"): "data/flux/gitrepository-source-v1.json",
    ("source.toolkit.fluxcd.io/v1", "OCIRepository"): "data/flux/ocirepository-source-v1.json",
    ("monitoring.coreos.com/v1", "PrometheusRule"): "schema/prometheusrule-monitoring-v1.json",
    ("helm.cattle.io/v1", "HelmChartConfig"): "data/helm/helmchartconfig-helm-v1.json",
    ("eks.services.k8s.aws/v1alpha1", "Addon"): "data/ack/addon-eks-v1alpha1.json",
}


@functools.lru_cache(maxsize=None)
def _k8s_versions() -> tuple[str, ...]:
    found = [p.name[1:-len("-local-strict")] for p in _K8S_ROOT.glob("v*-local-strict")]
    return tuple(sorted(found, key=lambda v: tuple(int(x) for x in v.split("."))))


@functools.lru_cache(maxsize=None)
def schema_version(kubernetes: str | None) -> str:
    """The newest shipped schema set not newer than `kubernetes` (newest if None or newer)."""
    versions = _k8s_versions()
    if not kubernetes:
        return versions[-1]
    want = tuple(int(x) for x in re.findall(r"\d+", kubernetes)[:2])
    fitting = [v for v in versions if tuple(int(x) for x in v.split(".")[:2]) <= want]
    return fitting[-1] if fitting else versions[0]


_DEFS_REF = "/api/_definitions.json#/$defs/"
_SELF_CONTAINED_FORM = 1  # bump when _self_contained changes what it builds (names cache entries)


@functools.lru_cache(maxsize=None)
def _definitions(version: str) -> dict[str, Any]:
    data = json.loads((_K8S_ROOT / f"v{version}-local-strict" / "_definitions.json").read_text(encoding="utf-8"))
    return dict(data["$defs"])


def _self_contained(schema: dict[str, Any], version: str) -> dict[str, Any]:
    """Copy the definitions a kind uses into its schema, so both validators resolve `#/$defs/…`."""
    defs = _definitions(version)
    needed: set[str] = set()
    stack: list[Any] = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and "#/$defs/" in ref:
                name = ref.split("#/$defs/", 1)[1]
                if name not in needed:
                    needed.add(name)
                    stack.append(defs[name])
            stack.extend(v for k, v in node.items() if k != "$ref")
        elif isinstance(node, list):
            stack.extend(node)
    text = json.dumps({**schema, "$defs": {k: defs[k] for k in sorted(needed)}}).replace(f'"{_DEFS_REF}', '"#/$defs/')
    return dict(json.loads(text))


@functools.lru_cache(maxsize=None)
def _validator(api_version: str, kind: str, version: str) -> Checker | None:
    own = _OWN.get((api_version, kind))
    if own:
        own_text = resources.files("gen").joinpath(own).read_text(encoding="utf-8")
        return Checker(lambda: dict(json.loads(own_text)), draft="7", identity=f"{own} {own_text}")
    group_version = re.sub(r"^([^./]*)(?:\.[^/]*)?/", r"\1-", api_version)
    path = _K8S_ROOT / f"v{version}-local-strict" / f"{kind.lower()}-{group_version}.json"
    if not path.is_file():
        return None
    text = path.read_text(encoding="utf-8")

    def build() -> dict[str, Any]:
        schema = json.loads(text)
        schema.pop("$id", None)
        return _self_contained(schema, version)

    # The 1.5 MB of shared definitions are parsed only when the compiled code is not cached: the
    # cache entry is named by the kind's file and the definitions file's size and mtime (as .pyc
    # files are), plus the form _self_contained gives them.
    definitions = (_K8S_ROOT / f"v{version}-local-strict" / "_definitions.json").stat()
    identity = (f"kubernetes-validate {version} {path.name} {text} _definitions.json {definitions.st_size} "
                f"{definitions.st_mtime_ns} self-contained form {_SELF_CONTAINED_FORM}")
    return Checker(build, identity=identity)


def validate_object(obj: dict[str, Any], *, file: str, kubernetes: str | None = None) -> list[Problem]:
    """Problems with one object; an unknown kind is a problem too (we only render known kinds).

    No memo of objects already seen valid: compiled validation costs about what computing a
    memo key would (~15 µs an object).
    """
    version = schema_version(kubernetes)
    api, kind = str(obj.get("apiVersion", "")), str(obj.get("kind", ""))
    validator = _validator(api, kind, version)
    if validator is None:
        return [Problem(f"no schema for {api} {kind}", file=file, hint="this is a coredns-gen bug; please report it")]
    if validator.is_valid(obj):
        return []
    return [
        Problem(f"{err.message.splitlines()[0][:200]} (rendered {kind} fails its schema)", file=file,
                key=key_path(err.absolute_path) or kind, hint="this is a coredns-gen bug; please report it")
        for err in validator.iter_errors(obj)
    ] or [Problem(f"rendered {kind} fails its schema, but no check could say where", file=file, key=kind,
                  hint="this is a coredns-gen bug; please report it")]
