"""A revision's files: read from git, and put on disk only when a build needs them.

Files are read by blob id, the manifests in one `git cat-file --batch` stream when the revision
is listed. A build whose reads a run already knows (gen/guard/build/placement.py) takes only the
files it is expected to read, and is built again with more until it saw what the whole revision
shows it; any other build has the revision written whole (kustomize may read any file of the
artifact). An artifact that leaves files out (an ignore rule, a symlink) takes only its own files
(gen/guard/flux/views.py), and an ArtifactGenerator copy the files it copies. Each file and
folder keeps the moment (`stamp`) it was put there, so a build is judged against what was on disk
when it was sent, however many builds run beside it.
Every file is written byte for byte as git holds it, as Flux's clone has it. A run whose builds
are all cached writes nothing of a fleet's thousands of files. The user's checkout, index and
refs are never modified (a `git worktree` would write to .git).
"""

from __future__ import annotations

import os
import posixpath
import subprocess
import threading
from pathlib import Path
from typing import IO, Callable

from gen.errors import ToolError
from gen.guard.repo.boundary import real_path
from gen.guard.repo.listing import ABSENT_OBJECT, Listing, list_whole, tree_ids
from gen.guard.repo.revision import Tree, index_entries, known, known_blob, remember
from gen.tools import git_binary

_PREFETCH_BYTES = 64 << 20  # manifests read up front, at most; the rest on demand
_MANIFEST_ENDINGS = (".yaml", ".yml", "/Kustomization", ".sourceignore")
_SYMLINK = "120000"
_SINGLES = 64  # blobs read one by one before the rest of the manifests are read in one stream


