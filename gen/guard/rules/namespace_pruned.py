"""Flux would delete a Namespace that holds ConfigMaps or HelmReleases: refused like them.

A Namespace that kustomize-controller prunes is not one object gone: Kubernetes deletes every
object in it, so each ConfigMap the cluster's builds apply there is lost, and each HelmRelease
there is deleted too (helm-controller uninstalls its release); so is the release of a HelmRelease
written elsewhere whose `targetNamespace` or `storageNamespace` is that Namespace. A suspended
HelmRelease there whose `targetNamespace` is elsewhere does not count: helm-controller deletes it
without uninstalling its release. Those objects may stay in git:
Flux deletes the Namespace after applying them, and applies them again only once something
creates the Namespace anew. A Namespace that holds neither is a warning (object-pruned), and so
is `default`, `kube-system` or `kube-public`, which the API server never deletes.

PASS: the Namespace stays in its Kustomization's build; or nothing the base applies is in it.
FAIL: kustomize's `namespace:` is dropped from a kustomization.yaml, so its Namespace object
      `cluster-config` becomes `nginx` while ConfigMap cluster-config/redis-values is applied
      there -> error at that change, naming the ConfigMap.
"""

from __future__ import annotations

from typing import Iterator

from gen.finding import Finding, Severity
from gen.guard.change import Change
from gen.guard.diff import DELETED, safe_way

ID = "namespace-pruned"
SEVERITY = Severity.ERROR
_SHOWN = 3


def check(change: Change) -> Iterator[Finding]:
    for r in change.removed(DELETED):
        inside = change.held_in(r)
        if not inside:
            continue
        shown = ", ".join(k.ref for k in inside[:_SHOWN]) + (f" (+{len(inside) - _SHOWN} more)" if len(inside) > _SHOWN else "")
        yield change.removal_finding(
            ID, SEVERITY, r,
            f"{r.key.ref} would be deleted by Flux, and Kubernetes then deletes every object in it: {shown}"
            + (" (a HelmRelease's release is uninstalled)" if any(k.kind == "HelmRelease" for k in inside) else "")
            + f": {r.reason}; {r.details.get('cause', '')}",
            f"{r.hint}; {safe_way(r.key.id)}",
        )
