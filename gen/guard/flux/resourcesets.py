"""Flux Operator ResourceSets in a build, rendered as the Flux Operator renders them.

A ResourceSet that a Kustomization applies makes objects of its own (tenant namespaces,
ConfigMaps, Kustomizations) and keeps them in its own inventory: drop one from its output and the
operator deletes it, as kustomize-controller deletes what leaves a build. So its output is judged
with the output of the Kustomization that applies it: the objects it generates join that build's
objects (each named with its ResourceSet, Build.generated), the Kustomizations among them are
followed like any other, and a ConfigMap that leaves it is deleted by the operator's rules, not by
that Kustomization's prune (gen/guard/diff.py).

Rendering is the Flux Operator's own code (`coredns-gen-helper resourceset`, which runs the CLI's
`build resourceset`), from what git holds: the ResourceSet's `spec.inputs` and the
ResourceSetInputProviders of type `Static` that its `inputsFrom` names and the same build applies.
Inputs from anywhere else (GitHub pull requests or branches, OCI tags, a provider this build does
not apply) are cluster state or an outside service: that ResourceSet is not rendered and is named,
with the provider, as not judged (gen/guard/coverage.py; not-judged-touched refuses a change to it).
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from typing import Any, Literal

from gen.errors import ToolError
from gen.tools import HELPER_BUILD_HINT, helper_binary

GROUP = "fluxcd.controlplane.io"
Kind = Literal["ResourceSet", "ResourceSetInputProvider"]
RSET: Kind = "ResourceSet"
PROVIDER: Kind = "ResourceSetInputProvider"
STATIC = "Static"  # the only provider type whose inputs are in git (spec.defaultValues)
# (kind, "namespace/name", why): a Flux Operator object whose output is not judged
Unrendered = tuple[str, str, str]
_RENDERED: dict[str, tuple[list[dict[str, Any]] | None, str]] = {}  # request digest -> (objects, error)


def is_operator(obj: dict[str, Any], kind: Kind) -> bool:
    return obj.get("kind") == kind and str(obj.get("apiVersion") or "").startswith(GROUP + "/")


def expand(objects: list[dict[str, Any]], namespace: str = "") -> \
        tuple[list[dict[str, Any]], tuple[Unrendered, ...], list[tuple[dict[str, Any], str]]]:
    """A build's objects followed by what its ResourceSets generate, the Flux Operator objects
    whose output is not judged, and each generated object with the ResourceSet
    (`namespace/name`) that makes it (the operator, not Flux, deletes it when it leaves).
    `namespace` is where an object written without one lands ("": the CLI's default).

    Raises:
        ToolError: the helper or the Flux Operator CLI cannot run (exit 3).
    """
    rsets = [o for o in objects if is_operator(o, RSET)]
    providers = [o for o in objects if is_operator(o, PROVIDER)]
    if not rsets and not providers:
        return objects, (), []
    out = list(objects)
    made: list[tuple[dict[str, Any], str]] = []
    unrendered: list[Unrendered] = []
    used: set[str] = set()
    requests: list[tuple[str, dict[str, Any]]] = []
    for rset in rsets:
        name = _name(rset, namespace)
        picked, why = _providers(rset, providers, namespace)
        if why:
            unrendered.append((RSET, name, why))
            used.update(_name(p, namespace) for p in providers if f"InputProvider {_name(p, namespace)} " in why)
            continue
        used.update(_name(p, namespace) for p in picked)
        # every Static provider of its namespace: which of them it reads, the CLI decides
        static = [p for p in providers if (_ns(p) or namespace) == (_ns(rset) or namespace)
                  and (p.get("spec") or {}).get("type") == STATIC]
        requests.append((name, {"resourceset": rset, "providers": static, "namespace": _ns(rset) or namespace}))
    for name, (generated, error) in zip([n for n, _ in requests], _render([r for _, r in requests]), strict=True):
        if generated is None:
            unrendered.append((RSET, name, f"the Flux Operator cannot render it here: {error}"))
        else:
            out.extend(generated)
            made.extend((obj, name) for obj in generated)
    for p in providers:
        kind = str((p.get("spec") or {}).get("type") or "")
        if kind != STATIC and _name(p, namespace) not in used:  # one no ResourceSet here names
            unrendered.append((PROVIDER, _name(p, namespace),
                               f"type {kind or '(none)'}: its inputs come from outside git (an external service "
                               "or cluster state), so what ResourceSets make from it is not judged"))
    return out, tuple(sorted(set(unrendered))), made


def _ns(obj: dict[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("namespace") or "")


def _name(obj: dict[str, Any], namespace: str) -> str:
    return f"{_ns(obj) or namespace}/{(obj.get('metadata') or {}).get('name') or ''}"


def _labels(obj: dict[str, Any]) -> dict[str, str]:
    labels = (obj.get("metadata") or {}).get("labels") or {}
    return {str(k): str(v) for k, v in labels.items()} if isinstance(labels, dict) else {}


def _providers(rset: dict[str, Any], providers: list[dict[str, Any]], namespace: str) -> tuple[list[dict[str, Any]], str]:
    """The providers `inputsFrom` names (by name, or by label selector, in the ResourceSet's
    namespace, as the operator looks them up), or why the inputs are not in git. This only decides
    whether the inputs are in git: which inputs the render uses, the CLI decides."""
    refs = (rset.get("spec") or {}).get("inputsFrom") or []
    if not refs:
        return [], ""
    here = _ns(rset) or namespace
    mine = [p for p in providers if (_ns(p) or namespace) == here]
    picked: dict[str, dict[str, Any]] = {}
    for ref in refs if isinstance(refs, list) else []:
        if not isinstance(ref, dict):
            continue
        kind = str(ref.get("kind") or PROVIDER)
        if kind != PROVIDER:
            return [], f"its inputsFrom names a {kind}, whose inputs are cluster state"
        if ref.get("name"):
            found = [p for p in mine if (p.get("metadata") or {}).get("name") == ref["name"]]
            if not found:
                return [], (f"its input provider {here}/{ref['name']} is not applied by the same build: its inputs "
                            "are not known here")
        else:
            found = [p for p in mine if _selects(ref.get("selector"), _labels(p))]
            if not found:
                return [], "no input provider its inputsFrom selector matches is applied by the same build"
        for p in found:
            picked[_name(p, namespace)] = p
    for name, p in sorted(picked.items()):
        kind = str((p.get("spec") or {}).get("type") or "")
        if kind != STATIC:
            return [], (f"its inputs come from ResourceSetInputProvider {name} (type {kind or '(none)'}), an external "
                        "service or cluster state, not git")
    return [picked[n] for n in sorted(picked)], ""


def _selects(selector: Any, labels: dict[str, str]) -> bool:
    """A label selector's matchLabels and matchExpressions (In, NotIn, Exists, DoesNotExist)."""
    if not isinstance(selector, dict):
        return False
    for key, value in (selector.get("matchLabels") or {}).items():
        if labels.get(str(key)) != str(value):
            return False
    for expr in selector.get("matchExpressions") or []:
        key, op = str(expr.get("key")), str(expr.get("operator"))
        values = [str(v) for v in expr.get("values") or []]
        if op == "In" and labels.get(key) not in values:
            return False
        if op == "NotIn" and key in labels and labels[key] in values:
            return False
        if op == "Exists" and key not in labels:
            return False
        if op == "DoesNotExist" and key in labels:
            return False
    return True


def _render(requests: list[dict[str, Any]]) -> list[tuple[list[dict[str, Any]] | None, str]]:
    """Each request's generated objects (None and the CLI's error when it fails); one helper
    process for the batch, each distinct request rendered once per run."""
    keys = [hashlib.sha256(json.dumps(r, sort_keys=True).encode()).hexdigest() for r in requests]
    todo = {k: r for k, r in zip(keys, requests, strict=True) if k not in _RENDERED}
    if todo:
        helper = helper_binary(build=True)
        if helper is None:
            raise ToolError("coredns-gen-helper is not installed: ResourceSets cannot be rendered", hint=HELPER_BUILD_HINT)
        lines = "".join(json.dumps({"id": k, **r}, sort_keys=True) + "\n" for k, r in todo.items())
        try:
            proc = subprocess.run([str(helper), "resourceset"], input=lines, capture_output=True, text=True,
                                  timeout=600, check=False)
        except (OSError, subprocess.TimeoutExpired) as err:
            raise ToolError(f"cannot run {helper} resourceset: {err}", hint=HELPER_BUILD_HINT) from err
        if proc.returncode != 0:
            raise ToolError(f"{helper} resourceset failed (exit {proc.returncode})", stderr=proc.stderr,
                            hint=HELPER_BUILD_HINT)
        for line in proc.stdout.splitlines():
            said = json.loads(line)
            error = str(said.get("error") or "")
            objects = said.get("objects")
            _RENDERED[str(said["id"])] = (None, error) if error or not isinstance(objects, list) else (objects, "")
        missing = [k for k in todo if k not in _RENDERED]
        if missing:
            raise ToolError(f"{helper} resourceset answered {len(todo) - len(missing)} of {len(todo)} requests",
                            stderr=proc.stderr, hint=HELPER_BUILD_HINT)
    return [_RENDERED[k] for k in keys]