class Checkout:
    """One revision's files: read from git by blob id, unpacked into `dest` on first need.

    Views of the revision share it, so the revision is unpacked at most once per run."""

    def __init__(self, repo: Path, dest: Path, tree: Tree) -> None:
        self.repo = repo
        self.dest = dest
        self.tree = tree
        self.unpacked = False
        self.stamp = 0  # counts what was put on disk: a file placed at stamp n was there for builds sent after
        self.unpacked_at: int | None = None
        self._lock = threading.RLock()  # the engine's feeding thread and the run's own place files
        self._asking = threading.Lock()  # the open `git cat-file --batch` answers one blob at a time
        self._reader: subprocess.Popen[bytes] | None = None
        self._placed: dict[str, int] = {}  # repository path -> its stamp
        self._made: dict[str, int] = {}  # repository folder ("" the root) -> the stamp it was made at
        self._dest = str(dest)
        self._folders: set[str] = set()  # folders under dest made already
        self._pending: list[str] = []  # manifests read in one stream once many are asked (`prefetch`)
        self._singles = 0

    def unpack(self) -> None:
        """Every file of the revision under `dest`, byte for byte as git holds it: not `git
        archive`, which applies the repository's own export-ignore and export-subst attributes
        (Flux's clone does not). A symlink is made only where its target stays inside."""
        with self._lock:
            self._unpack()

    def _unpack(self) -> None:
        if self.unpacked:
            return
        paths_of: dict[str, list[str]] = {}
        for path, blob in self.tree.blobs.items():
            if path not in self.tree.links and path not in self._placed:
                paths_of.setdefault(blob, []).append(path)

        def write(blob: str, data: bytes) -> None:
            for path in paths_of[blob]:
                self._write(path, data)

        for blob in [b for b in paths_of if known_blob(b)]:
            write(blob, self.tree.read(paths_of[blob][0]))
        _stream(self.repo, [b for b in paths_of if not known_blob(b)], write)
        for path, target_text in sorted(self.tree.links.items()):
            if real_path(self.tree.links, path)[0] is not None:  # an escaping link is never made
                (self.dest / path).parent.mkdir(parents=True, exist_ok=True)
                os.symlink(target_text, self.dest / path)
        self.dest.mkdir(parents=True, exist_ok=True)
        self.unpacked = True
        self.stamp += 1
        self.unpacked_at = self.stamp

    def prefetch(self, blobs: list[str]) -> None:
        """Read these blobs in one stream (a pipe round trip per file costs ~0.1 ms) once more than
        `_SINGLES` blobs are asked one by one: a warm run, whose parsed manifests and marks are
        kept (gen/guard/repo/parse_cache.py, marks.py), reads a few files of a fleet's thousands."""
        self._pending = blobs

    def place(self, paths: list[str]) -> None:
        """Write these files of the revision (repository paths) under `dest`, once each; a
        symlink among them writes the whole revision (links are made only where they stay inside)."""
        if self.unpacked:
            return
        new = [p for p in dict.fromkeys(paths) if p not in self._placed]
        if any(p in self.tree.links for p in new):
            self.unpack()
            return
        with self._lock:
            for path in new:
                self._write(path, self.tree.read(path))
            self.stamp += 1  # after the writes: a build sent meanwhile does not count them as seen
            for path in new:
                self._placed[path] = self.stamp
                self.made(posixpath.dirname(path))

    def made(self, folder: str) -> None:
        """Record `folder` and the folders above it as on disk from now (writing a file made them)."""
        while folder not in self._made:
            self._made[folder] = self.stamp
            if not folder:
                break
            folder = posixpath.dirname(folder)

    def make_folder(self, folder: str) -> None:
        """Make a folder of the revision under `dest` (an artifact's root, which must exist to be built)."""
        if self.unpacked or folder in self._made:
            return
        with self._lock:
            os.makedirs(os.path.join(self._dest, folder), exist_ok=True)
            self.stamp += 1
            self.made(folder)

    def file_before(self, path: str, stamp: int) -> bool:
        """Whether the file was on disk, whole, before `stamp`."""
        at = self._placed.get(path)
        return (at is not None and at < stamp) or (self.unpacked_at is not None and self.unpacked_at < stamp)

    def folder_before(self, folder: str, stamp: int) -> bool:
        """Whether the folder was on disk before `stamp`."""
        at = self._made.get(folder)
        return (at is not None and at < stamp) or (self.unpacked_at is not None and self.unpacked_at < stamp)

    def _write(self, path: str, data: bytes) -> None:
        """One file under `dest`, with plain os calls: a fleet's cold run writes thousands, and a
        pathlib Path and a buffered file object each cost more than the write itself."""
        target = f"{self._dest}/{path}"
        folder = target.rpartition("/")[0]
        if folder not in self._folders:
            os.makedirs(folder, exist_ok=True)
            self._folders.add(folder)
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o666)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)

    def blob(self, blob: str) -> bytes:
        """The bytes of one blob: from the stream of the manifests once many are asked, else from a
        `git cat-file --batch` kept open for the run (one question at a time: the engine's feeding
        thread places files while the run reads others)."""
        with self._asking:
            return self._blob(blob)

    def _blob(self, blob: str) -> bytes:
        if self._pending:
            self._singles += 1
            if self._singles > _SINGLES:
                pending, self._pending = self._pending, []
                _stream(self.repo, [b for b in dict.fromkeys(pending) if not known_blob(b)], remember)
                data = known(blob)
                if data is not None:
                    return data
        return self._single(blob)

    def _single(self, blob: str) -> bytes:
        if self._reader is None:
            self._reader = _cat_file(self.repo)
        pipe_in, pipe_out = self._reader.stdin, self._reader.stdout
        assert pipe_in is not None and pipe_out is not None
        pipe_in.write(blob.encode() + b"\n")
        pipe_in.flush()
        return _batch_answer(pipe_out, blob)

    def close(self) -> None:
        if self._reader is not None:
            assert self._reader.stdin is not None
            self._reader.stdin.close()
            self._reader.wait()
            self._reader = None


def _stream(repo: Path, blobs: list[str], each: Callable[[str, bytes], None]) -> None:
    """`each(blob, bytes)` for every blob, from one `git cat-file --batch`, in order."""
    if not blobs:
        return
    proc = _cat_file(repo)
    assert proc.stdin is not None and proc.stdout is not None
    feed = threading.Thread(target=_feed, args=(proc.stdin, blobs), daemon=True)
    feed.start()
    try:
        for blob in blobs:
            each(blob, _batch_answer(proc.stdout, blob))
    finally:
        if proc.poll() is None and feed.is_alive():
            proc.kill()
        feed.join()
        proc.stdout.close()
        proc.wait()


