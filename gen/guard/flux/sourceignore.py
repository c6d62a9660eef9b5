"""What a Flux artifact holds: source-controller's ignore rules applied to a revision.

source-controller never puts every file of a repository into the artifact kustomize-controller
builds from: it drops VCS files, CI configuration and binary files by default, or the patterns
of `GitRepository.spec.ignore` instead of those defaults, and every `.sourceignore` file's
patterns on top (gitignore syntax, each relative to its own folder). A file the artifact lacks
cannot be built, listed by a generated kustomization.yaml, or be a root, so the guard applies
the same rules before it looks at a revision.
"""

from __future__ import annotations

import functools
import posixpath
from typing import TYPE_CHECKING, Callable, Iterable

if TYPE_CHECKING:
    import pathspec

IGNORE_FILE = ".sourceignore"
# source-controller's defaults (fluxcd/pkg sourceignore: ExcludeVCS, ExcludeExt, ExcludeCI,
# ExcludeExtra). The VCS patterns apply always; the rest only when spec.ignore is not set.
VCS = (".git/", ".gitignore", ".gitmodules", ".gitattributes")
DEFAULTS = (
    "*.jpg", "*.jpeg", "*.gif", "*.png", "*.wmv", "*.flv", "*.tar.gz", "*.zip",
    ".github/", ".circleci/", ".travis.yml", ".gitlab-ci.yml", "appveyor.yml", ".drone.yml",
    "cloudbuild.yaml", "codeship-services.yml", "codeship-steps.yml",
    "**/.goreleaser.yml", "**/.sops.yaml", "**/.flux.yaml",
)


def _scoped(lines: list[str], folder: str) -> list[str]:
    """Patterns of a nested .sourceignore, rewritten to apply from the repository root."""
    if not folder:
        return lines
    out = []
    for raw in lines:
        line = raw.rstrip()
        if not line or line.startswith("#"):
            continue
        negate = line.startswith("!")
        body = line[1:] if negate else line
        anchored = "/" in body.rstrip("/")
        pattern = f"{folder}/{body.lstrip('/')}" if anchored else f"{folder}/**/{body}"
        out.append(("!" if negate else "") + pattern)
    return out


def matcher(files: dict[str, str], read: Callable[[str], bytes], spec_ignore: str | None = None,
            prefix: str = "") -> Callable[[str], bool]:
    """A predicate `ignored(path)` for the artifact made of `files` (repo paths) below `prefix`.

    `read` gives a file's bytes (the .sourceignore files are read from the revision itself).
    """
    lines = list(VCS)
    lines += list(DEFAULTS) if spec_ignore is None else spec_ignore.splitlines()
    base = prefix.rstrip("/")
    for path in sorted(p for p in files if p.endswith(IGNORE_FILE)):
        folder, name = posixpath.split(path)
        if name != IGNORE_FILE or (base and not (folder == base or folder.startswith(base + "/"))):
            continue
        rel_folder = folder[len(base):].lstrip("/") if base else folder
        text = read(path).decode("utf-8", "replace").splitlines()
        lines += _scoped(text, rel_folder)
    if len(lines) == len(VCS) + len(DEFAULTS) and spec_ignore is None:
        return lambda path: _default_ignored(path[len(base):].lstrip("/") if base else path)
    spec, memo = _compiled(tuple(lines))

    def ignored(path: str) -> bool:
        rel = path[len(base):].lstrip("/") if base else path
        if rel not in memo:
            memo[rel] = bool(spec.match_file(rel))
        return memo[rel]

    return ignored


def line_hides(line: str, folder: str, paths: Iterable[str]) -> bool:
    """Whether one line of the .sourceignore in `folder` matches any of `paths` (repository paths)
    on its own: which line of an edit hides a file."""
    spec, _ = _compiled(tuple(_scoped([line], folder)))
    return any(spec.match_file(p) for p in paths)


# The defaults are names (at any depth), folder names and extensions: matched without regexes,
# since most artifacts have no ignore file of their own and a fleet has thousands of files.
_DEFAULT_FOLDERS = frozenset(p.rstrip("/") for p in VCS + DEFAULTS if p.endswith("/"))
_DEFAULT_NAMES = frozenset(p.removeprefix("**/") for p in VCS + DEFAULTS if not p.endswith("/") and "*." not in p)
_DEFAULT_EXTS = tuple(p.removeprefix("*") for p in DEFAULTS if p.startswith("*."))


@functools.lru_cache(maxsize=1 << 17)  # base and head: most paths are asked twice
def _default_ignored(rel: str) -> bool:
    """`rel` as GitIgnoreSpec(VCS + DEFAULTS) would answer: a name or extension pattern matches a
    file or any folder on its path, a `folder/` pattern only a folder on its path."""
    parts = rel.split("/")
    return any(p in _DEFAULT_NAMES or p.endswith(_DEFAULT_EXTS) for p in parts) or \
        any(p in _DEFAULT_FOLDERS for p in parts[:-1])


@functools.lru_cache(maxsize=64)
def _compiled(lines: tuple[str, ...]) -> tuple[pathspec.GitIgnoreSpec, dict[str, bool]]:
    """One compiled spec per pattern list, with its answers: base and head share both when their
    ignore files agree, and most of their paths are the same. pathspec is imported here, for the
    first artifact with ignore rules of its own: most fleets have none, and importing it (with
    the asyncio it pulls in) is ~40 ms of the guard's start-up."""
    import pathspec

    return pathspec.GitIgnoreSpec.from_lines(lines), {}
