"""A cluster's bootstrap source that the change moves: once merged, the cluster syncs another revision.

The guard judges head as the revision a cluster syncs after the merge. A change that moves the
bootstrap GitRepository itself (`spec.ref` to another branch, a tag or a commit; `spec.url` to
another repository) makes source-controller fetch that revision instead, and kustomize-controller
then applies and prunes what *it* holds, which head need not. Where this checkout has that
revision (a tag, a commit, the branch in a remote of that URL, or locally when the URL is still
this repository), gen/guard/__init__.py judges base -> that commit for the cluster as well; where
it does not, the move is not judged and refused (gen/guard/rules/bootstrap_source_moved.py).
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gen.guard.flux.sources import git_revision
from gen.guard.model import KsRef, ObjKey, Revision
from gen.guard.repo.revision import normalize_url
from gen.tools import git_binary

SOURCE_GROUP = "source.toolkit.fluxcd.io"


@dataclass(frozen=True)
class Move:
    """One cluster whose bootstrap source points elsewhere at head than at base."""

    root: KsRef
    source: str  # "GitRepository flux-system/flux-system"
    before: str  # "branch main of example.com/o/fleet"
    after: str
    commit: str | None  # the commit the cluster syncs after the merge, when this checkout has it
    why: str  # why it is not judged (commit None)
    fix: str = ""  # what makes it judgeable (commit None)


def _spec(rev: Revision, root: KsRef, key: ObjKey) -> dict[str, Any] | None:
    """The source object's spec as the cluster's builds at `rev` write it (None: none does): the
    root's own build first (gotk-sync.yaml), else its cluster's other builds in name order."""
    nodes = [rev.nodes[root]] + [node for ref, node in sorted(rev.nodes.items()) if ref.cluster == root.cluster
                                 and ref != root and node.root == root] \
        if key not in rev.nodes[root].build.objects else [rev.nodes[root]]
    for node in nodes:
        if key in node.build.objects:
            spec = node.build.objects[key].get("spec")
            return spec if isinstance(spec, dict) else {}
    return None


def _spelled(url: str, revision: tuple[str, str]) -> str:
    kind, value = revision
    return f"{kind} {value} of {url}" if value else f"no ref (the default branch) of {url}"


def find_moves(base: Revision, head: Revision, repo: Path, remotes: set[str], touched: set[str] | None) -> list[Move]:
    """The clusters (among `touched`) whose bootstrap GitRepository's URL or ref differs."""
    out = []
    for root in sorted(set(base.roots) & set(head.roots)):
        bnode, hnode = base.nodes.get(root), head.nodes.get(root)
        if bnode is None or hnode is None or (touched is not None and root.cluster not in touched):
            continue
        kind, namespace, name = hnode.ks.source
        if kind != "GitRepository" or bnode.ks.source != hnode.ks.source:
            continue
        key = ObjKey(namespace, name, SOURCE_GROUP, "GitRepository")
        before, after = _spec(base, root, key), _spec(head, root, key)
        if before is None or after is None:
            continue
        old = (normalize_url(str(before.get("url") or "")), git_revision(before.get("ref") or {}))
        new = (normalize_url(str(after.get("url") or "")), git_revision(after.get("ref") or {}))
        if old == new:
            continue
        ours = new[0] == old[0] or new[0] in remotes
        commit, why, fix = synced_commit(repo, str(after.get("url") or ""), new[1], ours)
        out.append(Move(root, f"GitRepository {namespace}/{name}", _spelled(old[0], old[1]), _spelled(new[0], new[1]),
                        commit, why, fix))
    return out


def _remote_names(repo: Path, url: str) -> list[str]:
    """The remotes of this checkout whose URL is `url` (any spelling)."""
    proc = subprocess.run([git_binary(), "-C", str(repo), "remote", "-v"], capture_output=True, text=True, check=False)
    wanted = normalize_url(url)
    return sorted({parts[0] for line in proc.stdout.splitlines() if len(parts := line.split()) >= 2
                   and normalize_url(parts[1]) == wanted})


def _commit(repo: Path, name: str) -> str | None:
    proc = subprocess.run([git_binary(), "-C", str(repo), "rev-parse", "--verify", "--quiet", "--end-of-options",
                           f"{name}^{{commit}}"], capture_output=True, text=True, check=False)
    return proc.stdout.strip() or None if proc.returncode == 0 else None


def synced_commit(repo: Path, url: str, revision: tuple[str, str], ours: bool) -> tuple[str | None, str, str]:
    """(the commit a GitRepository of `url` at `revision` fetches, as this checkout has it, or
    None, why not and what would make it judgeable). `ours`: the URL is this repository (its
    bootstrap URL or a remote), so its local branches and tags are that repository's."""
    kind, value = revision
    remotes = _remote_names(repo, url)
    if not ours and not remotes:
        return None, f"{url or 'its URL'} is another repository, which this checkout does not hold", \
            "add it as a remote and fetch the ref (git remote add, git fetch)"
    if kind == "branch" and value:
        names = [f"refs/remotes/{r}/{value}" for r in remotes] + ([f"refs/heads/{value}"] if ours else [])
    elif kind == "tag" and value:
        names = [f"refs/tags/{value}"]
    elif kind == "commit" and value:
        names = [value]
    elif kind == "name" and value.startswith("refs/"):
        names = [value] + [f"refs/remotes/{r}/{value[len('refs/'):]}" for r in remotes]
    elif kind == "semver":
        return None, f"semver {value!r} picks the highest matching tag of the remote, which this checkout may not hold", \
            "pin a tag or a commit while the move is reviewed"
    else:
        return None, "it names no branch, tag or commit this checkout can look up", "name a branch, tag or commit"
    for name in names:
        commit = _commit(repo, name)
        if commit is not None:
            return commit, "", ""
    fetch = f"git fetch origin {value}:refs/remotes/origin/{value}" if kind == "branch" else \
        f"git fetch origin tag {value}" if kind == "tag" else f"git fetch origin {value}"
    return None, f"{kind} {value} is not in this checkout", f"fetch it (`{fetch}`)"
