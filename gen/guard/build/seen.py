"""What a build saw of its artifact, and whether another artifact shows it the same.

kustomize's own file system tells which paths a build asked about (gen/guard/build/engine.py's
looks). Read against the artifact the build ran on, each look becomes a state: a file's git blob
id (or that it was missing, or a folder), whether a path was a file, a folder or missing, a
folder's names, or every file below a folder with its blob. A build is a pure function of its
Kustomization and what it saw, so wherever every look has the same state (the other revision,
a later run) the build is the same and is not run again; where one differs, it is rebuilt. A
look that left the artifact (a remote base) never matches: such a build is always rebuilt.
"""

from __future__ import annotations

import bisect
import hashlib
import posixpath

from gen.guard.build.engine import Look
from gen.guard.repo.revision import Tree

Seen = tuple[tuple[str, str, str], ...]  # (kind, path, state), sorted
_NEVER = "\0never"  # the state of a look that no artifact shows again


class Reader:
    """States of looks in one artifact, each computed once (base and head share most)."""

    def __init__(self, tree: Tree) -> None:
        self.tree = tree
        self._states: dict[Look, str] = {}
        self._sorted: list[str] | None = None

    def state(self, look: Look) -> str:
        found = self._states.get(look)
        if found is None:
            found = self._states[look] = self._compute(look)
        return found

    def _compute(self, look: Look) -> str:
        kind, path = look
        tree = self.tree
        if kind == "out":
            return _NEVER
        if kind == "file":
            state = tree.blobs.get(path) or ("/" if tree.is_dir(path) else "-")
        elif kind == "stat":
            state = "f" if path in tree.blobs else "d" if tree.is_dir(path) else "-"
        elif kind == "list":
            state = "\0".join(sorted(tree.entries.get(path, ()))) if tree.is_dir(path) else "-"
        elif kind == "tree":
            state = self._below(path)
        else:
            return _NEVER
        if tree.links:  # a symlink on the way: retargeting it changes what is read there
            state += "".join(f"\0{tree.blobs.get(p, '')}" for p in _ancestors(path) if p in tree.links)
        return state

    def _below(self, folder: str) -> str:
        """Every file below `folder` with its blob, as one digest (or the file itself)."""
        tree = self.tree
        if folder in ("", "."):
            folder = ""
        elif not tree.is_dir(folder):
            return tree.blobs.get(folder) or "-"
        if self._sorted is None:
            self._sorted = sorted(tree.blobs)
        lead = folder + "/" if folder else ""
        start = bisect.bisect_left(self._sorted, lead)
        digest = hashlib.sha1()
        for path in self._sorted[start:]:
            if not path.startswith(lead):
                break
            digest.update(f"{path[len(lead):]}\0{tree.blobs[path]}\n".encode())
        return digest.hexdigest()


def seen(reader: Reader, looks: list[Look]) -> Seen:
    """The build's looks with their states in the artifact it was built from."""
    return tuple(sorted((kind, path, reader.state((kind, path))) for kind, path in dict.fromkeys(looks)))


def holds(reader: Reader, what: Seen) -> bool:
    """Whether this artifact shows every look the same: then the build is the same here."""
    return all(state != _NEVER and reader.state((kind, path)) == state for kind, path, state in what)


def files_read(what: Seen) -> list[str]:
    """The artifact paths whose bytes the build read (files that exist)."""
    return sorted({path for kind, path, state in what if kind == "file" and state not in ("-", "/")})


def digest(what: Seen) -> str:
    """One id for what a build saw (with its key: the build's identity)."""
    h = hashlib.sha256()
    for kind, path, state in what:
        h.update(f"{kind}\0{path}\0{state}\n".encode())
    return h.hexdigest()


def _ancestors(path: str) -> list[str]:
    out = []
    while path:
        out.append(path)
        path = posixpath.dirname(path)
    return out
