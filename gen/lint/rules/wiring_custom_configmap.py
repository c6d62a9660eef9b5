"""Wiring point 1: the ConfigMap kube-system/coredns-custom exists.

Fragments are written into it, never created with it. A non-optional volume of a missing
ConfigMap also keeps the CoreDNS Pod from starting. With `optional: true` (k3s, kubeadm's
render) CoreDNS starts without it, and a manifest file need not carry it (k3s's own does not),
so whether it exists is not judged: lint says so (info), since fragments have nowhere to go until
something creates it. When the inputs are live objects (`kubectl get -o yaml`: they carry
`metadata.uid`) and the coredns ConfigMap was dumped beside the Deployment, its absence is a
warning.

PASS: the inputs hold ConfigMap `coredns-custom` next to the Deployment.
FAIL: the Deployment mounts `coredns-custom` (not optional) and no such ConfigMap -> error at the volume.
"""

from __future__ import annotations

from typing import Iterator

from gen.finding import Finding, Severity
from gen.lint.context import LintContext
from gen.lint.inputs import CUSTOM_CONFIGMAP
from gen.lint.wiring import line, wirings

ID = "wiring-custom-configmap"
SEVERITY = Severity.ERROR
REFUSES = False  # about the cluster wiring, not the Corefile syntax


def check(ctx: LintContext) -> Iterator[Finding]:
    for w in wirings(ctx):
        if w.custom is not None or w.volume is None:
            continue  # no volume at all is wiring-mount-path's finding
        optional = bool((w.volume.get("configMap") or {}).get("optional"))
        live = bool((w.deployment.node.get("metadata") or {}).get("uid")) and w.main is not None
        if optional and not live:
            yield Finding(ID, Severity.INFO, w.file, line(w.volume),
                          f"ConfigMap {CUSTOM_CONFIGMAP} is not among the inputs and its volume is optional: CoreDNS "
                          "starts without it, but whether it exists in the cluster was not judged (fragments need it)",
                          f"make sure something creates it (`kubectl -n kube-system create configmap {CUSTOM_CONFIGMAP}`, "
                          "or the overlay), or lint it together with the files that carry it")
        elif optional:
            yield Finding(ID, Severity.WARNING, w.file, line(w.volume),
                          f"ConfigMap {CUSTOM_CONFIGMAP} is not among the inputs; the volume is optional, so "
                          "CoreDNS starts, but fragments have nowhere to go until it exists",
                          f"create it: `kubectl -n kube-system create configmap {CUSTOM_CONFIGMAP}` or add it to the overlay")
        else:
            yield Finding(ID, SEVERITY, w.file, line(w.volume),
                          f"ConfigMap {CUSTOM_CONFIGMAP} is not among the inputs and its volume is not optional: "
                          "the CoreDNS Pod cannot start without it",
                          f"add ConfigMap {CUSTOM_CONFIGMAP}, or set `optional: true` on the volume")
