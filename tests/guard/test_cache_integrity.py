"""Caches that cannot lie: whatever happened to the guard's cache between runs (a
flipped bit, a tear, one key's entry put under another's), the verdict is the one a run without
the cache gives, and the run says once that entries did not verify.

CI restores ~/.cache/coredns-gen/guard from a shared store, so it is input like any other: one
flipped bit in a kept build (`ConfigMap` -> `ConfigMaq`) used to turn this refusal into a pass.
"""

from __future__ import annotations

import json
import os
import struct
import tempfile
from pathlib import Path
from typing import Callable, Iterator

import pytest
from typer.testing import CliRunner

from gen.cachefile import MAGIC, seal
from gen.cli import app
from gen.finding import Finding, blocking
from gen.guard import GuardOptions, run_guard
from gen.guard.build import cache as cachemod
from gen.guard.build.cache import BuildCache
from gen.guard.repo import listing as listingmod
from gen.guard.repo import marks as marksmod
from gen.guard.repo import manifests
from gen.guard.repo.revision import Tree
from tests.guard.conftest import configmap, flux_ks, hpa, kustomization
from tests.helpers import git

# One cluster; head drops coredns-custom from the platform Kustomization: refused (exit 1).
BASE = {
    "clusters/prod/platform.yaml": flux_ks("platform", "./platform"),
    "platform/kustomization.yaml": kustomization("coredns"),
    "platform/coredns/kustomization.yaml": kustomization("coredns-custom.yaml"),
    "platform/coredns/coredns-custom.yaml": configmap("coredns-custom", data="corp.server: |\n  corp:53 {\n    forward . 10.0.0.1\n  }"),
}
HEAD = {"platform/coredns/kustomization.yaml": kustomization("hpa.yaml"), "platform/coredns/hpa.yaml": hpa(2)}
BASE_BUILD = b'"name":"coredns-custom"'  # only base's build of ./platform holds it
HEAD_BUILD = b'"kind":"HorizontalPodAutoscaler"'  # only head's does
RECORD_HEAD = 32 + 8 + 64  # a sealed record's digest, lengths and key (a fingerprint) before its content
END = seal([])[len(MAGIC):]  # the record that ends a sealed file

Outcome = tuple[list[Finding], bool, list[str]]  # the findings, whether they refuse, the notes said


def judge(root: Path, cache: Path | None) -> Outcome:
    """One run, as a new process would make it: nothing parsed in memory by the runs before."""
    manifests.BY_BLOB.clear()
    result = run_guard(GuardOptions(repo=root, base="base", cache_dir=cache))
    return result.findings, blocking(result.findings), result.notes


def cli(root: Path, cache: Path) -> tuple[int, str, str]:
    manifests.BY_BLOB.clear()  # as in a new process
    result = CliRunner().invoke(app, ["guard", "--repo", str(root), "--base", "base"],
                                env={"GITHUB_ACTIONS": "", "COREDNS_GEN_CACHE_DIR": str(cache)})
    return result.exit_code, result.stdout, result.stderr


