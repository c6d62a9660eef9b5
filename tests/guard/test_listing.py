"""A revision's listing made from a kept one and `git diff-tree` is exactly git's own full listing
(gen/guard/repo/listing.py), on random histories of real git repositories: files, executables,
symlinks, submodules (gitlinks), case-only renames, files that become folders and back, type
changes, names that are not UTF-8; with base's listing kept, head's kept, both or neither. A kept
listing flipped, cut short, swapped with another or claiming another tree's content is a miss,
counted, and the listing is still git's own.
"""

from __future__ import annotations

import os
import random
import subprocess
from pathlib import Path

import pytest

from gen.cachefile import seal
from gen.guard.repo import listing as listingmod
from gen.guard.repo.listing import FOLDER, Listing, listing, listings

# names that meet in git's order: '-' and '.' sort before '/', '0' after; case twins; not UTF-8
NAMES = [b"a", b"a-b", b"a.b", b"a0", b"A", b"dns", b"Dns", b"x.yaml", b"X.yaml", b"\xff.yaml", "ö.yaml".encode(),
         "\U0001f600".encode()]
MODES = ("100644", "100755", "120000", "160000")


def _git(root: Path, *args: str, stdin: bytes | None = None, index: Path | None = None) -> bytes:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.invalid", "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1",
           "PATH": os.environ["PATH"], "HOME": str(root)}
    if index is not None:
        env["GIT_INDEX_FILE"] = str(index)
    return subprocess.run(["git", *args], cwd=root, env=env, input=stdin, capture_output=True, check=True).stdout


class History:
    """A repository whose commits are written with git's plumbing from a model {path: (mode, id)}:
    no work tree, so any name and any entry type git holds can be made."""

    def __init__(self, root: Path, rng: random.Random) -> None:
        self.root, self.rng = root, rng
        root.mkdir()
        _git(root, "init", "-q")
        pool = root / "pool"
        pool.mkdir()
        for i in range(24):
            (pool / str(i)).write_bytes(f"content {i}\n".encode() * rng.randrange(1, 300))
        self.blobs = _git(root, "hash-object", "-w", *sorted(str(p) for p in pool.iterdir())).decode().split()
        self.state: dict[bytes, tuple[str, str]] = {}
        self.commits: list[str] = []

    def _path(self) -> bytes:
        depth = self.rng.randrange(1, 4)
        return b"/".join(self.rng.choice(NAMES) for _ in range(depth))

    def _entry(self, mode: str) -> tuple[str, str]:
        if mode == "160000":
            return mode, f"{self.rng.getrandbits(160):040x}"
        return mode, self.rng.choice(self.blobs)

    def _put(self, path: bytes, entry: tuple[str, str]) -> None:
        """Add an entry, dropping what would clash (a file where its folders go, a folder where it goes)."""
        parts = path.split(b"/")
        for i in range(1, len(parts)):
            self.state.pop(b"/".join(parts[:i]), None)
        for other in [p for p in self.state if p.startswith(path + b"/")]:
            del self.state[other]
        self.state[path] = entry

    def change(self) -> None:
        for _ in range(self.rng.randrange(1, 6)):
            op = self.rng.choice(["add", "add", "edit", "mode", "delete", "case", "deeper", "flatten"])
            paths = sorted(self.state)
            if op == "add" or not paths:
                self._put(self._path(), self._entry(self.rng.choice(MODES)))
                continue
            path = self.rng.choice(paths)
            mode, _ = self.state[path]
            if op == "edit":
                self.state[path] = self._entry(mode)
            elif op == "mode":  # chmod, a file made a symlink or a submodule, and back
                self.state[path] = self._entry(self.rng.choice([m for m in MODES if m != mode]))
            elif op == "delete":
                del self.state[path]
            elif op == "case":  # a case-only rename
                entry = self.state.pop(path)
                self._put(path.swapcase(), entry)
            elif op == "deeper":  # a file becomes a folder holding a file
                entry = self.state.pop(path)
                self._put(path + b"/" + self.rng.choice(NAMES), entry)
            elif op == "flatten":  # a folder becomes a file
                folder = path.rpartition(b"/")[0]
                if folder:
                    self._put(folder, self._entry("100644"))

    def commit(self) -> str:
        index = self.root / "index.tmp"
        index.unlink(missing_ok=True)
        records = b"".join(f"{mode} {oid}\t".encode() + path + b"\0" for path, (mode, oid) in sorted(self.state.items()))
        _git(self.root, "update-index", "-z", "--index-info", stdin=records, index=index)
        tree = _git(self.root, "write-tree", index=index).decode().strip()
        parent = ["-p", self.commits[-1]] if self.commits else []
        commit = _git(self.root, "commit-tree", tree, *parent, "-m", str(len(self.commits))).decode().strip()
        self.commits.append(commit)
        return commit


