"""A HelmRelease's release as helm-controller names it (its api/v2 `Get…` methods, and its
internal/release ShortenName for what it hands Helm): one place for the rules and the renders."""

from __future__ import annotations

import hashlib
from typing import Any

from gen.guard.model import ObjKey


def shorten_name(name: str) -> str:
    """The release name helm-controller gives Helm (its internal/release ShortenName): a name of
    more than 53 characters becomes its first 40, `-` and 12 hex digits of its SHA-256."""
    if len(name) <= 53:
        return name
    return name[:40] + "-" + hashlib.sha256(name.encode()).hexdigest()[:12]


def release_name(key: ObjKey, obj: dict[str, Any]) -> str:
    """`spec.releaseName`, else `<spec.targetNamespace>-<name>` when a targetNamespace is set, else
    the name; shortened as helm-controller shortens it."""
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
    assert isinstance(spec, dict)
    return shorten_name(str(spec.get("releaseName") or "") or (
        f"{spec['targetNamespace']}-{key.name}" if spec.get("targetNamespace") else key.name))


def release_namespace(key: ObjKey, obj: dict[str, Any]) -> str:
    """`spec.targetNamespace`, else the HelmRelease's own namespace."""
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
    assert isinstance(spec, dict)
    return str(spec.get("targetNamespace") or "") or key.namespace
