"""What a Flux artifact holds: source-controller's ignore rules applied to a revision.

source-controller never puts every file of a repository into the artifact kustomize-controller
builds from. For a GitRepository (the whole revision) the answer comes from source-controller's
own code through the helper (`coredns-gen-helper artifact`: fluxcd/pkg/sourceignore's
LoadIgnorePatterns over every `.sourceignore`, then `spec.ignore`, matched as the archive's
filter matches: the defaults (VCS files, CI configuration, images and archives) only when no
pattern at all is given, the VCS patterns always). A file the artifact lacks cannot be built,
listed by a generated kustomization.yaml, or be a root, so the guard asks before it looks at a
revision. An OCI artifact pushed from a folder (`flux push artifact`) is still read with the
patterns below, a model of the same rules (its CLI's own filter is not linked yet).
"""

from __future__ import annotations

import functools
import hashlib
import json
import posixpath
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Collection, Iterable

from gen.cachefile import Sealed, seal, write_entry
from gen.errors import ToolError
from gen.tools import HELPER_BUILD_HINT, helper_binary

if TYPE_CHECKING:
    import pathspec

IGNORE_FILE = ".sourceignore"
_KEPT = "artifacts-1"  # the folder of kept answers in the guard's cache (sealed: gen/cachefile.py)
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


@dataclass
class KeptStore:
    """Where source-controller's answers are kept between runs (the guard's cache folder), and
    which helper gave them (its libraries' versions): an answer is a function of the request.
    `rejected` counts kept answers that did not verify (asked again, and said by the run)."""

    directory: Path
    identity: str
    rejected: int = 0


def matcher(files: dict[str, str], read: Callable[[str], bytes], spec_ignore: str | None = None,
            prefix: str = "", links: Collection[str] = (), store: KeptStore | None = None) -> Callable[[str], bool]:
    """A predicate `ignored(path)` for the artifact made of `files` (repo paths) below `prefix`.

    `read` gives a file's bytes (the .sourceignore files are read from the revision itself);
    `links` are the revision's symlinks, never in an artifact; `store` keeps the helper's answers.

    Raises:
        ToolError: the helper is missing or failed (a GitRepository's artifact is its answer).
    """
    if not prefix:
        kept = _flux_kept(files, read, spec_ignore, links, store)
        return lambda path: path not in kept
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


def _flux_kept(files: dict[str, str], read: Callable[[str], bytes], spec_ignore: str | None,
               links: Collection[str], store: KeptStore | None = None) -> frozenset[str]:
    """The regular files of the revision that source-controller archives (the helper's answer,
    or the same answer kept by an earlier run for the very same request, verified by digest)."""
    regular = sorted(p for p in files if p not in links)
    ignore_files = {p: read(p).decode("utf-8", "replace") for p in regular if posixpath.basename(p) == IGNORE_FILE}
    request = json.dumps({"id": "1", "files": regular, "ignore_files": ignore_files, "spec_ignore": spec_ignore})
    entry = key = None
    if store is not None:
        key = hashlib.sha256(f"{store.identity}\0{request}".encode()).hexdigest()
        entry = store.directory / _KEPT / f"{key}.sealed"
        if entry.exists():
            sealed = Sealed.read(entry)
            content = sealed.open(key)
            try:
                ignored = json.loads(content) if content is not None and not sealed.rejected else None
            except ValueError:
                ignored = None
            if isinstance(ignored, list):
                return frozenset(regular) - frozenset(str(p) for p in ignored)
            store.rejected += 1
            Sealed.drop(entry)
    kept = _ask_helper(request)
    if entry is not None and key is not None:
        write_entry(entry, seal([(key, json.dumps([p for p in regular if p not in kept]).encode())]))
    return kept


def _ask_helper(request: str) -> frozenset[str]:
    helper = helper_binary()
    if helper is None:
        raise ToolError("coredns-gen-helper is not installed: which files a GitRepository's artifact holds is "
                        "source-controller's answer, asked through it", hint=HELPER_BUILD_HINT)
    try:
        proc = subprocess.run([str(helper), "artifact"], input=request + "\n", capture_output=True, text=True,
                              timeout=300, check=False)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise ToolError(f"cannot run {helper} artifact: {err}", hint=HELPER_BUILD_HINT) from err
    try:
        answer = json.loads(proc.stdout)
        kept = answer["kept"]
    except (ValueError, KeyError, TypeError):
        raise ToolError(f"{helper} artifact did not answer (exit {proc.returncode})", stderr=proc.stderr,
                        hint=f"rebuild it from this checkout: {HELPER_BUILD_HINT}") from None
    if answer.get("error"):
        raise ToolError(f"{helper} artifact: {answer['error']}")
    return frozenset(str(p) for p in kept)