class Cache:
    """The cache one run left, put back as it was (but for one file) before each damaged run."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.files = {p: p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}

    def one(self, folder: str) -> Path:
        (path,) = [p for p in self.files if p.parent.name == folder]
        return path

    def with_(self, path: Path, data: bytes) -> Path:
        for p in self.directory.rglob("*"):
            if p.is_file() and p not in self.files:
                p.unlink()  # what the last damaged run wrote (its rebuilds, a merge)
        for p, kept in self.files.items():
            p.write_bytes(data if p == path else kept)
        return self.directory


@pytest.fixture
def refused(flux_repo: Callable[..., Path]) -> Iterator[tuple[Path, Cache, Outcome]]:
    """The repository, its warm cache (in memory where there is /dev/shm: it is rewritten
    thousands of times), and the verdict without any cache."""
    root = flux_repo(BASE, HEAD)
    truth = judge(root, None)
    assert truth[1] and "coredns-custom would be deleted by Flux" in truth[0][0].message and not truth[2]
    shm = Path("/dev/shm")
    with tempfile.TemporaryDirectory(dir=shm if shm.is_dir() and os.access(shm, os.W_OK) else None) as tmp:
        warm = Path(tmp) / "warm"
        assert judge(root, warm) == truth  # fills the cache
        assert judge(root, warm) == truth  # and reads it back whole
        yield root, Cache(warm), truth


def entry(data: bytes, needle: bytes) -> tuple[int, int]:
    """Where the JSON build holding `needle` starts and ends in a pack."""
    at = data.index(needle)
    return data.rindex(b"[{", 0, at), data.index(b"}]", at) + 2


def flipped(data: bytes, bit: int) -> bytes:
    return data[:bit // 8] + bytes([data[bit // 8] ^ (1 << (bit % 8))]) + data[bit // 8 + 1:]


def judged(root: Path, cache: Cache, path: Path, variants: dict[str, bytes], truth: Outcome) -> tuple[list[str], dict[str, list[str]]]:
    """Each variant of `path` judged once: those whose verdict differs from `truth`, and the notes of each."""
    wrong, notes = [], {}
    for name, data in variants.items():
        findings, refuses, said = judge(root, cache.with_(path, data))
        if (findings, refuses) != truth[:2]:
            wrong.append(f"{name}: {'refused' if refuses else 'passed'} with {[f.rule for f in findings]}")
        notes[name] = said
    return wrong, notes


def is_note(said: list[str], count: int) -> bool:
    return len(said) == 1 and said[0].startswith(f"note: {count} cached entries in ") and "did not verify" in said[0]


FLIP_SHARDS = 8  # every bit is flipped in one of them: shards only so pytest-xdist's workers share the ~2,100 runs


@pytest.mark.slow
@pytest.mark.parametrize("shard", range(FLIP_SHARDS))
def test_every_bit_of_a_cached_build_flipped_gives_the_verdict_of_no_cache(refused: tuple[Path, Cache, Outcome],
                                                                           shard: int) -> None:
    """Base's build of ./platform (the ConfigMap head prunes) as kept, its digest, lengths, key
    and content: each bit flipped in turn (~2,100 runs, every FLIP_SHARDS-th bit in each shard);
    the refusal stands every time, and a build that did not verify is said once."""
    root, cache, truth = refused
    pack = cache.one(cachemod.PACKS)
    data = pack.read_bytes()
    start, end = entry(data, BASE_BUILD)
    wrong, notes = judged(root, cache, pack, {f"bit {bit}": flipped(data, bit)
                                              for bit in range((start - RECORD_HEAD) * 8 + shard, end * 8, FLIP_SHARDS)},
                          truth)
    assert notes  # (each shard judged some bits)
    assert wrong == []
    assert all(len(said) <= 1 for said in notes.values())
    lengths_and_key = range((start - RECORD_HEAD + 32) * 8, start * 8)  # a flip there is a miss, or a torn pack
    assert all(is_note(said, 1) for name, said in notes.items() if int(name.split()[1]) not in lengths_and_key)


def records(data: bytes) -> list[tuple[bytes, str, bytes]]:
    """A sealed file's records as written: (digest, key, content)."""
    out, pos = [], len(MAGIC)
    while pos < len(data) - len(END):
        key_len, content_len = struct.unpack_from("<II", data, pos + 32)
        key_at = pos + RECORD_HEAD - 64
        out.append((data[pos:pos + 32], data[key_at:key_at + key_len].decode(), data[key_at + key_len:key_at + key_len + content_len]))
        pos = key_at + key_len + content_len
    return out


def unsealed(kept: list[tuple[bytes, str, bytes]]) -> bytes:
    """A sealed file of these records, digests as given (not computed): a hand edit."""
    return MAGIC + b"".join(d + struct.pack("<II", len(k.encode()), len(c)) + k.encode() + c for d, k, c in kept) + END


def test_every_bit_of_every_pack_entry_is_that_entry_or_a_miss(refused: tuple[Path, Cache, Outcome]) -> None:
    """At the cache itself, over the whole pack: a flip never yields other content under a key."""
    _, cache, _ = refused
    pack = cache.one(cachemod.PACKS)
    data = pack.read_bytes()
    kept = {key: json.loads(content) for _, key, content in records(data)}
    assert len(kept) == 2  # flux-system, and dns with its base and head builds as two variants of one key
    for bit in range(len(data) * 8):
        pack.write_bytes(flipped(data, bit))  # nothing else is read or written: no save
        found = BuildCache(cache.directory)
        got = {key: found.get(key) for key in kept}
        assert all(got[key] in (None, kept[key]) for key in kept), f"bit {bit}"
        assert found.rejected >= (None in got.values()) or bit < len(MAGIC) * 8 or any(
            k not in (r[1] for r in records(flipped(data, bit))) for k in kept if got[k] is None), f"bit {bit}"


def test_a_pack_torn_at_every_position_keeps_what_precedes_the_tear(refused: tuple[Path, Cache, Outcome]) -> None:
    """Cut anywhere, a pack's entries before the cut are read, the one cut and those after miss,
    and the tear is counted; judged whole at each record's edges and every 32nd byte, the verdict stands."""
    root, cache, truth = refused
    pack = cache.one(cachemod.PACKS)
    data = pack.read_bytes()
    ends, pos = [], len(MAGIC)
    for _, key, content in records(data):
        pos += RECORD_HEAD + len(content)
        ends.append((pos, key, json.loads(content)))
    for cut in range(len(data)):
        pack.write_bytes(data[:cut])
        found = BuildCache(cache.directory)
        assert [found.get(key) for _, key, _ in ends] == [objects if end <= cut else None for end, _, objects in ends]
        assert found.rejected == 1, f"cut at {cut}"
    cuts = sorted({c for end, _, _ in ends for c in (end - 1, end + 1, end - RECORD_HEAD)} | set(range(0, len(data), 32)))
    wrong, notes = judged(root, cache, pack, {f"cut {c}": data[:c] for c in cuts if c < len(data)}, truth)
    assert wrong == []
    assert all(is_note(said, 1) for said in notes.values())


