"""A git revision as the guard sees it: every file with its blob id, and the refs and remotes.

git lists every file's blob id (gen/guard/repo/listing.py), which is a free content hash: two
revisions whose inputs have the same blob ids build the same output, so the guard can reuse one
build for both. Where the files' bytes come from, and when they are put on disk, is
gen/guard/repo/checkout.py.
"""

from __future__ import annotations

import posixpath
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Protocol

from gen.config import CONFIG_NAME, Config, load_config
from gen.errors import ToolError, UsageError
from gen.guard.repo.boundary import real_path
from gen.tools import git_binary

KUSTOMIZATION_FILES = ("kustomization.yaml", "kustomization.yml", "Kustomization")


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
        raise UsageError(f"{ref!r} is not a commit in {repo}", key=option, hint=_fetch_hint(repo, ref))
    return proc.stdout.strip()


def _fetch_hint(repo: Path, ref: str) -> str:
    """How to make `ref` resolvable. A plain `git fetch origin main` in a single-branch clone
    (`git clone --depth 1`, actions/checkout's default) leaves the commit in FETCH_HEAD only, so
    `origin/main` still does not resolve: name the ref to write, or deepen the history."""
    shallow = subprocess.run([git_binary(), "-C", str(repo), "rev-parse", "--is-shallow-repository"],
                             capture_output=True, text=True, check=False).stdout.strip() == "true"
    remote, _, branch = ref.partition("/")
    named = f"`git fetch origin {branch}:refs/remotes/{remote}/{branch}`" if branch and "~" not in ref and "^" not in ref \
        else "`git fetch origin main:refs/remotes/origin/main`"
    if shallow:
        return (f"this clone is shallow (git clone --depth, actions/checkout's default): fetch the ref into its name, "
                f"{named} (a plain `git fetch origin main` leaves it in FETCH_HEAD only), and `git fetch --deepen=1` "
                "for HEAD~1; or check out the whole history (actions/checkout `fetch-depth: 0`)")
    return f"pass a branch, tag or commit id (fetch it first in CI: {named})"


class Files(Protocol):
    """Where a revision's files come from until they are on disk (gen/guard/repo/checkout.py)."""

    def unpack(self) -> None: ...

    def place(self, paths: list[str]) -> None: ...

    def blob(self, blob: str) -> bytes: ...

    def close(self) -> None: ...


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
    checkout: Files | None = None  # the revision behind root, unpacked on demand; None: on disk
    _kustomization_files: dict[str, str | None] = field(default_factory=dict, repr=False, compare=False)

    def on_disk(self) -> Path:
        """`root`, with every file of the revision unpacked there (for kustomize, or a copy)."""
        if self.checkout is not None:
            self.checkout.unpack()
        return self.root

    def place(self, paths: Iterable[str]) -> Path:
        """`root`, with these files of the revision (those that exist) on disk there: an artifact's
        own files, not the whole revision. A symlink among them unpacks the whole revision."""
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
        """The kustomization file kustomize reads in `directory` (its first name that exists)."""
        known = self._kustomization_files.get(directory, "")  # a tree never changes: asked once
        if known == "":
            lead = directory + "/" if directory else ""
            known = next((lead + n for n in KUSTOMIZATION_FILES if lead + n in self.blobs), None)
            self._kustomization_files[directory] = known
        return known

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
                remember(blob, data)
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


def known_blob(blob: str) -> bool:
    return blob in _READ


def known(blob: str) -> bytes | None:
    """A blob's bytes when some tree of the run has read them."""
    return _READ.get(blob)


def remember(blob: str, data: bytes) -> None:
    """Keep a blob's bytes for every tree that holds it (bounded: a fleet's manifests fit)."""
    if len(_READ) >= 200_000:
        _READ.clear()
    _READ[blob] = data


def changed_paths(repo: Path, base: str, head: str) -> frozenset[str]:
    """Every file path that differs between two commits, both sides of a rename (`git diff
    --name-only --no-renames`): what the change touches, whatever reads it.

    Raises:
        ToolError: git failed.
    """
    proc = subprocess.run([git_binary(), "-C", str(repo), "diff", "--name-only", "--no-renames", "-z", "--end-of-options",
                           base, head, "--"],
                          capture_output=True, check=False)
    if proc.returncode != 0:
        raise ToolError(f"git diff --name-only {base[:12]} {head[:12]} failed", stderr=proc.stderr.decode(errors="replace"))
    return frozenset(p for p in proc.stdout.decode("utf-8", "surrogateescape").split("\0") if p)


def branch_of(repo: Path, ref: str) -> str | None:
    """The branch `ref` names (`main` for `main`, `origin/main` or `refs/remotes/origin/main`), or
    None for a commit id, a tag or an expression: which branch a cluster syncs, when a source
    written here does not say."""
    proc = subprocess.run([git_binary(), "-C", str(repo), "rev-parse", "--symbolic-full-name", ref],
                          capture_output=True, text=True, check=False)
    name = proc.stdout.strip() if proc.returncode == 0 else ""
    if name.startswith("refs/heads/"):
        return name[len("refs/heads/"):] or None
    if name.startswith("refs/remotes/"):
        return name[len("refs/remotes/"):].partition("/")[2] or None
    return None


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
