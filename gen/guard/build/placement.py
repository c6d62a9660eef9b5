"""Put on disk only what a build reads, and know when a build saw less than its whole artifact.

A revision written whole for one build costs a fleet's thousands of files, while a build reads a
handful. A build whose reads a run already knows (an earlier build of the same Kustomization, in
this run or the build cache) is therefore sent with only those files and its spec.path's on disk.
kustomize's file system reports every question the build asked, found or not
(tools/helper/build/readfs.go): each one is answered here twice, as the disk answered it when
the build was sent (gen/guard/repo/checkout.py stamps every file and folder it puts there) and as
the whole artifact answers it. Where all agree the build saw exactly what the whole artifact
shows it, and since a build is a function of what it saw (the premise of every cached build,
gen/guard/build/seen.py) its result is the whole artifact's. Where one differs, the files that
answer it are put on disk and the build is sent again, until none differs (a fixpoint).
Anything this cannot answer (a symlink in the revision, an artifact that leaves files out, a
build that reported nothing) is built on the revision written whole, as before.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable

from gen.guard.repo.checkout import Checkout
from gen.guard.repo.revision import Tree

Look = tuple[str, str]  # gen/guard/build/engine.py's: (kind, artifact path)


class Below:
    """The files below a folder of one artifact, found through its folder index: a build's
    folders are small, and a fleet's whole list of paths is never sorted or scanned for them."""

    def __init__(self, tree: Tree) -> None:
        self.tree = tree

    def files(self, folder: str) -> list[str]:
        tree = self.tree
        if folder in tree.blobs:
            return [folder]
        out: list[str] = []
        stack = [folder] if tree.is_dir(folder) else []
        while stack:
            at = stack.pop()
            lead = at + "/" if at else ""
            for name in tree.entries.get(at, ()):
                path = lead + name
                if path in tree.blobs:
                    out.append(path)
                elif path in tree.entries:
                    stack.append(path)
        return out


def partial_checkout(tree: Tree) -> Checkout | None:
    """The revision whose files this artifact is, when it can be put on disk in part: the artifact
    is the revision or a folder of it with nothing left out (it shares the revision's checkout),
    the revision has no symlink (a link read on disk answers for its target), and the revision is
    not on disk whole already (then there is nothing to save)."""
    checkout = tree.checkout
    if isinstance(checkout, Checkout) and not checkout.tree.links and not checkout.unpacked:
        return checkout
    return None


def expected(below: Below, path: str, recorded: Iterable[Look]) -> set[str]:
    """The artifact files a build of `path` is expected to read: every file below its spec.path
    (Flux's generator walks it where there is no kustomization file), and what the earlier builds
    `recorded` read, listed or walked."""
    tree = below.tree
    out = set(below.files(path))
    for kind, look in recorded:
        if kind in ("file", "stat"):
            if look in tree.blobs:
                out.add(look)
        elif kind == "list":
            lead = look + "/" if look else ""
            out.update(lead + name for name in tree.entries.get(look, ()) if lead + name in tree.blobs)
        elif kind == "tree":
            out.update(below.files(look))
    return out


def unseen(below: Below, checkout: Checkout, looks: Iterable[Look], stamp: int) -> set[str]:
    """The artifact files to put on disk for each look the disk answered otherwise, when the build
    was sent (before `stamp`), than the whole artifact answers it; empty when every look agrees.

    Only files are ever added, so whatever the disk held while the build ran lies between what it
    held at `stamp` and the whole artifact: a look that agrees at both ends agreed throughout."""
    tree = below.tree
    missing: set[str] = set()

    def on_disk_file(path: str) -> bool:
        return checkout.file_before(tree.repo_path(path), stamp)

    def on_disk_folder(path: str) -> bool:
        return checkout.folder_before(tree.repo_path(path), stamp)

    def state(path: str) -> None:  # a file, a folder or nothing, as a stat answers
        if path in tree.blobs:
            if not on_disk_file(path):
                missing.add(path)
        elif tree.is_dir(path) and not on_disk_folder(path):
            missing.update(below.files(path))

    for kind, path in looks:
        if kind == "out":  # outside the artifact: Flux's secure file system never reads it there
            continue
        if kind not in ("file", "stat", "list", "tree"):  # a question this module does not know: all of it
            missing.update(f for f in below.files("") if not on_disk_file(f))
        elif kind in ("file", "stat") or path in tree.blobs or not tree.is_dir(path):
            state(path)
        elif kind == "list":
            if not on_disk_folder(path):
                missing.update(below.files(path))
                continue
            for name in tree.entries.get(path, ()):
                state(posixpath.join(path, name) if path else name)
        else:  # tree: every file below, with its bytes
            missing.update(f for f in below.files(path) if not on_disk_file(f))
    return missing
