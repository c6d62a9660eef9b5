"""An object moves from one Flux Kustomization to another with nothing ordering the new owner
first: a warning.

The old Kustomization garbage-collects it if it reconciles before the new one takes the object
over (Flux only deletes objects still labelled as its own), so the object can vanish for one
reconcile interval. Harmless for most kinds. A ConfigMap or HelmRelease (or a Namespace or a
Kustomization holding one) is refused instead: object-moved-deleted when the old Kustomization
is deleted in the same change (its finalizer deletes it), object-moved-pruned when it stays and
prunes. A move the old Kustomization's `dependsOn` orders (Change.move_ordered) is no finding.

PASS: the object stays where it was; or Kustomization `platform` dependsOn `dns` at base and head.
FAIL: Service kube-system/dns-metrics moves from Kustomization `platform` to `dns` -> warning.
"""

from __future__ import annotations

from typing import Iterator

from gen.finding import Finding, Severity
from gen.guard.change import Change
from gen.guard.diff import MOVED

ID = "object-moved"
SEVERITY = Severity.WARNING


def check(change: Change) -> Iterator[Finding]:
    for r in change.removed(MOVED):
        if change.deleted_on_move(r) is not None or change.pruned_on_move(r) is not None:
            continue  # refused by object-moved-deleted or object-moved-pruned
        if change.move_ordered(r):
            continue
        yield change.removal_finding(
            ID, SEVERITY, r,
            f"{r.key.ref} moves from Kustomization {r.ks} to {r.moved_to}: {r.reason}",
            f"annotate it `kustomize.toolkit.fluxcd.io/prune: disabled` in one change, move it in the next, or make "
            f"{r.ks} `dependsOn` {r.moved_to}; {r.hint}",
        )