@pytest.mark.parametrize("swap", ["objects", "seen"])
def test_base_build_believed_at_head_by_a_hand_edit_is_not_believed(refused: tuple[Path, Cache, Outcome], swap: str) -> None:
    """./platform's key keeps two builds (base's and head's, each with what it saw). Head's made to
    hold base's objects (the ConfigMap head prunes), or base's made to claim head's view: either
    would let base's build stand for head's. Not sealed so, it does not verify: head is built again."""
    root, cache, truth = refused
    pack = cache.one(cachemod.PACKS)
    kept = records(pack.read_bytes())
    (record,) = [r for r in kept if BASE_BUILD in r[2]]
    variants = json.loads(record[2])
    (base,) = [v for v in variants if BASE_BUILD.decode() in json.dumps(v, separators=(",", ":"))]
    (head,) = [v for v in variants if v is not base]
    if swap == "objects":
        head["objects"] = base["objects"]
    else:
        base["seen"] = head["seen"]
    edited = (record[0], record[1], json.dumps(variants, separators=(",", ":")).encode())
    wrong, notes = judged(root, cache, pack, {swap: unsealed([r if r is not record else edited for r in kept])}, truth)
    assert wrong == [] and is_note(notes[swap], 1)


def test_a_parse_cache_entry_swapped_or_flipped_is_parsed_again(refused: tuple[Path, Cache, Outcome]) -> None:
    """A parsed file kept with another file's documents, or any of its bytes flipped: parsed
    again; the verdict stands."""
    root, cache, truth = refused
    parsed = cache.one("parsed")
    data = parsed.read_bytes()
    kept = records(data)
    assert len(kept) >= 2
    first, second = kept[0], kept[1]
    variants = {"swap": unsealed([r if r is not first else (first[0], first[1], second[2]) for r in kept])}
    start = data.index(first[0])
    variants |= {f"byte {at}": flipped(data, at * 8 + at % 8) for at in range(start, start + RECORD_HEAD - 64 + len(first[1]) + len(first[2]))}
    wrong, notes = judged(root, cache, parsed, variants, truth)
    assert wrong == []
    assert is_note(notes["swap"], 1) and all(len(said) <= 1 for said in notes.values())