def _cat_file(repo: Path) -> subprocess.Popen[bytes]:
    """A `git cat-file --batch` of `repo`: blob ids in, each blob's header and bytes out."""
    try:
        return subprocess.Popen([git_binary(), "-C", str(repo), "cat-file", "--batch"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    except OSError as err:
        raise ToolError(f"cannot run git: {err}") from err


def _feed(pipe: IO[bytes], blobs: list[str]) -> None:
    """Ask for every blob (a thread: git answers while it is still being asked)."""
    try:
        pipe.write("".join(b + "\n" for b in blobs).encode())
        pipe.close()
    except OSError:  # git stopped early: the reader reports it, with git's own words
        pass


def _batch_answer(out: IO[bytes], blob: str) -> bytes:
    header = out.readline().split()
    if len(header) != 3 or header[1] != b"blob":
        raise ToolError(f"git cat-file cannot read blob {blob[:12]}", stderr=b" ".join(header).decode(errors="replace"))
    data = out.read(int(header[2]) + 1)  # the content and git's closing newline
    return data[:-1]


class Sweep:
    """Folders of files put on disk for kustomize, removed in the background once the last build
    is done, by `rm` (another process, so Python's judging goes on at full speed): a fleet's
    cold run put ~15,000 files on disk, and removing them at the end took half a second. Only
    folders nothing reads afterwards: a revision's files are read from git by blob id. `wait`
    before the scratch folder's own removal; where `rm` cannot run, that removal does it all."""

    def __init__(self, folders: list[Path]) -> None:
        present = [str(f) for f in folders if f.exists()]
        self._proc: subprocess.Popen[bytes] | None = None
        if present:
            try:
                self._proc = subprocess.Popen(["rm", "-rf", "--", *present], stdin=subprocess.DEVNULL,
                                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            except OSError:
                self._proc = None

    def wait(self) -> None:
        if self._proc is not None:
            self._proc.wait()


def _present(listing: Listing) -> dict[str, str]:
    """The listing's blobs but those whose object this clone lacks (a copy that left out its large
    files). kustomize reads a file that is not a manifest only where a kustomization names it, and
    then fails on a missing one: that build is not judged, as where the file is not committed. A
    missing manifest could vanish silently from a folder Flux builds whole, so it stops the run.

    Raises:
        ToolError: a manifest's object is not in this clone.
    """
    blobs = dict(listing.blobs)
    for path, size in listing.sizes.items():
        if size != ABSENT_OBJECT:
            continue
        if path.endswith((*_MANIFEST_ENDINGS, ".json")) or posixpath.basename(path) == "Kustomization":
            raise ToolError(f"cannot read {path}: its git object {blobs[path][:12]} is not in this clone; fetch it "
                            f"(`git fetch --refetch origin`, or a clone without a blob filter) and run again")
        del blobs[path]
    return blobs


def load_tree(repo: Path, commit: str, dest: Path, like: Tree | None = None, listing: Listing | None = None) -> Tree:
    """`commit` as `listing` lists it (gen/guard/repo/listing.py; None: listed whole); its files
    are read from git, and unpacked into `dest` (which must not exist yet) when `Tree.on_disk` is
    first asked. A revision with the very paths of `like` (a change that only edits files) shares
    its folder index, which is a function of the paths."""
    if listing is None:
        listing = list_whole(repo, tree_ids(repo, [commit])[0])
    tree = Tree(commit=commit, root=dest)
    tree.blobs = _present(listing)
    manifests: list[str] = []
    budget = _PREFETCH_BYTES
    sizes = listing.sizes
    for path, mode in listing.modes.items():
        if mode == _SYMLINK:
            tree.links[path] = ""
    for path, blob in tree.blobs.items():
        if path.endswith(_MANIFEST_ENDINGS) and path not in tree.links and sizes[path] <= budget:
            budget -= sizes[path]
            manifests.append(blob)
    tree.entries = like.entries if like is not None and like.blobs.keys() == tree.blobs.keys() \
        else index_entries(tree.blobs)
    if dest.exists():
        raise ToolError(f"cannot unpack revision {commit[:12]}: {dest} exists already")
    tree.checkout = Checkout(repo, dest, tree)
    tree.checkout.prefetch(manifests)  # what the guard parses: read in one stream, not file by file
    for path in tree.links:  # a symlink's blob is its target
        tree.links[path] = tree.checkout._single(tree.blobs[path]).decode("utf-8", "surrogateescape")
    return tree
