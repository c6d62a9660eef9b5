"""A cluster's bootstrap source moved to a revision this checkout does not hold: refused.

The change moves the bootstrap GitRepository (`spec.ref` from branch main to branch release, to a
tag or a commit; `spec.url` to another repository): once merged, the cluster syncs that revision,
not head, and Flux prunes whatever it lacks. Where this checkout has the revision, the guard
judges base -> it for the cluster (gen/guard/flux/moves.py) and reports what that finds; where it
does not (another repository, a branch not fetched, a semver range), nothing says what Flux would
delete, so the move is refused with the reason and how to make it judgeable.

PASS: the bootstrap GitRepository keeps its URL and ref; or moves to a branch, tag or commit this
      checkout has and whose content loses nothing; or `--allow ks:<root Kustomization>`.
FAIL: `ref: {branch: main}` -> `ref: {branch: release}` where no `release` branch is fetched ->
      error at the GitRepository's file.
"""

from __future__ import annotations

from typing import Iterator

from gen.finding import Finding, Severity
from gen.guard.change import Change
from gen.guard.flux.moves import SOURCE_GROUP
from gen.guard.model import ObjKey

ID = "bootstrap-source-moved"
SEVERITY = Severity.ERROR


def check(change: Change) -> Iterator[Finding]:
    for move in change.moves:
        if move.commit is not None:
            continue
        node = change.head.nodes[move.root]
        _, namespace, name = node.ks.source
        where = change.locator.object_source("head", node.build.inputs, ObjKey(namespace, name, SOURCE_GROUP, "GitRepository"))
        file, line = (where[0], where[2].get("spec.ref", where[1])) if where else (".", 1)
        yield Finding(ID, SEVERITY, file, line,
                      f"{move.source}, the source of Kustomization {move.root}, moves from {move.before} to "
                      f"{move.after}: once merged, the cluster syncs that revision, not this one, and it is not "
                      f"judged: {move.why}" + change.where(move.root),
                      f"{move.fix} and run the guard again; if the move is deliberate, allow it with --allow ks:{move.root}",
                      details={"kustomization": str(move.root), "cluster": move.root.cluster, "source": move.source,
                               "before": move.before, "after": move.after, "reason": move.why})
