"""Read a git revision without touching the working tree: list it, read files from git, and
unpack it into a temp dir only when something needs it on disk.

`git ls-tree` gives every file's blob id, which is a free content hash: two revisions whose
inputs have the same blob ids build the same output, so the guard can reuse one build for both.
Files are read by blob id from one `git cat-file --batch` process; `git archive` unpacks the
revision the first time real kustomize must build from it (a run whose builds are all cached
never writes the fleet's thousands of files). The user's checkout, index and refs are never
modified (a `git worktree` would write to .git).
"""

from __future__ import annotations

import os
import posixpath
import shutil
import subprocess
import tarfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Iterable

from gen.config import CONFIG_NAME, Config, load_config
from gen.errors import ToolError, UsageError
from gen.guard.boundary import real_path
from gen.tools import git_binary

KUSTOMIZATION_FILES = ("kustomization.yaml", "kustomization.yml", "Kustomization")


def _git(repo: Path, *args: str) -> str:
    argv = [git_binary(), "-C", str(repo), *args]
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, check=False)
    except OSError as err:
        raise ToolError(f"cannot run git: {err}") from err
    if proc.returncode != 0:
        raise ToolError(f"git {' '.join(args)} failed", stderr=proc.stderr)
    return proc.stdout


def repo_root(repo: Path) -> Path:
    """The top of the git work tree that holds `repo`."""
    if not repo.is_dir():
        raise UsageError(f"{repo} is not a directory", key="--repo", hint="pass the GitOps repository root")
    proc = subprocess.run([git_binary(), "-C", str(repo), "rev-parse", "--show-toplevel"],
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise UsageError(f"{repo} is not inside a git repository", key="--repo",
                         hint="run in the GitOps repository or pass --repo DIR")
    return Path(proc.stdout.strip())


def resolve(repo: Path, ref: str, option: str) -> str:
    """The commit id REF names; a ref that does not exist is bad input (exit 2)."""
    proc = subprocess.run([git_binary(), "-C", str(repo), "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"],
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0 or not proc.stdout.strip():
        raise UsageError(f"{ref!r} is not a commit in {repo}", key=option,
                         hint="pass a branch, tag or commit id (fetch it first in CI: `git fetch origin main`)")
    return proc.stdout.strip()


@dataclass
class Tree:
    """One revision, or one Flux artifact made from it (a view): its files with blob ids,
    unpacked under `root` for kustomize to read.

    A view's paths are artifact paths; `repo_path` names the repository file behind each, so
    findings always point at the file a reviewer edits."""

    commit: str
    root: Path
    blobs: dict[str, str] = field(default_factory=dict)  # path -> blob id
    entries: dict[str, set[str]] = field(default_factory=dict)  # dir -> direct children (names)
    links: dict[str, str] = field(default_factory=dict)  # symlink (git mode 120000) -> its target
    prefix: str = ""  # a view of a repository folder: repo path = prefix/path
    moved: dict[str, str] = field(default_factory=dict)  # a copied artifact: path -> repo path
    checkout: Checkout | None = None  # the revision behind root, unpacked on demand; None: on disk

    def on_disk(self) -> Path:
        """`root`, with every file of the revision unpacked there (for kustomize, or a copy)."""
        if self.checkout is not None:
            self.checkout.unpack()
        return self.root

    def place(self, paths: Iterable[str]) -> Path:
        """`root`, with these files of the revision (those that exist) on disk there: what one
        build reads, not the whole fleet. A symlink among them unpacks the whole revision."""
        if self.checkout is not None:
            self.checkout.place([self.repo_path(p) for p in paths if p in self.blobs])
        return self.root

    def config(self) -> Config:
        """The revision's `.coredns-gen.yaml` (an empty Config when it has none)."""
        return load_config(self.place([CONFIG_NAME]))

    def is_file(self, path: str) -> bool:
        return path in self.blobs

    def is_dir(self, path: str) -> bool:
        return path == "" or path in self.entries

    def kustomization_file(self, directory: str) -> str | None:
        for name in KUSTOMIZATION_FILES:
            candidate = posixpath.join(directory, name) if directory else name
            if candidate in self.blobs:
                return candidate
        return None

    def read(self, path: str) -> bytes:
        """A file's bytes; a symlink reads its target inside the tree, or nothing (b"") when the
        target leaves the repository or is not a file of it: never a file outside."""
        if path in self.links:
            real, _ = real_path(self.links, path)
            return self.read(real) if real is not None and real in self.blobs and real not in self.links else b""
        blob = self.blobs.get(path)
        data = _READ.get(blob) if blob else None
        if data is None:
            data = self.checkout.blob(blob) if self.checkout is not None and blob else (self.root / path).read_bytes()
            if blob:  # base and head share most files: each is read once, by its content's id
                _remember(blob, data)
        return data

    def walk(self, directory: str) -> list[str]:
        """Every file under `directory`, sorted, as repo-relative paths."""
        prefix = directory + "/" if directory else ""
        return sorted(p for p in self.blobs if p.startswith(prefix))

    def repo_path(self, path: str) -> str:
        if path in self.moved:
            return self.moved[path]
        return posixpath.join(self.prefix, path) if self.prefix and path else (self.prefix or path)


def flux_scan(tree: Tree, directory: str) -> list[str]:
    """The resources kustomize-controller's generator lists for a path without kustomization.yaml:
    every .yaml/.yml file below it, and each sub-directory that has its own kustomization file
    (not descended into)."""
    out: list[str] = []

    def visit(d: str) -> None:
        for name in sorted(tree.entries.get(d, [])):
            path = posixpath.join(d, name) if d else name
            if tree.is_dir(path) and path not in tree.blobs:
                if tree.kustomization_file(path):
                    out.append(path)
                else:
                    visit(path)
            elif name.endswith((".yaml", ".yml")):
                out.append(path)

    visit(directory)
    return out


_PREFETCH_BYTES = 64 << 20  # manifests read up front, at most; the rest on demand
_MANIFEST_ENDINGS = (".yaml", ".yml", "/Kustomization", ".sourceignore")
_READ: dict[str, bytes] = {}  # blob id -> bytes (both revisions, every view of them)


def index_entries(blobs: dict[str, str]) -> dict[str, set[str]]:
    """Folder -> names of its direct children, for every folder that holds a file."""
    entries: dict[str, set[str]] = {}
    for path in blobs:
        parent, _, name = path.rpartition("/")
        while True:
            names = entries.get(parent)
            if names is None:
                names = entries[parent] = set()
            elif name in names:
                break  # this folder and its ancestors are registered already
            names.add(name)
            if not parent:
                break
            parent, _, name = parent.rpartition("/")
    return entries


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
        wanted = [b for b in dict.fromkeys(blobs) if b not in _READ]
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
        for blob in wanted:
            _remember(blob, _batch_answer(proc.stdout, blob))
        feed.join()
        proc.stdout.close()
        proc.wait()

    def place(self, paths: list[str]) -> None:
        """Write these files of the revision (repository paths) under `dest`, once each."""
        if self.unpacked:
            return
        if any(p in self.tree.links for p in paths):
            self.unpack()
            return
        for path in paths:
            if path not in self._placed:
                target = self.dest / path
                target.parent.mkdir(parents=True, exist_ok=True)
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
    try:
        pipe.write("".join(b + "\n" for b in blobs).encode())
    finally:
        pipe.close()


def _remember(blob: str, data: bytes) -> None:
    if len(_READ) >= 200_000:
        _READ.clear()
    _READ[blob] = data


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
    import io

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


def remote_urls(repo: Path) -> set[str]:
    """This repository's remote URLs, normalised (see `same_repository`): a GitRepository that
    points at one of them delivers this repository."""
    proc = subprocess.run([git_binary(), "-C", str(repo), "remote", "-v"], capture_output=True, text=True, check=False)
    out = set()
    for line in proc.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 2:
            out.add(normalize_url(parts[1]))
    return out


def normalize_url(url: str) -> str:
    """`host/owner/name` for every spelling of one repository: ssh://git@host:22/o/n.git,
    git@host:o/n, https://user@host/o/n/ and oci://host/o/n:tag all compare equal to their kin."""
    text = url.strip()
    scheme = ""
    if "://" in text:
        scheme, text = text.split("://", 1)
    elif ":" in text.split("/", 1)[0]:  # scp form: git@host:owner/name
        text = text.replace(":", "/", 1)
    text = text.rsplit("@", 1)[-1] if "@" in text.split("/", 1)[0] else text
    host, _, path = text.partition("/")
    host = host.split(":", 1)[0].lower()
    path = path.rstrip("/")
    if scheme == "oci" and ":" in path.rsplit("/", 1)[-1]:
        path = path.rsplit(":", 1)[0]  # an OCI tag names a revision, not the repository
    path = path.removesuffix(".git")
    return f"{host}/{path}".lower()
