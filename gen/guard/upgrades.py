"""The platform release a cluster's own upgrade objects record (drift on upgrade: docs/guard.md).

Clusters that upgrade themselves through Flux hold the release in an object Flux applies, so a
bump is a change the guard builds: a system-upgrade-controller `Plan` (upgrade.cattle.io/v1,
`spec.version` `v1.33.1+k3s1` for k3s, `+rke2r1` for RKE2, or a Talos release with the
`siderolabs/installer` image) and tuppr's `TalosUpgrade` (tuppr.home-operations.com,
`spec.talos.version`, earlier `spec.version`). The platform is read off the object itself
(the version's suffix, the upgrade image), never guessed from the cluster; a version left as a
`${VAR}` Flux did not substitute, or a `channel:` with no version, records nothing.
"""

from __future__ import annotations

import re
from typing import Any, Mapping, NamedTuple

from gen.guard.model import Revision

_RELEASE = re.compile(r"^v?\d+\.\d+\.\d+\S*$")


class Recorded(NamedTuple):
    platform: str
    release: str
    where: str  # `Plan system-upgrade/k3s-server`: what the reader looks for


def _plan_platform(version: str, image: str) -> str | None:
    if "+k3s" in version or image.endswith(("/k3s-upgrade", "/k3s")):
        return "k3s"
    if "+rke2" in version or image.endswith(("/rke2-upgrade", "/rke2")):
        return "rke2"
    if "siderolabs/installer" in image or "factory.talos.dev/" in image:
        return "talos"
    return None


def _map(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, dict) else {}


def recorded_release(obj: Mapping[str, Any]) -> Recorded | None:
    """The platform release one object records, if it is an upgrade object that says one."""
    api = str(obj.get("apiVersion") or "")
    kind = obj.get("kind")
    spec = _map(obj.get("spec"))
    meta = _map(obj.get("metadata"))
    where = f"{kind} {meta.get('namespace') or ''}/{meta.get('name') or ''}".replace(" /", " ")
    if kind == "Plan" and api.startswith("upgrade.cattle.io/"):
        upgrade = _map(spec.get("upgrade"))
        version, image = str(spec.get("version") or ""), str(upgrade.get("image") or "").split("@", 1)[0]
        image = re.sub(r":[^/]*$", "", image)
        platform = _plan_platform(version, image)
        if platform and _RELEASE.match(version):
            return Recorded(platform, version, where)
        return None
    if kind == "TalosUpgrade" and api.startswith("tuppr.home-operations.com/"):
        talos = _map(spec.get("talos"))
        version = str(talos.get("version") or spec.get("version") or "")
        return Recorded("talos", version, where) if _RELEASE.match(version) else None
    return None


def recorded_releases(rev: Revision, clusters: set[str]) -> dict[str, dict[str, Recorded]]:
    """Per cluster, per platform, the release its applied upgrade objects record; a platform
    whose objects disagree (a server and an agent Plan mid-upgrade) records none."""
    found: dict[str, dict[str, set[Recorded]]] = {}
    for ref in sorted(rev.nodes):
        if ref.cluster not in clusters:
            continue
        for obj in rev.nodes[ref].build.objects.values():
            rec = recorded_release(obj)
            if rec is not None:
                found.setdefault(ref.cluster, {}).setdefault(rec.platform, set()).add(rec)
    out: dict[str, dict[str, Recorded]] = {}
    for cluster, by_platform in found.items():
        for platform, recs in by_platform.items():
            if len({r.release for r in recs}) == 1:
                out.setdefault(cluster, {})[platform] = min(recs)
    return out
