"""An object moves from one Flux Kustomization to another: a warning.

The old Kustomization garbage-collects it if it reconciles before the new one takes the object
over (Flux only deletes objects still labelled as its own), so the object can vanish for one
reconcile interval. Harmless for most kinds. A ConfigMap or HelmRelease (or a Namespace holding
one) whose old Kustomization is deleted in the same change is refused instead
(object-moved-deleted): its finalizer deletes it.

PASS: the object stays where it was.
FAIL: kube-system/coredns-custom moves from Kustomization `dns` to `platform` -> warning.
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
        if change.deleted_on_move(r) is not None:
            continue  # refused by object-moved-deleted
        yield change.removal_finding(
            ID, SEVERITY, r,
            f"{r.key.ref} moves from Kustomization {r.ks} to {r.moved_to}: {r.reason}",
            f"annotate it `kustomize.toolkit.fluxcd.io/prune: disabled` in one change, move it in the next; {r.hint}",
        )
