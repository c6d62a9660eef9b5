"""A `.sourceignore` change that hides files Flux builds from is refused at its own line.

source-controller leaves every file a `.sourceignore` pattern matches out of the artifact, so a
two-line edit can take a whole overlay away from kustomize-controller: its Kustomization stops
building, or its objects leave the build and are pruned. The other rules see only the effect,
at files the change never touched (the Kustomization's own file, each pruned object's), and a
field report got 19 errors and 192 warnings none of which named `.sourceignore`. This rule names
the cause: for each `.sourceignore` the change edits, the files it newly hides (ignored at head,
not at base; the same ignore rules the guard applies, gen/guard/flux/sourceignore.py) that a
base build read or that lie under a head Kustomization's `spec.path`, at the pattern's line.

PASS: a `.sourceignore` that hides only files no build reads (docs/, *.md).
FAIL: `overlays/` added while Kustomization `dns` builds ./overlays/k3s/prod -> error at that line.
"""

from __future__ import annotations

import posixpath
from typing import Iterator

from gen.finding import Finding, Severity
from gen.guard.change import Change
from gen.guard.flux import sourceignore
from gen.guard.repo.revision import Tree

ID = "sourceignore-hides"
SEVERITY = Severity.ERROR
_SHOWN = 5  # hidden files named in the message; the rest are counted


def _hidden(tree: Tree) -> set[str]:
    ignored = sourceignore.matcher(tree.blobs, tree.read)
    return {p for p in tree.blobs if ignored(p)}


def _needed(change: Change) -> set[str]:
    """Files Flux builds from: what base builds read, and what lies under a head spec.path."""
    def mine(cluster: str) -> bool:  # under --shard, only this shard's clusters
        return change.touched is None or cluster in change.touched

    out = {p for ref, node in change.base.nodes.items() if mine(ref.cluster) for p in node.build.inputs}
    head_tree = change.locator.trees["head"]
    roots = {node.ks.path for ref, node in change.head.nodes.items()
             if mine(ref.cluster) and node.view == "git" and not node.external}
    for path in head_tree.blobs:
        if any(not r or path == r or path.startswith(r + "/") for r in roots):
            out.add(path)
    return out


def _line_of(tree: Tree, path: str, hidden: set[str]) -> tuple[int, str]:
    """The first line of `path` whose pattern alone hides one of `hidden` (1, "" when none does)."""
    folder = posixpath.dirname(path)
    lines = tree.read(path).decode("utf-8", "replace").splitlines()
    for number, raw in enumerate(lines, 1):
        text = raw.strip()
        if not text or text.startswith(("#", "!")):
            continue
        if sourceignore.line_hides(text, folder, hidden):
            return number, text
    return 1, ""


def check(change: Change) -> Iterator[Finding]:
    trees = change.locator.trees
    edited = sorted(p for p in change.changed if posixpath.basename(p) == sourceignore.IGNORE_FILE
                    and p in trees["head"].blobs)
    if not edited:
        return
    newly = _hidden(trees["head"]) - _hidden(trees["base"])
    hidden = sorted(newly & _needed(change))
    if not hidden:
        return
    for path in edited:
        folder = posixpath.dirname(path)
        mine = [p for p in hidden if not folder or p.startswith(folder + "/")]
        if not mine:
            continue
        line, pattern = _line_of(trees["head"], path, set(mine))
        yield _finding(path, line, pattern, mine)


def _finding(path: str, line: int, pattern: str, hidden: list[str]) -> Finding:
    names = ", ".join(hidden[:_SHOWN]) + (f" and {len(hidden) - _SHOWN} more" if len(hidden) > _SHOWN else "")
    said = f" pattern `{pattern}`" if pattern else ""
    return Finding(ID, SEVERITY, path, line,
                   f"{path}{said} hides {len(hidden)} file(s) Flux builds from: {names}; source-controller leaves them "
                   "out of the artifact, so the Kustomizations reading them stop building or prune what they "
                   "applied (the findings at those Kustomizations are this change's effect)",
                   "remove the pattern or narrow it so it matches none of these files; to retire them on purpose, "
                   "first remove or suspend the Kustomizations that read them",
                   details={"hidden": ",".join(hidden), "pattern": pattern})


def merged(findings: list[Finding]) -> list[Finding]:
    """The shards' findings of one `.sourceignore` as one run gives it: each shard names what its
    own clusters build from, so the files are their union, and the line is the first that hides
    any of them (the lowest of the shards' lines, with its pattern)."""
    by_file: dict[str, list[Finding]] = {}
    for f in findings:
        by_file.setdefault(f.file, []).append(f)
    out = []
    for path, found in sorted(by_file.items()):
        first = min(found, key=lambda f: f.line)
        hidden = sorted({h for f in found for h in f.details.get("hidden", "").split(",") if h})
        out.append(_finding(path, first.line, first.details.get("pattern", ""), hidden))
    return out
