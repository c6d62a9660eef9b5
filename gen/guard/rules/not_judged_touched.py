"""A change to a file that a Kustomization the guard could not judge may read: refused.

The guard cannot say what Flux would delete through a Kustomization it could not judge: its
source is not this repository as far as the clone knows (another URL, an OCI artifact of unknown
origin: it may be a mirror of this one), or it fails to build at both revisions here (a remote
base the runner cannot fetch, an env file kept out of git), or its parent failed and the guard
did not find it, or its build uses variables of a `substituteFrom` source the guard cannot read
(a SOPS-encrypted Secret, one not in the repository: gen/guard/flux/unread.py). In the cluster it keeps reconciling the new revision and pruning, so a change
to a file it may read fails closed. What "may read" means is gen/guard/unjudged.py: what its
builds read at base and head when it was built here, and conservatively any file under its
`spec.path` folder (or its failed parent's) when it was not. The finding
names the Kustomization, why it was not judged and what makes it judgeable.

The same holds for a Flux Operator ResourceSet the guard could not render (its inputs come from
an external service or cluster state, gen/guard/flux/resourcesets.py): a change to it, or to the
input provider that is not in git, changes what the operator applies and prunes, unjudged.

PASS: the change touches no file an unjudged Kustomization may read; or `--allow ks:<ns>/<name>`.
PASS: `deletionPolicy: Orphan` is added to a Kustomization whose source is another repository.
PASS: `apps` is built but not judged (a variable of a SOPS Secret reaches a prune marker) and the change
      deletes `apps/old/` or edits `apps/x/helmrelease.yaml`, which no kustomization file lists.
FAIL: Kustomization `dns` needs a remote base (no network here) and the change drops
      `coredns-custom.yaml` from `dns/kustomization.yaml` -> error at that file.
FAIL: a ResourceSet whose inputsFrom is a GitHubPullRequest provider changes its templates ->
      error at the file the change touches that its Kustomization's build reads.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Iterator

from gen.finding import Finding, Severity
from gen.guard.change import Change
from gen.guard.flux.sources import NO_BRANCH
from gen.guard.errortext import cause, clean_error, shorten
from gen.guard.model import KsRef, Revision
from gen.guard.unjudged import Unjudged

ID = "not-judged-touched"
SEVERITY = Severity.ERROR
_SHOWN = 3


def check(change: Change) -> Iterator[Finding]:
    if not change.changed:
        return
    for item in change.unjudged:
        judged = change.judged_reads.get(item.ks.cluster, set())
        files = [f for f in sorted(change.changed) if item.may_read(f) and (f in item.reads or f not in judged)]
        if files and _only_when_and_how(change, item.ks):
            spec_files = {w[0] for w in (change.locator.ks_source(label, item.ks) for label in ("base", "head")) if w}
            files = [f for f in files if f not in spec_files]
        if files:
            yield _finding(change, item, files)
    yield from _operator(change)


def _only_when_and_how(change: Change, ref: KsRef) -> bool:
    """Its spec changes only in when and how it applies (dependsOn, deletionPolicy, what its build
    is not sent: gen/guard/flux/fluxspec.py), or stops pruning or applying: what it applies and
    prunes is what it was, so an edit of its own file deletes nothing through it (adding
    `deletionPolicy: Orphan` to a Kustomization of another repository)."""
    old, new = change.base.nodes.get(ref), change.head.nodes.get(ref)
    if old is None or new is None:
        return False
    was, now = old.ks, new.ks
    if (now.prune and not was.prune) or (was.suspended and not now.suspended):
        return False
    return replace(now, prune=was.prune, suspended=was.suspended, deletion_policy=was.deletion_policy,
                   depends_on=was.depends_on) == was


def _operator(change: Change) -> Iterator[Finding]:
    """Flux Operator objects not rendered at either revision whose object the change alters."""
    unrendered: dict[tuple[str, str, str], str] = {}  # (cluster, kind, ns/name) -> why
    objects: dict[tuple[str, str, str], list[Any]] = {}  # -> [base object, head object]
    appliers: dict[tuple[str, str, str], KsRef] = {}
    for index, rev in enumerate((change.base, change.head)):
        for ref, node in sorted(rev.nodes.items()):
            for kind, name, why in node.build.operator:
                unrendered.setdefault((ref.cluster, kind, name), why)
            for key, obj in node.build.objects.items():
                if key.group == "fluxcd.controlplane.io":
                    entry = (ref.cluster, key.kind, f"{key.namespace}/{key.name}")
                    objects.setdefault(entry, [None, None])[index] = obj
                    appliers.setdefault(entry, ref)
    for entry, why in sorted(unrendered.items()):
        base, head = objects.get(entry, [None, None])
        if base == head:
            continue
        cluster, kind, name = entry
        by = appliers[entry]
        files = _read_by(change, by) or sorted(change.changed)[:1] or ["."]
        yield Finding(ID, SEVERITY, files[0], 1,
                      f"{kind} {name} (applied by Kustomization {by}) is not rendered here: {why}; this change "
                      f"{'adds' if base is None else 'removes' if head is None else 'changes'} it, so what the Flux "
                      f"Operator would create and delete through it is unknown: refused" + change.where(by),
                      f"review what it creates by hand; if the change is deliberate, allow it with --allow ks:{by}",
                      details={"kustomization": str(by), "cluster": cluster, "object": f"{kind} {name}",
                               "reason": why, "files": ", ".join(files)})


def _read_by(change: Change, ref: KsRef) -> list[str]:
    """The changed files the applying Kustomization's build reads (at either revision)."""
    revs: tuple[Revision, ...] = (change.head, change.base)
    read = {f for rev in revs if ref in rev.nodes for f in rev.nodes[ref].build.inputs}
    return [f for f in sorted(change.changed) if f in read]


def _finding(change: Change, item: Unjudged, files: list[str]) -> Finding:
    shown = ", ".join(files[:_SHOWN]) + (f" (+{len(files) - _SHOWN} more)" if len(files) > _SHOWN else "")
    reason = item.reason
    if item.error:
        trees = [tree.root for tree in change.locator.trees.values()]
        reason += f" ({shorten(cause(clean_error(item.error, trees, change.workdir)), 120)})"
    message = (f"Kustomization {item.ks} could not be judged: {reason}; this change touches "
               f"{len(files)} file{'s' if len(files) != 1 else ''} it may read ({shown}), so what Flux would delete "
               f"through it is unknown: refused") + change.where(item.ks)
    return Finding(ID, SEVERITY, files[0], 1, message, f"{_fix(item)}; or, if the change is deliberate, allow it with "
                   f"--allow ks:{item.ks}",
                   details={"kustomization": str(item.ks), "cluster": item.ks.cluster, "reason": item.reason,
                            "files": ", ".join(files)})


def _fix(item: Unjudged) -> str:
    """What makes the Kustomization judgeable."""
    if item.fix:
        return item.fix + ", and the guard judges it"
    kind, namespace, name = item.source
    if item.why == "source" and NO_BRANCH in item.reason:
        return ("run the guard with --base naming the branch its cluster syncs (`--base origin/<branch>`, not a "
                "commit), and the guard judges it")
    if item.why == "source":
        return (f"if {kind} {namespace}/{name} is this repository, name it in .coredns-gen.yaml guard.sources "
                f"([{{source: {kind}/{namespace}/{name}, path: <the folder its artifact is>}}]) or add its URL as a "
                f"git remote, and the guard judges it")
    if item.why == "network":
        return "run the guard where its remote bases can be fetched (network), or vendor them into the repository"
    return f"make `kubectl kustomize ./{item.path}` succeed at base and head here (commit what it reads)"