def test_a_kept_tree_listing_damaged_swapped_or_of_another_tree_gives_the_verdict_of_no_cache(
        refused: tuple[Path, Cache, Outcome]) -> None:
    """Base's kept listing (gen/guard/repo/listing.py) with bits flipped all along it, cut short,
    swapped with head's, or holding head's listing sealed under base's tree id: each is a miss,
    said once, and the refusal stands (a listing without ./platform's ConfigMap file at base would
    have passed)."""
    root, cache, truth = refused
    base_tree, head_tree = listingmod.tree_ids(root, [git_rev(root, "base"), git_rev(root, "HEAD")])
    base_file, head_file = (cache.directory / listingmod.FOLDER / f"{t}.tree" for t in (base_tree, head_tree))
    data = cache.files[base_file]
    head_sealed = seal([(base_tree, listingmod._encode(listingmod.list_whole(root, head_tree)))])
    variants = {f"bit {bit}": flipped(data, bit) for bit in range(0, len(data) * 8, 97)}
    variants |= {f"cut {at}": data[:at] for at in range(0, len(data), max(1, len(data) // 16))}
    variants["head's listing sealed as base's"] = head_sealed
    wrong, notes = judged(root, cache, base_file, variants, truth)
    assert wrong == []
    assert all(is_note(said, 1) for said in notes.values()), {k: v for k, v in notes.items() if not is_note(v, 1)}
    cache.with_(base_file, cache.files[head_file])
    head_file.write_bytes(data)  # the two swapped
    findings, refuses, said = judge(root, cache.directory)
    assert (findings, refuses) == truth[:2] and is_note(said, 2)


def test_kept_marks_damaged_give_the_verdict_of_no_cache(refused: tuple[Path, Cache, Outcome]) -> None:
    """Which files mention a Flux kind, kept by blob id (gen/guard/repo/marks.py): flipped all
    along or cut short, a miss said once, the files are read again, and the refusal stands."""
    root, cache, truth = refused
    path = cache.one(marksmod.FOLDER)
    data = cache.files[path]
    variants = {f"bit {bit}": flipped(data, bit) for bit in range(0, len(data) * 8, 61)}
    variants |= {f"cut {at}": data[:at] for at in range(0, len(data), max(1, len(data) // 12))}
    wrong, notes = judged(root, cache, path, variants, truth)
    assert wrong == []
    # a flipped key names strings nobody asks about: its record is a miss, found again, unsaid
    keys, pos = [], len(MAGIC)
    for _, key, content in records(data):
        keys.append(range((pos + 40) * 8, (pos + 40 + len(key.encode())) * 8))
        pos += 40 + len(key.encode()) + len(content)
    unsaid = {k: v for k, v in notes.items() if not is_note(v, 1)
              and not (k.startswith("bit") and any(int(k.split()[1]) in r for r in keys))}
    assert unsaid == {} and all(len(said) <= 1 for said in notes.values())


def test_a_warm_run_reads_no_file_to_find_the_bootstraps(refused: tuple[Path, Cache, Outcome],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A warm run answers which files mention a Flux kind from what the last run kept: it reads
    from git only the folder the change touches, where it anchors its finding: not the bootstraps
    and roots (every manifest of both revisions, read in one stream, before marks were kept)."""
    root, cache, truth = refused
    reads: list[str] = []
    real = Tree.read

    def read(tree: Tree, path: str) -> bytes:
        reads.append(path)
        return real(tree, path)

    monkeypatch.setattr(Tree, "read", read)
    assert judge(root, cache.directory)[:2] == truth[:2]
    assert reads and all(p.startswith("platform/coredns/") for p in reads), reads  # the change and its anchors


def git_rev(root: Path, ref: str) -> str:
    return git(root, "rev-parse", ref).strip()


def test_the_run_says_once_on_stderr_that_entries_did_not_verify(refused: tuple[Path, Cache, Outcome]) -> None:
    """Through the command: two damaged caches, one line, the same exit code and findings as without."""
    root, cache, _ = refused
    truth = cli(root, cache.directory)
    assert truth[0] == 1 and "note:" not in truth[2]
    pack, parsed = cache.one(cachemod.PACKS), cache.one("parsed")
    for path in (pack, parsed):
        data = path.read_bytes()
        (start, _) = entry(data, BASE_BUILD) if path == pack else (len(data) - len(END) - 3, 0)
        path.write_bytes(flipped(data, start * 8 + 2))  # a build's and a parse's content
    code, out, err = cli(root, cache.directory)
    assert (code, out) == truth[:2]
    (said,) = [line for line in err.splitlines() if line.startswith("note:")]
    assert said == (f"note: 2 cached entries in {cache.directory} did not verify (damaged, torn or not their "
                    "key's) and were built, parsed or resolved again")
    assert [line for line in err.splitlines() if not line.startswith("note:")] == truth[2].splitlines()
    assert "note:" not in cli(root, cache.directory)[2]  # the run after finds the cache healed


_WRONG_HELPER = '''#!{python}
"""A helper that says the same versions as the real one but builds otherwise: it drops {name}."""
import json, subprocess, sys
real = {real!r}
if sys.argv[1:2] != ["build"] or "-version" in sys.argv:
    sys.exit(subprocess.run([real, *sys.argv[1:]]).returncode)
proc = subprocess.Popen([real, *sys.argv[1:]], stdout=subprocess.PIPE)
for line in proc.stdout:
    data = json.loads(line)
    if isinstance(data.get("objects"), list):
        data["objects"] = [o for o in data["objects"] if (o.get("metadata") or {{}}).get("name") != {name!r}]
    sys.stdout.write(json.dumps(data) + "\\n")
    sys.stdout.flush()
sys.exit(proc.wait())
'''


@pytest.mark.slow
def test_a_build_kept_by_another_helper_binary_is_not_believed(flux_repo: Callable[..., Path], tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Another helper binary (rebuilt from changed code) that says the same protocol and library
    versions: what it built, indexed or answered is not reused by this one."""
    import sys

    from gen.tools import helper_binary

    real = helper_binary()
    assert real is not None
    root = flux_repo(BASE, HEAD)
    truth = judge(root, None)
    assert truth[1]
    wrong = tmp_path / "other-helper"
    wrong.write_text(_WRONG_HELPER.format(python=sys.executable, real=str(real), name="coredns-custom"))
    wrong.chmod(0o755)
    monkeypatch.setenv("COREDNS_GEN_HELPER", str(wrong))
    cache = tmp_path / "cache"
    assert not judge(root, cache)[1]  # what that helper builds passes (it never sees coredns-custom)
    monkeypatch.setenv("COREDNS_GEN_HELPER", str(real))
    assert judge(root, cache)[:2] == truth[:2]
