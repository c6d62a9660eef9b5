"""Which ConfigMaps and Secrets a Kustomization's postBuild reads, found where Flux finds them.

kustomize-controller substitutes `${var}` with values from `postBuild.substituteFrom` ConfigMaps
and Secrets, which live in the cluster; most repositories put them there themselves, so when one
is built by a Kustomization of the same cluster, or written in a file of the repository, its data
are what the controller reads. This module finds them; the substitution itself is Flux's own
(`SubstituteVariables`, in the helper: tools/helper/build/flux.go), handed these objects. A
SOPS-encrypted Secret is decrypted with the CI's age key when one is given, each secret value a
token (gen/guard/flux/secrets.py); without one, or for a source not in the repository, the build
runs without it, the summary names it, and a Kustomization whose build uses a variable it may set
is judged with placeholders (gen/guard/flux/unread.py).
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from typing import Any, Callable

from gen.guard.flux.placeholders import TOKEN_PREFIX
from gen.guard.flux.secrets import decrypted, key_given, note_secret
from gen.guard.model import FluxKs

ValueRef = tuple[str, str, str]  # kind (ConfigMap/Secret), namespace, name
SOPS = "SOPS-encrypted"  # why a SOPS Secret cannot be read (no key given, or its build does not decrypt it)
Lookup = Callable[[ValueRef], "dict[str, str] | str | None"]  # data, or why it cannot be read


@dataclass(frozen=True)
class Vars:
    """The variables one Kustomization substitutes, and what could not be read."""

    values: tuple[tuple[str, str], ...] = ()
    unresolved: tuple[str, ...] = ()  # "ConfigMap flux-system/cluster-settings: <why>"
    enabled: bool = False  # the Kustomization has a postBuild
    # (kind, name, data) of every substituteFrom source found, in the order written
    found: tuple[tuple[str, str, tuple[tuple[str, str], ...]], ...] = ()

    def objects(self, namespace: str) -> tuple[dict[str, Any], ...]:
        """The sources found, as the objects Flux's SubstituteVariables reads from the cluster."""
        out = []
        for kind, name, data in self.found:
            field = "stringData" if kind == "Secret" else "data"
            out.append({"apiVersion": "v1", "kind": kind, "metadata": {"name": name, "namespace": namespace},
                        field: dict(data)})
        return tuple(out)


def data_of(obj: dict[str, Any], decrypt: bool = True) -> dict[str, str] | str:
    """A ConfigMap's or Secret's data as kustomize-controller reads it, or why it cannot. A
    SOPS-encrypted one is decrypted with the CI's age key when one is given and `decrypt` (each
    secret value then a token: gen/guard/flux/secrets.py); `decrypt` is False for one a build left
    encrypted (its Kustomization has no `spec.decryption`: the controller applies such a ConfigMap
    as written, and refuses such a Secret)."""
    if "sops" in obj and decrypt and key_given():
        opened = decrypted(obj)
        if isinstance(opened, str):
            return opened
        return data_of(opened) if "sops" not in opened else SOPS
    if obj.get("kind") == "Secret":
        if "sops" in obj:
            return SOPS
        out: dict[str, str] = {}
        for key, value in (obj.get("data") or {}).items():
            try:
                out[str(key)] = base64.b64decode(str(value), validate=True).decode("utf-8")
            except (binascii.Error, UnicodeDecodeError):
                return f"data.{key} is not base64 text"
        out.update({str(k): _scalar(v) for k, v in (obj.get("stringData") or {}).items()})
        secret = [key for key, value in out.items() if TOKEN_PREFIX in value]
        if secret:  # decrypted by a build (tools/helper/build/flux.go): said in the run's note
            note_secret(secret)
        return out
    return {str(k): _scalar(v) for k, v in (obj.get("data") or {}).items()}


def resolve(ks: FluxKs, lookup: Lookup) -> Vars:
    """The sources `ks` substitutes from (in order), and the inline values on top."""
    if ks.substitute is None and not ks.substitute_from:
        return Vars()
    values: dict[str, str] = {}
    unresolved: list[str] = []
    found: dict[tuple[str, str], tuple[tuple[str, str], ...]] = {}
    for kind, name, optional in ks.substitute_from:
        data = lookup((kind, ks.ref.namespace, name))
        if isinstance(data, dict):
            values.update(data)
            found[(kind, name)] = tuple(sorted(data.items()))
        elif data is None and optional:
            continue
        else:
            unresolved.append(f"{kind} {ks.ref.namespace}/{name}: {data or 'not in this repository'}")
    values.update(dict(ks.substitute or ()))
    return Vars(tuple(sorted(values.items())), tuple(unresolved), True,
                tuple((kind, name, data) for (kind, name), data in found.items()))


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
