"""kubeadm: a Kubernetes minor bump lands in the same change as the Corefile the repo owns.

`kubeadm upgrade apply` rewrites kube-system/coredns: its CoreDNS phase migrates the Corefile to
the new release's CoreDNS (coredns/corefile-migration) and re-creates the Deployment, dropping
the coredns-custom volume until Flux re-applies the render. coredns-gen records the Kubernetes
release it rendered for in the ConfigMap's `coredns-gen.io/kubernetes-version` annotation; when
its minor changes in a change, the render for the new release (its Corefile, its CoreDNS) and
the upgrade race each other. A warning, not a refusal: the order is the operator's call.

PASS: the annotation stays v1.35.0, or only the patch moves (v1.35.0 -> v1.35.2).
FAIL: v1.34.3 at base, v1.35.0 at head -> warning at the ConfigMap.
"""

from __future__ import annotations

from typing import Iterator

from gen.finding import Finding, Severity
from gen.guard.change import Change, ClusterObjects, Violation
from gen.guard.model import ObjKey
from gen.platforms.kubeadm import VERSION_ANNOTATION
from gen.versions import parse_version

ID = "kubeadm-minor-bump"
SEVERITY = Severity.WARNING
COREDNS = ObjKey("kube-system", "coredns", "", "ConfigMap")


def _minor(objects: ClusterObjects) -> tuple[str, tuple[int, int]] | None:
    if COREDNS not in objects:
        return None
    text = str(((objects[COREDNS][1].get("metadata") or {}).get("annotations") or {}).get(VERSION_ANNOTATION, ""))
    try:
        v = parse_version(text)
    except ValueError:
        return None
    return text, (v.major, v.minor)


def violations(objects: ClusterObjects, previous: ClusterObjects) -> Iterator[Violation]:
    head, base = _minor(objects), _minor(previous)
    if head is None or base is None or head[1] == base[1]:
        return
    yield Violation(objects[COREDNS][0], COREDNS,
                    f"Kubernetes {base[0]} -> {head[0]} changes minor release in the same change as the kubeadm "
                    "Corefile: `kubeadm upgrade` migrates kube-system/coredns and re-creates the Deployment (dropping "
                    "the coredns-custom mount) while Flux applies the render for the new release",
                    "run `kubeadm upgrade` first and land this render right after it (or the other way round, "
                    "deliberately); check `kubectl -n kube-system get cm coredns -o yaml` afterwards", "metadata")


def check(change: Change) -> Iterator[Finding]:
    yield from change.invariant_findings(ID, SEVERITY, violations)
