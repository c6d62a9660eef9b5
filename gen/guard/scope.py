"""`guard.scope: dns`: the gate refuses only what touches cluster DNS; other removals are warnings.

A team adopting the DNS gate in a repository that manages everything else too should not have
every ConfigMap removal refused (a Grafana dashboard). With `scope: dns` a finding about an
object is an error only when the object is cluster DNS: kube-system/coredns and coredns-custom,
what any platform renders or owns for its DNS (gen.platforms.dns_objects), and every ConfigMap
the cluster's coredns Deployment mounts at base or at head (what CoreDNS's `import` can read).
Anything else that was an error becomes a warning saying why. Findings about no single object
(a build that fails, a change the guard could not judge) stay as they are: the gate fails closed.
`scope: all` (the default) changes nothing.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Iterable, Literal, Mapping

from gen.finding import Finding, Severity
from gen.guard.model import ObjKey, Revision
from gen.platforms import dns_objects

Scope = Literal["all", "dns"]
_DEPLOYMENT = ObjKey("kube-system", "coredns", "apps", "Deployment")


def mounted_configmaps(deployment: Mapping[str, Any]) -> set[str]:
    """Names of the ConfigMaps a Deployment's pods mount (volumes and projected sources)."""
    spec = ((deployment.get("spec") or {}).get("template") or {}).get("spec") or {}
    names: set[str] = set()
    for volume in spec.get("volumes") or []:
        if not isinstance(volume, dict):
            continue
        cm = volume.get("configMap")
        if isinstance(cm, dict) and cm.get("name"):
            names.add(str(cm["name"]))
        for source in ((volume.get("projected") or {}).get("sources") or []) if isinstance(volume.get("projected"), dict) else []:
            if isinstance(source, dict) and isinstance(source.get("configMap"), dict) and source["configMap"].get("name"):
                names.add(str(source["configMap"]["name"]))
    return names


def _mounted(revisions: Iterable[Revision]) -> dict[str, set[str]]:
    """Per cluster, the kube-system ConfigMaps its coredns Deployment mounts at either revision."""
    out: dict[str, set[str]] = {}
    for rev in revisions:
        for ref, node in rev.nodes.items():
            obj = node.build.objects.get(_DEPLOYMENT)
            if obj is not None:
                out.setdefault(ref.cluster, set()).update(mounted_configmaps(obj))
    return out


def is_dns(key: ObjKey, mounted: set[str]) -> bool:
    if key.namespace == "kube-system" and key.name in ("coredns", "coredns-custom"):
        return True
    if any((ref.kind, ref.namespace, ref.name) == (key.kind, key.namespace, key.name) for ref in dns_objects()):
        return True
    return key.kind == "ConfigMap" and not key.group and key.namespace == "kube-system" and key.name in mounted


def apply_scope(findings: list[Finding], scope: Scope, revisions: Iterable[Revision]) -> list[Finding]:
    """With `dns`, every error about an object outside cluster DNS as a warning that says so."""
    if scope == "all":
        return findings
    mounted = _mounted(revisions)
    out = []
    for f in findings:
        key = ObjKey.parse(f.details.get("object", "")) if f.severity is Severity.ERROR else None
        if key is None or is_dns(key, mounted.get(f.details.get("cluster", ""), set())):
            out.append(f)
            continue
        out.append(replace(f, severity=Severity.WARNING,
                           message=f"{f.message} (a warning: {key.ref} is not cluster DNS and .coredns-gen.yaml "
                                   "sets guard.scope: dns)"))
    return out
