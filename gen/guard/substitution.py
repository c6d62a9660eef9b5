"""Flux's post-build variable substitution, with `substituteFrom` read from the repository.

kustomize-controller substitutes `${var}` in every object of a build (not the ones marked
`kustomize.toolkit.fluxcd.io/substitute: disabled`), with values from `postBuild.substituteFrom`
ConfigMaps and Secrets (in order, later ones winning; an `optional` one may be absent) and then
from the inline `postBuild.substitute`, which takes precedence. Those ConfigMaps and Secrets
live in the cluster, but most repositories put them there themselves: when one is built by a
Kustomization of the same cluster, or written in a file of the repository, its data are what
the controller reads. A SOPS-encrypted Secret cannot be read here: variables only it could set
stay as written (identical at both revisions) and the summary names it.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass
from typing import Any, Callable

import yaml

from gen.guard.model import FLUX_GROUP, FluxKs, metadata_flag

ValueRef = tuple[str, str, str]  # kind (ConfigMap/Secret), namespace, name
Lookup = Callable[[ValueRef], "dict[str, str] | str | None"]  # data, or why it cannot be read

_EXPR = re.compile(r"([_a-zA-Z][_a-zA-Z0-9]*)(?:(:?[-=])(.*))?\Z", re.S)


@dataclass(frozen=True)
class Vars:
    """The variables one Kustomization substitutes, and what could not be read."""

    values: tuple[tuple[str, str], ...] = ()
    unresolved: tuple[str, ...] = ()  # "ConfigMap flux-system/cluster-settings: <why>"
    enabled: bool = False  # the Kustomization has a postBuild

    @property
    def open(self) -> bool:
        """Unknown variables stay as written (a source we could not read may set them)."""
        return bool(self.unresolved)


def data_of(obj: dict[str, Any]) -> dict[str, str] | str:
    """A ConfigMap's or Secret's data as kustomize-controller reads it, or why it cannot."""
    if obj.get("kind") == "Secret":
        if "sops" in obj:
            return "SOPS-encrypted"
        out: dict[str, str] = {}
        for key, value in (obj.get("data") or {}).items():
            try:
                out[str(key)] = base64.b64decode(str(value), validate=True).decode("utf-8")
            except (binascii.Error, UnicodeDecodeError):
                return f"data.{key} is not base64 text"
        out.update({str(k): _scalar(v) for k, v in (obj.get("stringData") or {}).items()})
        return out
    return {str(k): _scalar(v) for k, v in (obj.get("data") or {}).items()}


def resolve(ks: FluxKs, lookup: Lookup) -> Vars:
    """The variables `ks` substitutes: substituteFrom in order, then the inline ones on top."""
    if ks.substitute is None and not ks.substitute_from:
        return Vars()
    values: dict[str, str] = {}
    unresolved: list[str] = []
    for kind, name, optional in ks.substitute_from:
        found = lookup((kind, ks.ref.namespace, name))
        if isinstance(found, dict):
            values.update(found)
        elif found is None and optional:
            continue
        else:
            unresolved.append(f"{kind} {ks.ref.namespace}/{name}: {found or 'not in this repository'}")
    values.update(dict(ks.substitute or ()))
    return Vars(tuple(sorted(values.items())), tuple(unresolved), True)


def substitute(objects: list[dict[str, Any]], variables: Vars) -> list[dict[str, Any]]:
    """Apply the variables like kustomize-controller: unset ones become "" unless a source we
    could not read may define them (then they are left as written, identical at both revisions)."""
    if not variables.enabled:
        return objects
    values = dict(variables.values)

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            return {walk(k): walk(v) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v) for v in value]
        if isinstance(value, str) and "$" in value:
            text = expand(value, values, variables.open)
            if value.startswith("${") and _closing(value, 2) == len(value) - 1:
                # `replicas: ${N}` becomes a number, as in Flux's YAML-level substitution
                try:
                    parsed = yaml.safe_load(text)
                except (yaml.YAMLError, RecursionError):  # (safe_load is PyYAML's pure-Python loader: it recurses)
                    return text
                return parsed if isinstance(parsed, (int, float, bool)) else text
            return text
        return value

    out = []
    for obj in objects:
        if (metadata_flag(obj, f"{FLUX_GROUP}/substitute") or "").lower() == "disabled":
            out.append(obj)
        else:
            out.append(walk(obj))
    return out


def expand(text: str, values: dict[str, str], keep_unknown: bool) -> str:
    """envsubst as Flux runs it: `$$` is a literal `$`; `${var}`, `${var-default}`,
    `${var:-default}` (and `=`/`:=`), where a default may hold `${...}` of its own; an unset
    variable is "" unless `keep_unknown` (a source we could not read may set it); a form not
    modelled here (`${var/a/b}` …) stays as written."""
    out: list[str] = []
    i = 0
    while i < len(text):
        if text.startswith("$$", i):
            out.append("$")
            i += 2
        elif text.startswith("${", i):
            end = _closing(text, i + 2)
            if end is None:
                out.append(text[i:])
                break
            out.append(_one(text[i + 2:end], text[i:end + 1], values, keep_unknown))
            i = end + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def _closing(text: str, start: int) -> int | None:
    """Index of the `}` that closes the `${` before `start`, nested `${…}` included."""
    depth = 1
    j = start
    while j < len(text):
        if text.startswith("${", j):
            depth += 1
            j += 2
            continue
        if text[j] == "}":
            depth -= 1
            if depth == 0:
                return j
        j += 1
    return None


def _one(inner: str, raw: str, values: dict[str, str], keep_unknown: bool) -> str:
    match = _EXPR.match(inner)
    if match is None:
        return raw
    name, op, default = match.group(1), match.group(2), match.group(3)
    if name in values and (values[name] or not (op or "").startswith(":")):
        return values[name]
    if op is not None:
        return expand(default, values, keep_unknown)
    return raw if keep_unknown else ""


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
