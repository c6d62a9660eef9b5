"""Which files mention some byte strings, remembered by blob id for the whole run.

Most of a fleet's files are never parsed because they cannot hold what is sought (a Flux
Kustomization, a source object, a named ConfigMap); a revision's scans ask this instead of
reading each file, and base and head, which share almost every blob, each file once.
"""

from __future__ import annotations

from typing import Callable

from gen.guard.repo.revision import Tree

Marked = Callable[[Tree, str, tuple[bytes, ...]], bool]


class Marks:
    """`marks(tree, path, strings)`: whether the file at `path` mentions any of `strings`."""

    def __init__(self) -> None:
        self._seen: dict[tuple[str, tuple[bytes, ...]], bool] = {}

    def __call__(self, tree: Tree, path: str, marks: tuple[bytes, ...]) -> bool:
        if path in tree.links:  # read through the link: its target's content, not its own blob
            data = tree.read(path)
            return any(m in data for m in marks)
        key = (tree.blobs[path], marks)
        found = self._seen.get(key)
        if found is None:
            data = tree.read(path)
            found = self._seen[key] = any(m in data for m in marks)
        return found
