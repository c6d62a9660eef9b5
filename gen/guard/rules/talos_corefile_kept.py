"""The kube-system/coredns ConfigMap the repo owns keeps its `Corefile` key (README.md, the Talos row).

CoreDNS's Deployment mounts key `Corefile` of ConfigMap kube-system/coredns on every platform;
on Talos the repo owns that ConfigMap (Flux took it over from the bootstrap manifest) and Talos
never rewrites it. A ConfigMap without the key (renamed, emptied) leaves CoreDNS without a
config at its next reload or restart. Applies wherever a build produces that ConfigMap.

PASS: data.Corefile is a non-empty string.
FAIL: data has only `Corefile.old` -> error at the ConfigMap's `data:` line.
"""

from __future__ import annotations

from typing import Iterator

from gen.finding import Finding, Severity
from gen.guard.change import Change, ClusterObjects, Violation
from gen.guard.model import ObjKey

ID = "talos-corefile-kept"
SEVERITY = Severity.ERROR
COREDNS = ObjKey("kube-system", "coredns", "", "ConfigMap")


def violations(objects: ClusterObjects, previous: ClusterObjects) -> Iterator[Violation]:
    if COREDNS not in objects:
        return
    ks, obj = objects[COREDNS]
    data = obj.get("data") or {}
    corefile = data.get("Corefile") if isinstance(data, dict) else None
    if not isinstance(corefile, str) or not corefile.strip():
        keys = ", ".join(sorted(data)) if isinstance(data, dict) and data else "none"
        yield Violation(ks, COREDNS, f"ConfigMap kube-system/coredns has no Corefile key (keys: {keys}): "
                        "CoreDNS loses its configuration and Talos does not restore it",
                        "keep the whole Corefile under data.Corefile", "data")


def check(change: Change) -> Iterator[Finding]:
    yield from change.invariant_findings(ID, SEVERITY, violations)
