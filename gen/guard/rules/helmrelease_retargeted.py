"""A HelmRelease kept in git whose release target changes: helm-controller uninstalls the old release.

helm-controller compares a HelmRelease with the release it last made (`ReleaseTargetChanged` in
fluxcd/helm-controller internal/action): when the storage namespace, the release namespace, the
release name or the chart's name differ, it runs `helm uninstall` of the old release, deleting
every object of it (its ConfigMaps included), and then installs the new one. The HelmRelease
object itself stays, so no prune rule sees it. What sets each (its api/v2 `Get…` methods):
release name `spec.releaseName`, else `<spec.targetNamespace>-<name>` when a targetNamespace is
set, else the name; release namespace `spec.targetNamespace`, else the object's namespace;
storage namespace `spec.storageNamespace`, else the object's namespace. The chart's name is
known here only for a `spec.chart.spec` from a HelmRepository at both revisions: the last segment
of its `chart` (the index names each chart as its Chart.yaml does, and a Helm chart name holds no
`/`; an OCI repository's chart path ends with it), so `hashicorp/vault` -> `vault` is no change;
a chart from git, a Bucket or a `chartRef` is not compared, and a chart's name change is no
uninstall when the head's `spec.upgrade.chartNameChangeStrategy` is `InPlaceUpdate` (the
controller reads it from the object it reconciles). Release names are compared as helm-controller
stores them: `release.ShortenName` cuts a name longer than 53 characters to its first 40, `-` and
the first 12 hex digits of its SHA-256, so a `releaseName` written as that short form is no change.
A HelmRelease kustomize-controller does not update (`reconcile: disabled` or `ssa: Ignore` at
base or head, `ssa: IfNotPresent` at head) passes: the new spec never reaches helm-controller.
`prune: disabled` stops deletion only, so a HelmRelease carrying it is judged. A HelmRelease
suspended at head is not reconciled until resumed: a warning (one suspended at
base and resumed at head is reconciled now: an error).

PASS: the HelmRelease keeps its release name, namespaces and chart; or it is new at head.
FAIL: head adds `targetNamespace: media` to HelmRelease sonarr-4k (release `sonarr-4k` becomes
`media-sonarr-4k`) -> error at that HelmRelease.
"""

from __future__ import annotations

import hashlib
from typing import Any, Iterator

from gen.finding import Finding, Severity
from gen.guard.change import Change
from gen.guard.model import HELM_GROUP, ObjKey, apply_skipped

ID = "helmrelease-retargeted"
SEVERITY = Severity.ERROR

# the spec keys that set each part of the target, in the order a finding points at them
_FIELDS = {"release name": ("releaseName", "targetNamespace"), "release namespace": ("targetNamespace",),
           "storage namespace": ("storageNamespace",), "chart": ("chart",)}


def shorten_name(name: str) -> str:
    """The release name helm-controller gives Helm (its internal/release ShortenName): a name of
    more than 53 characters becomes its first 40, `-` and 12 hex digits of its SHA-256."""
    if len(name) <= 53:
        return name
    return name[:40] + "-" + hashlib.sha256(name.encode()).hexdigest()[:12]


def target(key: ObjKey, obj: dict[str, Any]) -> dict[str, str]:
    """What helm-controller compares with the release it last made (ReleaseTargetChanged)."""
    spec = obj.get("spec") or {}
    release_ns = str(spec.get("targetNamespace") or "") or key.namespace
    name = shorten_name(str(spec.get("releaseName") or "") or (
        f"{spec['targetNamespace']}-{key.name}" if spec.get("targetNamespace") else key.name))
    out = {"release name": name, "release namespace": release_ns,
           "storage namespace": str(spec.get("storageNamespace") or "") or key.namespace}
    chart = ((spec.get("chart") or {}).get("spec") or {}) if not spec.get("chartRef") else {}
    if (chart.get("sourceRef") or {}).get("kind") == "HelmRepository" and chart.get("chart"):
        out["chart"] = str(chart["chart"]).rstrip("/").rsplit("/", 1)[-1]  # a chart's name holds no `/`
    return out


def check(change: Change) -> Iterator[Finding]:
    base_views = change.clusters("base")
    seen: set[tuple[str, ObjKey]] = set()
    for root, objects in sorted(change.clusters("head").items()):
        before = base_views.get(root, {})
        for key, (ks, obj) in sorted(objects.items()):
            if key.kind != "HelmRelease" or key.group != HELM_GROUP or key not in before:
                continue
            _, old = before[key]
            if (root.cluster, key) in seen or apply_skipped(old, obj):
                continue  # kustomize-controller does not apply the new spec (prune: disabled does not stop that)
            was, now = target(key, old), target(key, obj)
            changed = [k for k in was if k in now and was[k] != now[k]]
            if ((obj.get("spec") or {}).get("upgrade") or {}).get("chartNameChangeStrategy") == "InPlaceUpdate":
                changed = [k for k in changed if k != "chart"]  # helm-controller upgrades the release in place
            if not changed:
                continue
            seen.add((root.cluster, key))
            what = "; ".join(f"{k} {was[k]} -> {now[k]}" for k in changed)
            spec = obj.get("spec") or {}
            suspended = spec.get("suspend") is True  # the head's: helm-controller reconciles it (or not) as applied
            field = next((f"spec.{f}" for k in changed for f in _FIELDS[k] if f in spec), "spec")
            file, line = change.locator.invariant_anchor(ks, key, field)
            release = f"{was['release namespace']}/{was['release name']}"
            message = (f"{key.ref} changes its release target ({what}): helm-controller "
                       + ("will, once it is resumed (it is suspended), uninstall" if suspended else "uninstalls")
                       + f" release {release} with every object in it (ConfigMaps included) before it installs "
                       f"the new one")
            yield Finding(
                ID, Severity.WARNING if suspended else SEVERITY, file or ".", line, message + change.where(ks),
                f"keep the release's {', '.join(changed)} as at base (set spec.releaseName/targetNamespace/"
                "storageNamespace to the old values); to move the release deliberately, allow "
                f"{key.id} once what it holds can be deleted and installed again",
                details={"object": key.id, "kustomization": str(ks), "cluster": root.cluster, "fate": "uninstalled",
                         "cause": f"{key.ref}: {what}"},
            )
