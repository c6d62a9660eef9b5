"""bootstrap-source-moved, from the bootstrap moves gen/guard/flux/moves.py found, in memory."""

from __future__ import annotations

from gen.finding import Severity
from gen.guard.flux.moves import SOURCE_GROUP, Move
from gen.guard.model import ObjKey
from tests.guard.rules.change_builder import CLUSTER, ROOT, Ks, change, findings

SOURCE = ObjKey("flux-system", "flux-system", SOURCE_GROUP, "GitRepository")
WRITTEN = {SOURCE: (CLUSTER, 14)}  # gotk-sync.yaml's GitRepository, at its spec.ref


def _moved(commit: str | None) -> Move:
    return Move(ROOT, "GitRepository flux-system/flux-system", "branch main of example.invalid/fleet",
                "branch release of example.invalid/fleet", commit,
                "" if commit else "branch release is not in this checkout",
                "" if commit else "fetch it (`git fetch origin release:refs/remotes/origin/release`)")


def test_a_bootstrap_moved_to_a_revision_this_checkout_lacks_is_refused_at_its_source():
    [found] = findings(change([Ks("dns")], [Ks("dns")], moves=[_moved(None)], written=WRITTEN), "bootstrap-source-moved")
    assert (found.severity, found.file, found.line) == (Severity.ERROR, CLUSTER, 14)
    assert ("GitRepository flux-system/flux-system, the source of Kustomization flux-system/flux-system, moves from "
            "branch main of example.invalid/fleet to branch release of example.invalid/fleet") in found.message
    assert "branch release is not in this checkout" in found.message
    assert found.hint.startswith("fetch it (`git fetch origin release:refs/remotes/origin/release`) and run the guard")
    assert found.hint.endswith(f"--allow ks:{ROOT}")
    assert (found.details["kustomization"], found.details["after"]) == (str(ROOT), "branch release of example.invalid/fleet")


def test_a_bootstrap_moved_to_a_commit_this_checkout_holds_is_judged_there_not_refused():
    assert findings(change([Ks("dns")], [Ks("dns")], moves=[_moved("0" * 40)], written=WRITTEN),
                    "bootstrap-source-moved") == []
    assert findings(change([Ks("dns")], [Ks("dns")]), "bootstrap-source-moved") == []
