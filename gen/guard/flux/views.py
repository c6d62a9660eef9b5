"""The artifacts Flux builds from: views of one revision of this repository.

kustomize-controller never reads a repository, it reads a source's *artifact*, and `spec.path`
is relative to that artifact's root. Three kinds of artifact are made of this repository:
- a GitRepository of it: the whole revision, less what source-controller ignores;
- an OCIRepository pushed from a folder of it (`flux push artifact --path=./kubernetes`):
  that folder as the root;
- an ExternalArtifact of an ArtifactGenerator (Flux 2.7): files copied from such sources by
  `copy: [{from: "@alias/glob", to: "@artifact/dir/"}]` as source-watcher's builder copies them
  (gen/guard/flux/generator.py).
Each view is a `Tree` whose paths are artifact paths and whose `repo_path` names the
repository file behind every one, so builds, fingerprints and findings all stay exact.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import shutil
from pathlib import Path

from gen.render.artifact import sparse_keeps
from gen.guard.flux import sourceignore
from gen.guard.flux.generator import Layout
from gen.guard.repo.revision import Tree, index_entries



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


def materialize(layout: Layout, dest: Path, commit: str, store: sourceignore.KeptStore | None = None) -> Tree:
    """An ArtifactGenerator's staged files laid out under `dest` (hard links where the filesystem
    allows) as a view: what its archive keeps (storage.Archive with SourceIgnoreFilter(nil, nil):
    every folder, and the files the default exclusions spare, the helper's answer)."""
    kept = sourceignore.archived(sorted(layout.files), store)
    blobs: dict[str, str] = {}
    moved: dict[str, str] = {}
    for folder in sorted(layout.folders):
        (dest / folder).mkdir(parents=True, exist_ok=True)
    for out, (view, path) in sorted(layout.files.items()):
        if out not in kept:
            continue
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
    entries = index_entries(blobs)
    for folder in layout.folders:  # an empty folder is in the archive: kustomize-controller finds it
        while folder:
            parent, _, leaf = folder.rpartition("/")
            entries.setdefault(folder, set())
            entries.setdefault(parent, set()).add(leaf)
            folder = parent
    return Tree(commit, dest, blobs, entries, moved=moved)
