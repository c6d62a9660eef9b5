"""The artifacts Flux builds from: views of one revision of this repository.

kustomize-controller never reads a repository, it reads a source's *artifact*, and `spec.path`
is relative to that artifact's root. Three kinds of artifact are made of this repository:
- a GitRepository of it: the whole revision, less what source-controller ignores;
- an OCIRepository pushed from a folder of it (`flux push artifact --path=./kubernetes`):
  that folder as the root;
- an ExternalArtifact of an ArtifactGenerator (Flux 2.7): files copied from such sources by
  `copy: [{from: "@alias/glob", to: "@artifact/dir/"}]`, in order, later copies overwriting.
Each view is a `Tree` whose paths are artifact paths and whose `repo_path` names the
repository file behind every one, so builds, fingerprints and findings all stay exact.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import re
import shutil
from pathlib import Path
from typing import Any, Callable

from gen.artifact import sparse_keeps
from gen.guard.flux import sourceignore
from gen.guard.repo.revision import Tree, index_entries

_GLOB = re.compile(r"[*?\[]")


def artifact(tree: Tree, prefix: str = "", spec_ignore: str | None = None,
             store: sourceignore.KeptStore | None = None, push: sourceignore.Push | None = None,
             sparse: tuple[str, ...] | None = None) -> Tree | None:
    """The artifact of `tree` (a revision) rooted at folder `prefix` (`push`: as `flux push artifact`
    pushes that folder; `sparse`: a GitRepository's sparseCheckout, `./` trimmed); None if no such folder.

    On disk it is the revision's own folder where nothing is ignored; where something is, it is
    a folder of its own holding exactly its files (kustomize must not read an ignored file that
    the revision's folder still has)."""
    prefix = prefix.strip("/")
    if prefix and not tree.is_dir(prefix):
        return None
    # a sparse checkout leaves files off the disk before source-controller reads a .sourceignore
    files = tree.blobs if sparse is None else {p: b for p, b in tree.blobs.items() if sparse_keeps(p, sparse)}
    links = tree.links if sparse is None else {p for p in tree.links if sparse_keeps(p, sparse)}
    ignored = sourceignore.matcher(files, tree.read, spec_ignore, prefix, links, store, push)
    lead = prefix + "/" if prefix else ""
    # source-controller's archive holds regular files only: "Ignore anything that is not a file or
    # directories e.g. symlinks" (fluxcd/pkg/artifact storage/archive.go, Archive), so a symlink
    # committed in git is not in the artifact kustomize-controller builds from.
    blobs = {p[len(lead):]: b for p, b in files.items()
             if p.startswith(lead) and p not in tree.links and not ignored(p)}
    # the folders that held a link are there, as the clone's walk archives every folder
    kept_folders = {posixpath.dirname(p[len(lead):]) for p in links if p.startswith(lead) and not ignored(p)}
    under = sum(1 for p in tree.blobs if p.startswith(lead)) if prefix else len(tree.blobs)
    if len(blobs) == under:  # nothing ignored: the revision's folders as they are
        return Tree(tree.commit, tree.root / prefix if prefix else tree.root, blobs,
                    tree.entries if not prefix else index_entries(blobs), {}, prefix=prefix,
                    checkout=tree.checkout)
    name = hashlib.sha256(f"{prefix}\0{spec_ignore}\0{push}\0{sparse}".encode()).hexdigest()[:16]
    entries = index_entries(blobs)
    for folder in kept_folders:
        while folder:
            parent, _, leaf = folder.rpartition("/")
            entries.setdefault(folder, set())
            entries.setdefault(parent, set()).add(leaf)
            folder = parent
    view = Tree(tree.commit, tree.root.with_name(f"{tree.root.name}.view-{name}"), blobs, entries, {},
                prefix=prefix)
    view.checkout = _ViewFiles(tree, view)
    return view


class _ViewFiles:
    """An artifact's files on disk: the revision unpacked, then each of the artifact's files linked
    (a hard link: no copy) into the artifact's own folder (it has no symlinks, as Flux's has none)."""

    def __init__(self, revision: Tree, view: Tree) -> None:
        self.revision = revision
        self.view = view
        self.unpacked = False

    def unpack(self) -> None:
        if self.unpacked:
            return
        # only the artifact's files of the revision are written (not its ignored images and archives)
        source = self.revision.place([self.view.repo_path(p) for p in self.view.blobs])
        self.view.root.mkdir(parents=True, exist_ok=True)  # an artifact with no file is still a folder
        for folder in self.view.entries:  # every folder, even one with no file of the artifact
            os.makedirs(self.view.root / folder, exist_ok=True)
        for path in self.view.blobs:
            os.link(source / self.view.repo_path(path), self.view.root / path)
        self.unpacked = True

    def place(self, paths: list[str]) -> None:
        self.unpack()

    def blob(self, blob: str) -> bytes:
        if self.revision.checkout is not None:
            return self.revision.checkout.blob(blob)
        path = next(p for p, b in self.view.blobs.items() if b == blob)  # a revision on disk: by its path
        return self.revision.read(self.view.repo_path(path))

    def close(self) -> None:
        pass


def _matches(pattern: str) -> Callable[[str], bool]:
    """ArtifactGenerator globs: `*` within one folder, `**` across folders."""
    out = ""
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out += "(?:.*/)?"
            i += 3
        elif pattern.startswith("**", i):
            out += ".*"
            i += 2
        elif pattern[i] == "*":
            out += "[^/]*"
            i += 1
        elif pattern[i] == "?":
            out += "[^/]"
            i += 1
        else:
            out += re.escape(pattern[i])
            i += 1
    compiled = re.compile(out + r"\Z")
    return lambda path: compiled.match(path) is not None


def copy_plan(sources: dict[str, Tree], copies: list[Any]) -> dict[str, tuple[Tree, str]] | str:
    """Artifact path -> (source view, path in it) for an ArtifactGenerator's `copy` list, or why
    it cannot be made (an alias with no source of this repository)."""
    plan: dict[str, tuple[Tree, str]] = {}
    for op in copies:
        if not isinstance(op, dict):
            continue
        src, dest = str(op.get("from") or ""), str(op.get("to") or "")
        if not src.startswith("@") or not dest.startswith("@artifact/"):
            return f"copy entry from {src!r} to {dest!r} is not @alias/... to @artifact/..."
        alias, _, pattern = src[1:].partition("/")
        if alias not in sources:
            return f"alias @{alias} is not a source of this repository"
        view = sources[alias]
        target = dest[len("@artifact/"):]
        excludes = [_matches(str(e)) for e in (op.get("exclude") or []) if isinstance(e, str)]
        glob_at = _GLOB.search(pattern)
        folder = posixpath.normpath(pattern) if pattern.strip("/") else ""
        if glob_at is None and folder and view.is_dir(folder):
            # a folder without a glob is copied as cp -r copies it: into `to`, under its own name
            # (source-watcher's applySingleDirectoryCopy)
            lead = folder + "/"
            for path in sorted(p for p in view.blobs if p.startswith(lead)):
                rel = path[len(lead):]
                if not any(ex(rel) or ex(path) for ex in excludes):
                    plan[posixpath.normpath(posixpath.join(target, posixpath.basename(folder), rel))] = (view, path)
            continue
        match = _matches(pattern)
        stem = pattern[:glob_at.start()].rsplit("/", 1)[0] if glob_at and "/" in pattern[:glob_at.start()] else ""
        for path in sorted(view.blobs):
            if not match(path) or any(ex(path) for ex in excludes):
                continue
            if glob_at is None:  # one file: `to` is its new name, or the folder it goes into
                out = posixpath.join(target, posixpath.basename(path)) if target.endswith("/") or not target else target
            else:
                out = posixpath.join(target, path[len(stem):].lstrip("/") if stem else path)
            plan[posixpath.normpath(out)] = (view, path)
    return plan


def materialize(plan: dict[str, tuple[Tree, str]], dest: Path, commit: str) -> Tree:
    """Lay a copy plan out under `dest` (hard links where the filesystem allows) as a view."""
    blobs: dict[str, str] = {}
    moved: dict[str, str] = {}
    for out, (view, path) in sorted(plan.items()):
        target = dest / out
        target.parent.mkdir(parents=True, exist_ok=True)
        source = view.on_disk() / path
        try:
            os.link(source, target)
        except OSError:
            shutil.copyfile(source, target)
        blobs[out] = view.blobs[path]
        moved[out] = view.repo_path(path)
    dest.mkdir(parents=True, exist_ok=True)
    return Tree(commit, dest, blobs, index_entries(blobs), moved=moved)
