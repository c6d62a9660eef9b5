"""The repository boundary: a build reads only files of its repository, as in Flux.

kustomize-controller builds inside the source artifact's root and refuses any path that leaves
it: an absolute path, a `..` past the root, a symlink pointing outside. The guard runs on a CI
runner, so a head commit with `files: [/etc/hostname]` in a configMapGenerator must not make it
read that file. Paths are judged lexically against git's own listing (symlinks are git entries of
mode 120000 whose target is text): nothing outside the repository is ever opened, or even looked
at, to decide.
"""

from __future__ import annotations

import posixpath
from typing import Mapping

MAX_LINKS = 40  # as the kernel's ELOOP limit: a longer chain is a loop


def _outside(path: str) -> bool:
    return posixpath.isabs(path) or path == ".." or path.startswith("../")


def real_path(links: Mapping[str, str], path: str) -> tuple[str | None, list[str]]:
    """The repo path `path` names once every symlink on it is followed, and the links followed.

    `links` maps each symlink's repo path to its target as written. None: the path leaves the
    repository (absolute, `..` past the root, or a link whose target does; a loop counts too).
    """
    if _outside(posixpath.normpath(path) if path else "."):
        return None, []
    pending = [p for p in posixpath.normpath(path).split("/") if p not in ("", ".")] if path else []
    resolved: list[str] = []
    followed: list[str] = []
    while pending:
        name = pending.pop(0)
        if name == "..":
            if not resolved:
                return None, followed
            resolved.pop()
            continue
        candidate = "/".join([*resolved, name])
        target = links.get(candidate)
        if target is None:
            resolved.append(name)
            continue
        followed.append(candidate)
        if len(followed) > MAX_LINKS or posixpath.isabs(target):
            return None, list(dict.fromkeys(followed))
        pending = [p for p in target.split("/") if p not in ("", ".")] + pending
    return "/".join(resolved), list(dict.fromkeys(followed))
