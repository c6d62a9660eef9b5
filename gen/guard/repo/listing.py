"""Both revisions' file lists from what is kept for their git tree ids, plus the diff between them.

Listing every file of a fleet at both revisions (`git ls-tree -r -l`, which opens every blob for
its size) was half of a warm run's own work, and it grows with the repository, not the change. A
tree id names its content exactly, so the listing of one never changes: it is kept sealed
(gen/cachefile.py) under its tree id, one file per tree in `trees-1/`. A run reads base's kept
listing (or head's, or lists base whole when neither is kept) and makes the other by applying
`git diff-tree -r --raw` between the two tree ids, which names every path whose mode or object
differs (submodules included): what the one-file change touches, not the whole tree.

A kept listing is believed only if it verifies (its digest over tree id and content) and if the
diff meets it as the diff says: every path deleted or changed is there with the old mode and
object, every path added is absent. One that does not is a miss, counted, and the tree is listed
whole: the run sees exactly what `git ls-tree -r -l` gives (tests/guard/test_listing.py holds the
two equal on random changes, and on flipped, cut and swapped cache files).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from gen.cachefile import Sealed, seal, write_entry
from gen.errors import ToolError
from gen.tools import git_binary

FOLDER = "trees-1"  # the number is the format's
_KEEP = 32  # tree listings kept (a pull request's run adds at most two)
_PLAIN = "100644"  # the mode most files have: only the others are written down
_SUBMODULE = "160000"
_ABSENT = "000000"
_OID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
ABSENT_OBJECT = -1  # the size of a blob this clone lists but does not hold (`ls-tree -l` prints BAD)


@dataclass(frozen=True)
class Listing:
    """Every entry of one git tree, as `git ls-tree -r -l --full-tree` gives it, in its order.

    Blobs (files, executables, symlinks) with their ids and sizes; submodules (gitlinks) apart,
    with their commit ids: the guard reads no other repository, but a change to one is a change."""

    tree: str
    blobs: dict[str, str]  # path -> blob id, in git's order
    sizes: dict[str, int]  # path -> size in bytes (every blob; ABSENT_OBJECT: not in this clone)
    modes: dict[str, str]  # path -> mode, for blobs whose mode is not 100644 (100755, 120000)
    submodules: dict[str, str]  # path -> commit id (mode 160000)


@dataclass(frozen=True)
class Pair:
    """Both revisions' listings, the paths that differ between them, and how many kept listings
    did not verify (the run says so with its other caches)."""

    base: Listing
    head: Listing
    changed: frozenset[str]
    rejected: int


def _git(repo: Path, *args: str, stdin: bytes | None = None) -> bytes:
    try:
        proc = subprocess.run([git_binary(), "-C", str(repo), *args], input=stdin, capture_output=True, check=False)
    except OSError as err:
        raise ToolError(f"cannot run git: {err}") from err
    if proc.returncode != 0:
        raise ToolError(f"git {' '.join(args[:2])} failed", stderr=proc.stderr.decode(errors="replace"))
    return proc.stdout


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


def tree_ids(repo: Path, commits: list[str]) -> list[str]:
    """The tree id of each commit, in one git call.

    Raises:
        ToolError: git failed.
    """
    if not all(_OID.fullmatch(c) for c in commits):  # commit ids (revision.resolve): never an option to git
        raise ToolError(f"not a commit id: {next(c for c in commits if not _OID.fullmatch(c))!r}")
    out = _text(_git(repo, "rev-parse", *(f"{c}^{{tree}}" for c in commits))).split()
    if len(out) != len(commits) or not all(_OID.fullmatch(t) for t in out):
        raise ToolError(f"git rev-parse gave no tree id for {', '.join(c[:12] for c in commits)}")
    return out


def list_whole(repo: Path, tree: str) -> Listing:
    """Every entry of `tree`, from git itself (`git ls-tree -r -l -z --full-tree`). A blob whose
    object the clone lacks (a copy that left out its large files, a partial clone away from its
    remote) is listed, sized ABSENT_OBJECT: only a build that reads it fails on it.

    Raises:
        ToolError: git failed.
    """
    blobs: dict[str, str] = {}
    sizes: dict[str, int] = {}
    modes: dict[str, str] = {}
    submodules: dict[str, str] = {}
    for record in _text(_git(repo, "ls-tree", "-r", "-l", "-z", "--full-tree", tree)).split("\0"):
        if not record:
            continue
        meta, path = record.split("\t", 1)
        mode, kind, oid, size = meta.split()
        if kind == "commit":
            submodules[path] = oid
            continue
        if kind != "blob":
            raise ToolError(f"git ls-tree -r listed a {kind} at {path!r}")
        blobs[path] = oid
        sizes[path] = ABSENT_OBJECT if size == "BAD" else int(size)
        if mode != _PLAIN:
            modes[path] = mode
    return Listing(tree, blobs, sizes, modes, submodules)


Change = tuple[str, str, str, str, str]  # (old mode, new mode, old id, new id, path)


_DIFF = ("diff-tree", "-r", "-z", "--raw", "--no-renames", "--no-abbrev", "--ignore-submodules=none")


def diff(repo: Path, old: str, new: str) -> list[Change]:
    """Every path whose entry differs between two trees or commits (`git diff-tree -r --raw
    --no-renames`, plumbing: no user config hides a submodule or finds a rename).

    Raises:
        ToolError: git failed.
    """
    return _changes(_git(repo, *_DIFF, old, new))


def _changes(raw: bytes) -> list[Change]:
    fields = _text(raw).split("\0")
    out: list[Change] = []
    for i in range(0, len(fields) - 1, 2):
        meta, path = fields[i], fields[i + 1]
        old_mode, new_mode, old_id, new_id, _status = meta.lstrip(":").split(" ")
        out.append((old_mode, new_mode, old_id, new_id, path))
    return out


def _apply(repo: Path, kept: Listing, tree: str, changes: list[Change], forward: bool) -> Listing | None:
    """The listing of `tree`: `kept` changed as the diff says (`forward`: the diff goes from
    `kept` to `tree`; else from `tree` to `kept`). None when the diff does not meet `kept` as it
    says: then `kept` is not the tree it claims to be."""
    blobs, sizes, modes, submodules = dict(kept.blobs), dict(kept.sizes), dict(kept.modes), dict(kept.submodules)
    inserted = False  # a blob path new to the listing: git's order is made again
    unsized: dict[str, str] = {}  # path -> blob id whose size git must say
    for old_mode, new_mode, old_id, new_id, path in changes:
        if not forward:
            old_mode, new_mode, old_id, new_id = new_mode, old_mode, new_id, old_id
        if old_mode == _ABSENT:
            if path in blobs or path in submodules:
                return None
        elif old_mode == _SUBMODULE:
            if submodules.get(path) != old_id or path in blobs:
                return None
            del submodules[path]
        elif blobs.get(path) != old_id or modes.get(path, _PLAIN) != old_mode or path in submodules:
            return None
        if new_mode == _SUBMODULE:
            submodules[path] = new_id
        if new_mode in (_ABSENT, _SUBMODULE):
            if old_mode not in (_ABSENT, _SUBMODULE):
                del blobs[path], sizes[path]
                modes.pop(path, None)
            continue
        inserted = inserted or path not in blobs
        blobs[path] = new_id  # a changed blob keeps its place
        if new_id != old_id or path not in sizes:
            unsized[path] = new_id
        if new_mode == _PLAIN:
            modes.pop(path, None)
        else:
            modes[path] = new_mode
    if unsized:
        sizes.update(_sizes(repo, unsized))
    if inserted:  # git's order is the order of the paths' bytes (the index's)
        blobs = {p: blobs[p] for p in sorted(blobs, key=_bytes)}
        sizes = {p: sizes[p] for p in blobs}
    return Listing(tree, blobs, sizes, {p: modes[p] for p in sorted(modes, key=_bytes)},
                   {p: submodules[p] for p in sorted(submodules, key=_bytes)})


def _bytes(path: str) -> bytes:
    return path.encode("utf-8", "surrogateescape")


def _sizes(repo: Path, blobs: dict[str, str]) -> dict[str, int]:
    """The size of each blob (`git cat-file --batch-check`, one call for them all); ABSENT_OBJECT
    for one this clone does not hold (`<id> missing`), as list_whole says it."""
    ids = list(dict.fromkeys(blobs.values()))
    out = _text(_git(repo, "cat-file", "--batch-check=%(objectname) %(objecttype) %(objectsize)",
                     stdin="".join(i + "\n" for i in ids).encode())).splitlines()
    found: dict[str, int] = {}
    for line in out:
        parts = line.split()
        if len(parts) == 3 and parts[1] == "blob" and parts[2].isdigit():
            found[parts[0]] = int(parts[2])
        elif len(parts) == 2 and parts[1] == "missing":
            found[parts[0]] = ABSENT_OBJECT
    missing = [i for i in ids if i not in found]
    if missing:
        raise ToolError(f"git cat-file cannot size blob {missing[0][:12]}")
    return {path: found[oid] for path, oid in blobs.items()}


class TreeCache:
    """Listings by tree id in `directory` (None keeps nothing); `rejected` counts kept ones that
    did not verify or did not meet the diff."""

    def __init__(self, directory: Path | None) -> None:
        self.directory = directory
        self.rejected = 0

    def _path(self, tree: str) -> Path:
        assert self.directory is not None
        return self.directory / FOLDER / f"{tree}.tree"

    def has(self, tree: str) -> bool:
        return self.directory is not None and os.path.lexists(self._path(tree))

    def get(self, tree: str) -> Listing | None:
        if self.directory is None:
            return None
        path = self._path(tree)
        if not os.path.lexists(path):
            return None
        sealed = Sealed.read(path)
        content = sealed.open(tree)
        listing = _decode(tree, content) if content is not None and not sealed.rejected else None
        if listing is None:
            self.reject(tree)
        return listing

    def reject(self, tree: str) -> None:
        """A kept listing found wrong: counted, and removed (the run keeps the right one)."""
        self.rejected += 1
        Sealed.drop(self._path(tree))

    def put(self, listing: Listing) -> None:
        if self.directory is None:
            return
        write_entry(self._path(listing.tree), seal([(listing.tree, _encode(listing))]))
        try:
            kept = sorted((self.directory / FOLDER).glob("*.tree"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
            for old in kept[_KEEP:]:
                old.unlink(missing_ok=True)
        except OSError:
            pass  # a cache only costs time


def _encode(listing: Listing) -> bytes:
    paths = list(listing.blobs)
    return json.dumps(["\0".join(paths), "".join(listing.blobs.values()), [listing.sizes[p] for p in paths],
                       listing.modes, listing.submodules], separators=(",", ":")).encode()


def _decode(tree: str, content: bytes) -> Listing | None:
    """A kept listing, or None when it is not one (a verified entry of another format)."""
    try:
        joined, ids, sizes, modes, submodules = json.loads(content)
    except (ValueError, TypeError):
        return None
    if not (isinstance(joined, str) and isinstance(ids, str) and isinstance(sizes, list)
            and isinstance(modes, dict) and isinstance(submodules, dict)):
        return None
    paths = joined.split("\0") if joined else []
    width = len(ids) // len(paths) if paths else 40
    if width not in (40, 64) or len(ids) != width * len(paths) or len(sizes) != len(paths):
        return None
    blobs = {p: ids[i * width:(i + 1) * width] for i, p in enumerate(paths)}
    if len(blobs) != len(paths) or not set(modes) <= blobs.keys():
        return None
    return Listing(tree, blobs, dict(zip(paths, sizes, strict=False)), modes, submodules)


def listings(repo: Path, commits: dict[str, str], directory: Path | None) -> Pair:
    """Base's and head's listings: a kept one and the diff between the two trees, else base's
    listed whole and head's made from it; each one not kept yet is kept.

    Raises:
        ToolError: git failed.
    """
    cache = TreeCache(directory)
    if not all(_OID.fullmatch(c) for c in commits.values()):  # commit ids (revision.resolve): never an option to git
        raise ToolError(f"not commit ids: {commits}")
    try:  # the diff of the two commits' trees, while their tree ids are asked
        diffing = subprocess.Popen([git_binary(), "-C", str(repo), *_DIFF, commits["base"], commits["head"]],
                                   stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except OSError as err:
        raise ToolError(f"cannot run git: {err}") from err
    try:
        base_tree, head_tree = tree_ids(repo, [commits["base"], commits["head"]])
    finally:
        raw, said = diffing.communicate()
    if diffing.returncode != 0:
        raise ToolError("git diff-tree failed", stderr=said.decode(errors="replace"))
    changes = _changes(raw)
    made: list[Listing] = []
    base = cache.get(base_tree)
    head = None
    if base is not None:
        head = _apply(repo, base, head_tree, changes, forward=True)
        if head is None:
            cache.reject(base_tree)
            base = None
    if base is None:
        kept_head = cache.get(head_tree)
        if kept_head is not None:
            base = _apply(repo, kept_head, base_tree, changes, forward=False)
            if base is None:
                cache.reject(head_tree)
            else:
                head = kept_head
                made.append(base)
    if base is None or head is None:
        base = list_whole(repo, base_tree)
        made.append(base)
        head = _apply(repo, base, head_tree, changes, forward=True)
        if head is None:
            raise ToolError(f"git diff-tree {base_tree[:12]} {head_tree[:12]} does not meet git ls-tree's listing")
    if not any(m is head for m in made) and not cache.has(head_tree):
        made.append(head)
    for listing in made:
        cache.put(listing)
    return Pair(base, head, frozenset(change[4] for change in changes), cache.rejected)


def listing(repo: Path, commit: str, directory: Path | None) -> tuple[Listing, int]:
    """One revision's listing (kept, else listed whole and kept), and how many kept did not verify.

    Raises:
        ToolError: git failed.
    """
    cache = TreeCache(directory)
    (tree,) = tree_ids(repo, [commit])
    found = cache.get(tree)
    if found is None:
        found = list_whole(repo, tree)
        cache.put(found)
    return found, cache.rejected
