"""A ConfigMap, HelmRelease or a Namespace holding them moves away from a Kustomization that is
deleted: refused.

When a pruning Kustomization is renamed (or removed) and its objects move to another one in the
same change, the parent deletes the old Kustomization and its finalizer deletes every object
still labelled as its own; fluxcd/pkg's ssa skips only objects whose live labels already name
another owner, and nothing orders that after the new Kustomization's first apply. A ConfigMap is
then gone until the new owner reconciles (DNS config of kube-system/coredns: an outage); a
HelmRelease is uninstalled with every object of its release; a Namespace takes every object in
it, the ConfigMaps and HelmReleases other Kustomizations apply there included (namespace-pruned's
count). Other kinds are `object-moved` warnings; a suspended HelmRelease too (helm-controller
skips its uninstall), and a Namespace holding neither.

PASS: the Kustomization keeps its name; or it had `prune: false`, or the object carried
      `kustomize.toolkit.fluxcd.io/prune: disabled`, at base.
FAIL: Kustomization `dns` (prune: true) becomes `coredns` with the same path -> error for
      ConfigMap kube-system/coredns-custom at the renamed Kustomization's line; Kustomization
      `namespaces` becomes `cluster-namespaces` while `apps` applies ConfigMaps in its Namespace
      `apps` -> error for the Namespace, naming them.
"""

from __future__ import annotations

from typing import Iterator

from gen.finding import Finding, Severity
from gen.guard.change import Change
from gen.guard.diff import MOVED

ID = "object-moved-deleted"
SEVERITY = Severity.ERROR
_SHOWN = 3


def check(change: Change) -> Iterator[Finding]:
    for r in change.removed(MOVED):
        inside = change.deleted_on_move(r)
        if inside is None:
            continue
        shown = ", ".join(k.ref for k in inside[:_SHOWN]) + (f" (+{len(inside) - _SHOWN} more)" if len(inside) > _SHOWN else "")
        yield change.removal_finding(
            ID, SEVERITY, r,
            f"{r.key.ref} moves from Kustomization {r.ks} to {r.moved_to}, and {r.ks} is deleted with prune: "
            f"true: its finalizer deletes the object unless {r.moved_to} has taken it over first, which nothing "
            f"orders" + (f", and Kubernetes then deletes every object in it: {shown}" if inside else ""),
            f"keep the Kustomization's name ({r.ks}) and move nothing; or first merge `kustomize.toolkit.fluxcd.io/"
            f"prune: disabled` on the object (or `prune: false` on {r.ks}) and let Flux apply it, then move it; "
            f"or allow it with --allow {r.key.id}",
        )
