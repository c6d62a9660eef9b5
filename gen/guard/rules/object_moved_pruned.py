"""A ConfigMap, HelmRelease, or a Namespace or Kustomization holding them, moves away from a
Kustomization that stays and prunes, with nothing ordering the new owner first: refused.

The old Kustomization's next reconcile deletes every object of its last inventory whose live
labels still name it (fluxcd/pkg ssa skips only those another owner has relabelled). Both
Kustomizations start on the same new revision, and whichever runs first wins: if the old one
does, the object is deleted until the new one re-creates it (kube-system/coredns: DNS down for
the cluster; a HelmRelease: `helm uninstall` of its release; a Namespace: everything in it; a
Kustomization: what its finalizer deletes). One rule for every move (object-moved-deleted when
the old Kustomization is deleted, which no `dependsOn` can order): the move passes when the
object carried `kustomize.toolkit.fluxcd.io/prune: disabled` at base, or when the old
Kustomization `dependsOn` the new one at base and head, reading the same source (kustomize-
controller then waits until the new one has applied the revision). Other kinds are
`object-moved` warnings.

PASS: ConfigMap kube-system/coredns moves from `apps` to `coredns`, and `apps` dependsOn
      `coredns` at base and head; or the ConfigMap carried prune: disabled at base.
FAIL: ConfigMap kube-system/coredns moves from `apps` (prune: true) to the new `coredns` in one
      commit -> error at the file that held it.
"""

from __future__ import annotations

from typing import Iterator

from gen.finding import Finding, Severity
from gen.guard.change import Change
from gen.guard.diff import MOVED

ID = "object-moved-pruned"
SEVERITY = Severity.ERROR
_SHOWN = 3


def check(change: Change) -> Iterator[Finding]:
    for r in change.removed(MOVED):
        lost = change.pruned_on_move(r)
        if lost is None:
            continue
        shown = ", ".join(k.ref for k in lost[:_SHOWN]) + (f" (+{len(lost) - _SHOWN} more)" if len(lost) > _SHOWN else "")
        yield change.removal_finding(
            ID, SEVERITY, r,
            f"{r.key.ref} moves from Kustomization {r.ks} to {r.moved_to} in one change, and {r.ks} prunes: whichever "
            f"reconciles first decides, and if {r.ks} does it deletes the object until {r.moved_to} re-creates it"
            + (f", and with it {shown}" if lost else ""),
            f"move it in two commits: first merge `kustomize.toolkit.fluxcd.io/prune: disabled` on it where {r.ks} "
            f"applies it and let Flux apply that, then move it (docs/migrate.md); or, when both already exist, make "
            f"{r.ks} `dependsOn` {r.moved_to} first; or allow it with --allow {r.key.id}",
        )
