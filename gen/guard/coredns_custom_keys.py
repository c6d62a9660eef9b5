"""kube-system/coredns-custom keys end `.server`/`.override`; on AKS no override has a root `forward .`.

AKS and k3s both load only `*.server` files (whole server blocks) and `*.override` files (lines
spliced into the default `.:53` block) from coredns-custom; any other key is silently ignored, so
the suffix check applies wherever a build produces that ConfigMap.

A root `forward .` in an override is wrong on AKS only: AKS imports overrides *after* its own
`forward . /etc/resolv.conf`, and rejects or ignores a second root forward. k3s (since
v1.34.2/v1.32.10) imports them *before* its forward, which is how coredns-gen's k3s render chains
`next` into it. So that check is an error on a cluster that is AKS by fact (platform_facts.py:
a values file or `.coredns-gen.yaml` says `platform: aks`). Where no fact says what the cluster
runs, content is evidence for a warning only: coredns-custom carries `kustomize.toolkit.fluxcd.io/ssa:
Merge` (AKS creates the object; the repo merges its keys into it) or an `addonmanager.kubernetes.io`
or `kubernetes.azure.com` marker, in a cluster with no k3s evidence (see k3s-hpa-min-replicas).

PASS: keys `corp.server`, `log.override`; a k3s override `forward . 10.0.0.53 { next SERVFAIL }`.
FAIL: key `corp.conf`; on AKS by fact, `upstream.override: forward . 10.0.0.1` -> error at `data:`
      (AKS by content only: warning).
"""

from __future__ import annotations

from typing import Any, Iterator

from gen.corefile import CorefileError, is_root_forward, parse_directives
from gen.finding import Finding, Severity
from gen.guard.change import Change, ClusterObjects, Violation
from gen.guard.k3s_hpa_min_replicas import k3s_marker
from gen.guard.model import ObjKey

ID = "coredns-custom-keys"
SEVERITY = Severity.ERROR
CUSTOM = ObjKey("kube-system", "coredns-custom", "", "ConfigMap")


def aks_marker(obj: dict[str, Any]) -> str | None:
    meta = obj.get("metadata") or {}
    annotations = meta.get("annotations") or {}
    if str(annotations.get("kustomize.toolkit.fluxcd.io/ssa", "")).lower() == "merge":
        return "kustomize.toolkit.fluxcd.io/ssa: Merge"
    for section in ("labels", "annotations"):
        for name in meta.get(section) or {}:
            if str(name).startswith(("addonmanager.kubernetes.io/", "kubernetes.azure.com/")):
                return str(name)
    return None


def violations(objects: ClusterObjects, previous: ClusterObjects, platform: str | None = None) -> Iterator[Violation]:
    if CUSTOM not in objects:
        return
    ks, obj = objects[CUSTOM]
    if platform is not None:
        aks, by_content = platform == "aks", False
    else:
        aks = by_content = aks_marker(obj) is not None and k3s_marker(objects, previous) is None
    for key, text in sorted((obj.get("data") or {}).items()):
        key = str(key)
        if not key.endswith((".server", ".override")):
            yield Violation(ks, CUSTOM, f"coredns-custom key {key!r} ends neither .server nor .override, "
                            "so CoreDNS never loads it", f"rename it to {key.rsplit('.', 1)[0]}.server (a whole server "
                            "block) or .override (lines inside the default block)", "data")
        elif aks and key.endswith(".override") and isinstance(text, str):
            try:
                directives = parse_directives(text, filename=key)
            except CorefileError:
                continue
            if any(is_root_forward(d) for d in directives):
                judged = " (AKS judged by content)" if by_content else ""
                yield Violation(ks, CUSTOM, f"coredns-custom key {key!r} has a root `forward .`, which AKS's default "
                                f"block already has: it is rejected or ignored{judged}",
                                "forward a zone instead in a .server key, e.g. `corp.example:53 { forward . 10.0.0.53 }`",
                                "data", severity=Severity.WARNING if by_content else None)


def check(change: Change) -> Iterator[Finding]:
    yield from change.platform_invariant_findings(ID, SEVERITY, violations)