def full(root: Path, commit: str) -> list[tuple[str, str, str, str, str]]:
    """git's own listing, read here independently of the code under test: (path, mode, kind, id, size)."""
    out = []
    for record in _git(root, "ls-tree", "-r", "-l", "-z", "--full-tree", commit).split(b"\0"):
        if record:
            meta, path = record.split(b"\t", 1)
            mode, kind, oid, size = meta.decode().split()
            out.append((path.decode("utf-8", "surrogateescape"), mode, kind, oid, size))
    return out


def as_rows(found: Listing) -> list[tuple[str, str, str, str, str]]:
    """A listing as git's rows, in git's order (the order of the paths' bytes)."""
    rows = [(p, found.modes.get(p, "100644"), "blob", oid, str(found.sizes[p])) for p, oid in found.blobs.items()]
    rows += [(p, "160000", "commit", oid, "-") for p, oid in found.submodules.items()]
    return sorted(rows, key=lambda r: r[0].encode("utf-8", "surrogateescape"))


def assert_exact(found: Listing, root: Path, commit: str) -> None:
    truth = full(root, commit)
    assert as_rows(found) == truth
    assert list(found.blobs) == [r[0] for r in truth if r[2] == "blob"]  # the order a full listing gives
    assert list(found.sizes) == list(found.blobs)
    assert list(found.modes) == [r[0] for r in truth if r[2] == "blob" and r[1] != "100644"]
    assert list(found.submodules) == [r[0] for r in truth if r[2] == "commit"]


def changed_truth(root: Path, base: str, head: str) -> frozenset[str]:
    out = _git(root, "diff", "--name-only", "--no-renames", "-z", base, head, "--").split(b"\0")
    return frozenset(p.decode("utf-8", "surrogateescape") for p in out if p)


def history(tmp: Path, seed: int, commits: int = 10) -> History:
    made = History(tmp / f"repo-{seed}", random.Random(seed))
    for _ in range(commits):
        made.change()
        made.commit()
    return made


def _pairs(made: History, count: int) -> list[tuple[str, str]]:
    pairs = [(made.rng.choice(made.commits), made.rng.choice(made.commits)) for _ in range(count)]
    return [(made.commits[0], made.commits[-1]), *pairs]


def _check_seed(tmp: Path, seed: int, pairs: int) -> None:
    made = history(tmp, seed)
    root = made.root
    for n, (base, head) in enumerate(_pairs(made, pairs)):
        commits = {"base": base, "head": head}
        cache = tmp / f"cache-{seed}-{n}"
        trees = dict(zip(("base", "head"), listingmod.tree_ids(root, [base, head]), strict=True))
        states = {"no cache": None, "nothing kept": cache, "both kept": cache}
        for state, directory in [*states.items(), ("head kept", cache), ("base kept", cache)]:
            if state == "head kept" and trees["base"] != trees["head"]:
                (cache / FOLDER / f"{trees['base']}.tree").unlink()
            if state == "base kept" and trees["base"] != trees["head"]:
                (cache / FOLDER / f"{trees['head']}.tree").unlink()
            pair = listings(root, commits, directory)
            what = f"seed {seed}, {base[:7]}..{head[:7]}, {state}"
            assert_exact(pair.base, root, base), what
            assert_exact(pair.head, root, head), what
            assert pair.changed == changed_truth(root, base, head), what
            assert pair.rejected == 0, what
        one, rejected = listing(root, head, cache)
        assert_exact(one, root, head)
        assert rejected == 0


