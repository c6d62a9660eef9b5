"""The repository boundary: every path coredns-gen reads or writes, resolved, inside the repo, outside `.git`.

One function decides for every command and every kind of path (values files, `.coredns-gen.yaml`,
its globs' matches, rendered outputs, journal entries, `new -o`), so no caller compares an
unresolved spelling: a path is resolved with every symlink followed (`os.path.realpath`, which
also folds `..` inside a symlink's target) and must then lie under the repository's real root
(a root that is itself a symlink is resolved too) and have no `.git` component, in any case
(`.GIT` is the same folder on a case-insensitive file system, and git reads hooks from it).
Anything else is bad input (exit 2) and the caller never opens it.

Resolution is repeated on every call and never cached across runs: a cache would answer for a
folder that was swapped for a symlink since. Within one run a folder is resolved once.
"""

from __future__ import annotations

import os
import posixpath
from pathlib import Path

from gen.errors import GenError, Problem, UsageError

GIT = ".git"


class Outside(Exception):
    """Why a path is refused (a message part: "resolves outside the repository (/x/y)")."""


class Boundary:
    """The real root of one repository and the check every path goes through."""

    def __init__(self, repo: Path | str) -> None:
        self.root = os.path.realpath(repo)
        self._inside = self.root.rstrip(os.sep) + os.sep
        self._folders: dict[str, str] = {}

    @classmethod
    def of(cls, repo: "Path | str | Boundary") -> "Boundary":
        return repo if isinstance(repo, Boundary) else cls(repo)

    def why_not(self, real: str) -> str | None:
        """None when the resolved path `real` is inside and outside `.git`, else why not."""
        if real == self.root:
            return None
        if not real.startswith(self._inside):
            return f"resolves outside the repository ({real})"
        if any(part.lower() == GIT for part in real[len(self._inside):].split(os.sep)):
            return "resolves into a .git folder, which holds git's own files (and hooks it runs)"
        return None

    def real(self, path: Path | str) -> str:
        """The resolved absolute path of `path` (relative: to the repo root).

        Raises:
            Outside: it resolves outside the repository or into `.git`.
        """
        real = os.path.realpath(os.path.join(self.root, path))
        why = self.why_not(real)
        if why is not None:
            raise Outside(why)
        return real

    def real_rel(self, rel: str) -> str:
        """`real` for a repo-relative POSIX path, resolving each folder once per run (a fleet
        writes thousands of files in a few hundred folders)."""
        folder, name = posixpath.split(rel)
        base = self._folders.get(folder)
        if base is None:
            base = self._folders[folder] = os.path.realpath(os.path.join(self.root, folder))
        why = self.why_not(base)
        if why is None and name not in ("", ".", ".."):
            target = os.path.join(base, name)
            if os.path.islink(target):
                target = os.path.realpath(target)
            why = self.why_not(target)
            if why is None:
                return target
        if why is None:
            return self.real(rel)
        raise Outside(why)

    def relative(self, real: str) -> str:
        """The repo-relative POSIX spelling of a resolved path inside."""
        return "." if real == self.root else real[len(self._inside):].replace(os.sep, "/")


def inside(repo: Path | str | Boundary, path: Path | str, *, shown: str, key: str | None = None,
           error: type[GenError] = UsageError, hint: str = "keep it inside the repository, as a regular file or folder "
                                                            "(not a symlink that leads out, not under .git)") -> str:
    """The resolved path of `path` when it may be read or written, else `error` (exit 2).

    Raises:
        error: it resolves outside the repository or into `.git`; nothing was opened.
    """
    boundary = Boundary.of(repo)
    try:
        return boundary.real(path)
    except Outside as why:
        raise error(Problem(str(why), file=shown, key=key, hint=hint)) from None
