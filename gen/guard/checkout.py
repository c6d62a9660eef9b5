"""A revision's files: read from git, and put on disk only when real kustomize needs them.

Files are read by blob id, the manifests in one `git cat-file --batch` stream when the revision
is listed; a build writes only the files it reads (its exact inputs), and `git archive` unpacks
the whole revision only for a build whose inputs are not exact, an ArtifactGenerator copy or a
symlink. A run whose builds are all cached writes nothing of a fleet's thousands of files. The
user's checkout, index and refs are never modified (a `git worktree` would write to .git).
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import tarfile
import threading
from pathlib import Path
from typing import IO

from gen.errors import ToolError
from gen.guard.boundary import real_path
from gen.guard.revision import Tree, index_entries, known_blob, remember
from gen.tools import git_binary

def _git(repo: Path, *args: str) -> str:
    argv = [git_binary(), "-C", str(repo), *args]
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, check=False)
    except OSError as err:
        raise ToolError(f"cannot run git: {err}") from err
    if proc.returncode != 0:
        raise ToolError(f"git {' '.join(args)} failed", stderr=proc.stderr)
    return proc.stdout


_PREFETCH_BYTES = 64 << 20  # manifests read up front, at most; the rest on demand
_MANIFEST_ENDINGS = (".yaml", ".yml", "/Kustomization", ".sourceignore")

class Checkout:
    """One revision's files: read from git by blob id, unpacked into `dest` on first need.

    Views of the revision share it, so the revision is unpacked at most once per run."""

    def __init__(self, repo: Path, commit: str, dest: Path, tree: Tree) -> None:
        self.repo = repo
        self.commit = commit
        self.dest = dest
        self.tree = tree
        self.unpacked = False
        self._reader: subprocess.Popen[bytes] | None = None
        self._placed: set[str] = set()

    def unpack(self) -> None:
        if self.unpacked:
            return
        self.dest.mkdir(parents=True, exist_ok=True)
        _unpack(self.repo, self.commit, self.dest)
        _fence_links(self.tree)
        self.unpacked = True

    def prefetch(self, blobs: list[str]) -> None:
        """Read many blobs in one stream (a pipe round trip per file costs ~0.1 ms)."""
        wanted = [b for b in dict.fromkeys(blobs) if not known_blob(b)]
        if not wanted:
            return
        try:
            proc = subprocess.Popen([git_binary(), "-C", str(self.repo), "cat-file", "--batch"],
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        except OSError as err:
            raise ToolError(f"cannot run git: {err}") from err
        assert proc.stdin is not None and proc.stdout is not None
        feed = threading.Thread(target=_feed, args=(proc.stdin, wanted), daemon=True)
        feed.start()
        try:
            for blob in wanted:
                remember(blob, _batch_answer(proc.stdout, blob))
        finally:
            if proc.poll() is None and feed.is_alive():
                proc.kill()
            feed.join()
            proc.stdout.close()
            proc.wait()

    def place(self, paths: list[str]) -> None:
        """Write these files of the revision (repository paths) under `dest`, once each; past a
        half of the revision, one `git archive` of all of it is cheaper than file by file."""
        if self.unpacked:
            return
        new = [p for p in dict.fromkeys(paths) if p not in self._placed]
        if any(p in self.tree.links for p in new) or (len(self._placed) + len(new)) * 2 > len(self.tree.blobs):
            self.unpack()
            return
        folders: set[Path] = set()
        for path in new:
            target = self.dest / path
            if target.parent not in folders:
                target.parent.mkdir(parents=True, exist_ok=True)
                folders.add(target.parent)
            target.write_bytes(self.tree.read(path))
            self._placed.add(path)

    def blob(self, blob: str) -> bytes:
        """The bytes of one blob, from a `git cat-file --batch` kept open for the run."""
        if self._reader is None:
            try:
                self._reader = subprocess.Popen([git_binary(), "-C", str(self.repo), "cat-file", "--batch"],
                                                stdin=subprocess.PIPE, stdout=subprocess.PIPE)
            except OSError as err:
                raise ToolError(f"cannot run git: {err}") from err
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


def load_tree(repo: Path, commit: str, dest: Path) -> Tree:
    """List `commit`; its files are read from git, and unpacked into `dest` (which must not
    exist yet) when `Tree.on_disk` is first asked."""
    tree = Tree(commit=commit, root=dest)
    listing = _git(repo, "ls-tree", "-r", "-l", "-z", "--full-tree", commit)
    manifests: list[str] = []
    budget = _PREFETCH_BYTES
    for record in listing.split("\0"):
        if not record:
            continue
        meta, path = record.split("\t", 1)
        mode, kind, blob, size = meta.split()
        if kind != "blob":
            continue  # submodules are other repositories
        tree.blobs[path] = blob
        if mode == "120000":
            tree.links[path] = ""
        elif path.endswith(_MANIFEST_ENDINGS) and size.isdigit() and int(size) <= budget:
            budget -= int(size)
            manifests.append(blob)
    tree.entries = index_entries(tree.blobs)
    if dest.exists():
        raise ToolError(f"cannot unpack revision {commit[:12]}: {dest} exists already")
    tree.checkout = Checkout(repo, commit, dest, tree)
    tree.checkout.prefetch(manifests)  # what the guard parses: read in one stream, not file by file
    for path in tree.links:  # a symlink's blob is its target
        tree.links[path] = tree.checkout.blob(tree.blobs[path]).decode("utf-8", "surrogateescape")
    return tree


def _fence_links(tree: Tree) -> None:
    """Remove from the unpacked tree every symlink that leaves the repository, so not even a
    kustomize that follows links can read through it."""
    for path in tree.links:
        if real_path(tree.links, path)[0] is None and os.path.lexists(tree.root / path):
            os.unlink(tree.root / path)


def _unpack(repo: Path, commit: str, dest: Path) -> None:
    argv = [git_binary(), "-C", str(repo), "archive", "--format=tar", commit]
    tar = shutil.which("tar")
    if tar:
        git_proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        untar = subprocess.run([tar, "-x", "-f", "-", "-C", str(dest)], stdin=git_proc.stdout,
                               capture_output=True, check=False)
        assert git_proc.stdout is not None
        git_proc.stdout.close()
        err = git_proc.stderr.read().decode() if git_proc.stderr else ""
        if git_proc.wait() != 0 or untar.returncode != 0:
            raise ToolError(f"cannot unpack revision {commit[:12]}", stderr=err + untar.stderr.decode())
        return
    proc = subprocess.run(argv, capture_output=True, check=False)
    if proc.returncode != 0:
        raise ToolError(f"git archive {commit[:12]} failed", stderr=proc.stderr.decode())
    with tarfile.open(fileobj=io.BytesIO(proc.stdout), mode="r:") as archive:
        archive.extractall(dest, filter=_no_escaping_links)


def _no_escaping_links(member: tarfile.TarInfo, dest: str) -> tarfile.TarInfo | None:
    """tarfile's `data` filter, except that a symlink pointing outside is skipped, not fatal
    (load_tree refuses builds that read through it)."""
    try:
        return tarfile.data_filter(member, dest)
    except tarfile.FilterError:
        if member.issym():
            return None
        raise


