"""What a Flux artifact holds: source-controller's ignore rules applied to a revision.

source-controller never puts every file of a repository into the artifact kustomize-controller
builds from. The answer comes from source-controller's own code through the helper
(`coredns-gen-corefile artifact`: fluxcd/pkg/sourceignore's LoadIgnorePatterns over every
`.sourceignore`, then `spec.ignore`, matched as the archive's filter matches: the defaults (VCS
files, CI configuration, images and archives) only when no pattern at all is given, the VCS
patterns always). An OCI artifact pushed from a folder (`flux push artifact --path=DIR`) is first
what the flux CLI archives of DIR (its `--ignore-paths`, by default the VCS and image/archive
patterns, and `--add-ignore-paths`: fluxcd/pkg/oci's filter, in the same helper), then what
source-controller keeps of that. A file the artifact lacks cannot be built, listed by a generated
kustomization.yaml, or be a root, so the guard asks before it looks at a revision.
"""

from __future__ import annotations

import functools
import hashlib
import json
import posixpath
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Collection, Iterable

from gen.cachefile import Sealed, seal, write_entry
from gen.errors import ToolError
from gen.tools import COREFILE_BUILD_HINT, ask_artifact, corefile_binary

if TYPE_CHECKING:
    import pathspec

IGNORE_FILE = ".sourceignore"
_KEPT = "artifacts-1"  # the folder of kept answers in the guard's cache (sealed: gen/cachefile.py)


@dataclass(frozen=True)
class Push:
    """The ignore flags of one `flux push artifact` command (its defaults are the CLI's, in the helper)."""

    ignore_paths: tuple[str, ...] | None = None  # --ignore-paths as given; None: not given
    add_ignore_paths: tuple[str, ...] = ()  # --add-ignore-paths

    def request(self) -> dict[str, object]:
        return {"ignore_paths": None if self.ignore_paths is None else list(self.ignore_paths),
                "add_ignore_paths": list(self.add_ignore_paths)}


def _scoped(lines: list[str], folder: str) -> list[str]:
    """Patterns of a nested .sourceignore, rewritten to apply from the repository root (only to say
    which line of an edit hides a file: line_hides; what is hidden is the helper's answer)."""
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
            prefix: str = "", links: Collection[str] = (), store: KeptStore | None = None,
            push: Push | None = None) -> Callable[[str], bool]:
    """A predicate `ignored(path)` for the artifact made of `files` (repo paths) below `prefix`
    (`push`: a folder `flux push artifact` pushes).

    `read` gives a file's bytes (the .sourceignore files are read from the revision itself);
    `links` are the revision's symlinks, never in an artifact; `store` keeps the helper's answers.

    Raises:
        ToolError: the helper is missing or failed (the artifact is its answer).
    """
    kept = _flux_kept(files, read, spec_ignore, links, store, prefix.strip("/"), push)
    return lambda path: path not in kept


def archived(files: Iterable[str], store: KeptStore | None = None) -> frozenset[str]:
    """Which of these staged files an archive made with storage.Archive's SourceIgnoreFilter(nil,
    nil) holds (source-watcher's ArtifactBuilder.Build): the default exclusions, no .sourceignore.

    Raises:
        ToolError: the helper is missing or failed.
    """
    staged = {path: "" for path in files}
    return _flux_kept(staged, lambda path: b"", None, (), store, read_ignore_files=False)


def line_hides(line: str, folder: str, paths: Iterable[str]) -> bool:
    """Whether one line of the .sourceignore in `folder` matches any of `paths` (repository paths)
    on its own: which line of an edit hides a file."""
    spec, _ = _compiled(tuple(_scoped([line], folder)))
    return any(spec.match_file(p) for p in paths)


@functools.lru_cache(maxsize=64)
def _compiled(lines: tuple[str, ...]) -> tuple[pathspec.GitIgnoreSpec, dict[str, bool]]:
    """One compiled spec per pattern list (line_hides). pathspec is imported here, for the first
    edited .sourceignore: importing it (with the asyncio it pulls in) is ~40 ms of start-up."""
    import pathspec

    return pathspec.GitIgnoreSpec.from_lines(lines), {}


def _flux_kept(files: dict[str, str], read: Callable[[str], bytes], spec_ignore: str | None,
               links: Collection[str], store: KeptStore | None = None, prefix: str = "",
               push: Push | None = None, read_ignore_files: bool = True) -> frozenset[str]:
    """The regular files of the revision (below `prefix`) that the artifact holds (the helper's
    answer, or the same answer kept by an earlier run for the very same request, verified by digest)."""
    lead = prefix + "/" if prefix else ""
    regular = sorted(p[len(lead):] for p in files if p.startswith(lead) and p not in links)
    ignore_files = {p: read(lead + p).decode("utf-8", "replace") for p in regular
                    if read_ignore_files and p.endswith(IGNORE_FILE) and posixpath.basename(p) == IGNORE_FILE}
    body: dict[str, object] = {"id": "1", "files": regular, "ignore_files": ignore_files, "spec_ignore": spec_ignore,
                               "push": push.request() if push is not None else None}
    request = json.dumps(body)
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
                return frozenset(lead + p for p in set(regular) - {str(p) for p in ignored})
            store.rejected += 1
            Sealed.drop(entry)
    kept = _ask_helper(body, push is not None)
    if entry is not None and key is not None:
        write_entry(entry, seal([(key, json.dumps([p for p in regular if p not in kept]).encode())]))
    return frozenset(lead + p for p in kept)


def _ask_helper(request: dict[str, object], pushed: bool) -> frozenset[str]:
    answer = ask_artifact(request, "which files a Flux artifact holds is source-controller's (and the flux CLI's) answer")
    if pushed and answer.get("pushed") is not True:
        raise ToolError(f"{corefile_binary()} artifact does not know `flux push artifact`'s filter (an older helper)",
                        hint=f"rebuild it from this checkout: {COREFILE_BUILD_HINT}")
    kept = answer["kept"]
    assert isinstance(kept, list)
    return frozenset(str(p) for p in kept)