@pytest.mark.parametrize("seed", range(3))
def test_a_listing_made_from_a_kept_one_and_the_diff_is_git_s_own(seed: int, tmp_path: Path) -> None:
    _check_seed(tmp_path, seed, 6)


@pytest.mark.slow
def test_listings_agree_on_many_random_histories(tmp_path: Path) -> None:
    for seed in range(10, 30):
        _check_seed(tmp_path, seed, 12)


# -- adversarial kept listings: a miss, counted, and git's own listing all the same ---------------

def _flip(data: bytes, rng: random.Random) -> bytes:
    bit = rng.randrange(len(data) * 8)
    return data[:bit // 8] + bytes([data[bit // 8] ^ (1 << (bit % 8))]) + data[bit // 8 + 1:]


@pytest.mark.parametrize("seed", range(4))
def test_a_damaged_or_swapped_kept_listing_is_a_miss_and_the_listing_git_s_own(seed: int, tmp_path: Path) -> None:
    made = history(tmp_path, 100 + seed, 6)
    rng, root = made.rng, made.root
    for n, (base, head) in enumerate(_pairs(made, 4)):
        tb, th = listingmod.tree_ids(root, [base, head])
        if tb == th:
            continue
        cache = tmp_path / f"cache-{n}"
        listings(root, {"base": base, "head": head}, cache)
        files = {t: cache / FOLDER / f"{t}.tree" for t in (tb, th)}
        kept = {t: p.read_bytes() for t, p in files.items()}
        resealed = {tb: seal([(tb, listingmod._encode(listingmod.list_whole(root, th)))]),
                    th: seal([(th, listingmod._encode(listingmod.list_whole(root, tb)))])}
        spoils = {
            "flip base": {tb: _flip(kept[tb], rng)},
            "flip head": {th: _flip(kept[th], rng)},
            "flip both": {tb: _flip(kept[tb], rng), th: _flip(kept[th], rng)},
            "cut base": {tb: kept[tb][:rng.randrange(len(kept[tb]))]},
            "cut head": {th: kept[th][:rng.randrange(len(kept[th]))]},
            "swap": {tb: kept[th], th: kept[tb]},
            "head's listing sealed as base's": {tb: resealed[tb]},
            "base's listing sealed as head's, base gone": {th: resealed[th], tb: None},
            "not a file": {tb: "fifo"},
        }
        for name, spoil in spoils.items():
            for tree, data in kept.items():
                files[tree].unlink(missing_ok=True)
                files[tree].write_bytes(data)
            for tree, data in spoil.items():
                files[tree].unlink(missing_ok=True)
                if data == "fifo":
                    os.mkfifo(files[tree])
                elif isinstance(data, bytes):
                    files[tree].write_bytes(data)
            pair = listings(root, {"base": base, "head": head}, cache)
            what = f"{base[:7]}..{head[:7]}, {name}"
            assert_exact(pair.base, root, base), what
            assert_exact(pair.head, root, head), what
            assert pair.changed == changed_truth(root, base, head), what
            # base's kept listing is read first; head's only when base's is not kept or did not meet the diff
            assert pair.rejected >= 1 if tb in spoil else pair.rejected == 0, what
            if tb in spoil:
                again = listings(root, {"base": base, "head": head}, cache)  # the damage was put right
                assert again.rejected == 0 and as_rows(again.head) == as_rows(pair.head), what
