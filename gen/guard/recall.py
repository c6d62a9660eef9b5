"""Inputs resolved once, recalled at the other revision when nothing they were read from changed.

Resolving what a Flux Kustomization reads parses its kustomization files and follows every
reference; a fleet has thousands, and base and head share almost all of them. A resolution
depends only on what it looked at: the blob id of every file it read, whether each path it
found missing is still missing (and still not a folder), each folder it entered still a folder
with the same kustomization files (which one kustomize reads, and whether it finds two), for a
spec.path Flux generates a kustomization for, what it lists there, and
the tree's symlinks (a new one can make a missing path resolve).
`Seen` records exactly that, and a resolution is reused in another tree only when every one of
those looks gives the same answer there: a recalled result is the result.
"""

from __future__ import annotations

import functools
from collections.abc import ItemsView
from dataclasses import dataclass

from gen.guard.revision import KUSTOMIZATION_FILES, Tree, flux_scan

Look = tuple[bool, bool]  # (a file there, a folder there)


@dataclass(frozen=True)
class Seen:
    """What one resolution of `path` looked at, and what it found."""

    path: str
    files: tuple[tuple[str, str], ...]  # (path, blob id) of every file read
    # spec.path, each folder entered, every kustomization file name in those (so which one kustomize
    # reads, and whether it finds two), and every path found missing: what was there
    looks: tuple[tuple[str, Look], ...]
    listing: tuple[str, ...] | None  # what Flux's generated kustomization lists, when it is one
    links: tuple[tuple[str, str], ...]  # the tree's symlinks and their targets

    def holds_in(self, tree: Tree, links: tuple[tuple[str, str], ...]) -> bool:
        """Whether every look gives the same answer in `tree` (whose sorted links are `links`)."""
        return (links == self.links
                and self._file_items <= tree.blobs.items()  # every (path, blob) there: one C loop
                and all(_look(tree, path) == look for path, look in self.looks)
                and (self.listing is None or self.listing == tuple(flux_scan(tree, self.path))))

    @functools.cached_property
    def _file_items(self) -> ItemsView[str, str]:
        return dict(self.files).items()


def seen(tree: Tree, links: tuple[tuple[str, str], ...], path: str, files: set[str], missing: set[str]) -> Seen:
    """The looks of the resolution of spec.path `path` in `tree` that read `files` and missed `missing`."""
    folders = {folder for folder, _, name in (f.rpartition("/") for f in files | missing) if name in KUSTOMIZATION_FILES}
    generated = tree.is_dir(path) and path not in tree.blobs and tree.kustomization_file(path) is None
    folders.add(path)
    # every folder entered must stay a folder, with no kustomization file appearing beside its own
    kustomizations = {f"{d}/{n}" if d else n for d in folders for n in KUSTOMIZATION_FILES}
    return Seen(path,
                tuple((f, tree.blobs[f]) for f in files),
                tuple((m, _look(tree, m)) for m in missing | folders | kustomizations),
                tuple(flux_scan(tree, path)) if generated else None,
                links)


def sorted_links(tree: Tree) -> tuple[tuple[str, str], ...]:
    return tuple(sorted(tree.links.items()))


def _look(tree: Tree, path: str) -> Look:
    bare = path.rstrip("/")
    return bare in tree.blobs, tree.is_dir(bare)
