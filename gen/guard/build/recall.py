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

from gen.guard.repo.revision import KUSTOMIZATION_FILES, Tree, flux_scan

@dataclass(frozen=True)
class Seen:
    """What one resolution of `path` looked at, and what it found.

    The looks (spec.path, each folder entered, every kustomization file name in those, so which
    one kustomize reads and whether it finds two, and every path found missing) are kept as the
    paths that were files, were not, were folders and were not: checking them in another tree is
    then four set comparisons in C, not a Python loop over each look (a fleet has ~35,000)."""

    path: str
    files: tuple[tuple[str, str], ...]  # (path, blob id) of every file read
    files_at: frozenset[str]
    no_files_at: frozenset[str]
    folders_at: frozenset[str]  # the repository root, always a folder, is left out
    no_folders_at: frozenset[str]
    listing: tuple[str, ...] | None  # what Flux's generated kustomization lists, when it is one
    links: tuple[tuple[str, str], ...]  # the tree's symlinks and their targets

    def holds_in(self, tree: Tree, links: tuple[tuple[str, str], ...]) -> bool:
        """Whether every look gives the same answer in `tree` (whose sorted links are `links`)."""
        return (links == self.links
                and self._file_items <= tree.blobs.items()  # every (path, blob) there: one C loop
                # (asked of the trees' key views: those iterate the smaller side, a frozenset the dict)
                and self.files_at <= tree.blobs.keys() and tree.blobs.keys().isdisjoint(self.no_files_at)
                and self.folders_at <= tree.entries.keys() and tree.entries.keys().isdisjoint(self.no_folders_at)
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
    looked = {m.rstrip("/") for m in missing | folders | kustomizations}
    files_at = frozenset(p for p in looked if p in tree.blobs)
    folders_at = frozenset(p for p in looked if p and tree.is_dir(p))
    return Seen(path,
                tuple((f, tree.blobs[f]) for f in files),
                files_at, frozenset(looked - files_at),
                folders_at, frozenset(p for p in looked if p and p not in folders_at),
                tuple(flux_scan(tree, path)) if generated else None,
                links)


def sorted_links(tree: Tree) -> tuple[tuple[str, str], ...]:
    return tuple(sorted(tree.links.items()))
