"""A content-addressed cache of builds, so an unchanged Kustomization is never built twice.

The key is a fingerprint of the Flux spec and the blob ids of every file the build reads
(gen/guard/build/inputs.py) plus the kustomize engine's identity; the same key always means the same
output, so entries never need invalidating. A CI job that restores the directory between runs
(e.g. actions/cache) judges a one-file change by building only what that file feeds.

Entries are kept in packs, one file per run that built something, not one file per build: a
fleet's cold run makes thousands of entries, and a file each cost ~1 ms of kernel time apiece
(a third of a full cold run on a CI disk). A pack is written whole or not at all, sealed
(gen/cachefile.py): an entry is used only if its digest over fingerprint and content verifies,
so a reader that finds a pack gone, torn, flipped or edited only misses. Past `MAX_PACKS` the
packs are merged into one, newest entries first, up to `MAX_BYTES`.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from gen.cachefile import Sealed, seal, write_entry

PACKS = "builds-2"  # the folder of packs; the number is the format's (2: sealed, gen/cachefile.py)
MAX_PACKS = 8
MAX_BYTES = 256 << 20  # what a merge keeps: a 200-cluster fleet's two revisions take ~6 MiB


def default_dir() -> Path:
    """`COREDNS_GEN_CACHE_DIR`, else ~/.cache/coredns-gen/guard; read when a guard run starts (not at
    import), so whoever sets the variable later, a test or a wrapper, gets its own cache."""
    return Path(os.environ.get("COREDNS_GEN_CACHE_DIR") or "~/.cache/coredns-gen/guard").expanduser()


class BuildCache:
    """Build results by fingerprint; `None` dir disables it. `save` keeps what a run added.

    Each entry is verified against its digest (over fingerprint and content) when a run asks for
    it; one that does not verify is a miss, rebuilt, and counted in `rejected` with whatever the
    run's other caches found (`count_rejected`), for the run to say once. A run that found a pack
    damaged merges the packs at its end, keeping only entries that verify."""

    def __init__(self, directory: Path | None) -> None:
        # a packs folder that is a symlink leads elsewhere: merging would delete that folder's
        # *.pack files, which are not this cache's. It is neither read nor written (said once).
        self.linked = directory is not None and (directory / PACKS).is_symlink()
        self.directory = None if self.linked else directory
        self.hits = 0
        self._sealed: list[Sealed] | None = None  # every pack, newest first, read at the first get
        self._packs: list[Path] = []  # oldest first
        self._added: dict[str, bytes] = {}
        self._elsewhere = 0  # entries of the run's other caches that did not verify

    @property
    def rejected(self) -> int:
        """Cached entries (or damaged cache files) this run found wrong and did not use."""
        return self._elsewhere + sum(s.rejected for s in self._sealed or ())

    def count_rejected(self, count: int) -> None:
        """Add what another cache of the run (parsed manifests, resolutions) did not verify."""
        self._elsewhere += count

    def note(self) -> str | None:
        """The one line a run says when cached entries did not verify (or the cache was not
        used); None when all did."""
        if self.linked:
            return (f"note: the build cache's {PACKS} folder is a symlink, which is not followed: no build was "
                    f"cached (remove the link, or point COREDNS_GEN_CACHE_DIR at a folder of its own)")
        if not self.rejected:
            return None
        return (f"note: {self.rejected} cached entries in {self.directory} did not verify (damaged, torn or "
                "not their key's) and were built, parsed or resolved again")

    def _folder(self) -> Path:
        assert self.directory is not None
        return self.directory / PACKS

    def _load(self) -> list[Sealed]:
        if self._sealed is None:
            try:
                self._packs = sorted(p for p in self._folder().iterdir() if p.suffix == ".pack")
            except OSError:
                self._packs = []
            self._sealed = [Sealed.read(pack) for pack in reversed(self._packs)]
        return self._sealed

    def _kept(self, fingerprint: str) -> bytes | None:
        """The newest verified entry of any pack (an older pack may still hold a sound copy)."""
        for sealed in self._load():
            if fingerprint in sealed:
                content = sealed.open(fingerprint)
                if content is not None:
                    return content
        return None

    def get(self, fingerprint: str) -> list[dict[str, Any]] | None:
        data = self.peek(fingerprint)
        if data is not None:
            self.hits += 1
        return data

    def peek(self, fingerprint: str) -> list[dict[str, Any]] | None:
        """`get` without counting a hit: what a build that is not served read before."""
        if self.directory is None:
            return None
        entry = self._added.get(fingerprint) or self._kept(fingerprint)
        if entry is None:
            return None
        try:
            data = json.loads(entry)
        except ValueError:
            return None
        if not isinstance(data, list):
            return None
        return data

    def put(self, fingerprint: str, objects: list[dict[str, Any]]) -> None:
        """Keep a successful build for `save`; failures are not cached (the tool may have been missing)."""
        if self.directory is None:
            return
        self._added[fingerprint] = json.dumps(objects, separators=(",", ":")).encode()  # the C encoder

    def save(self) -> None:
        """Write this run's new entries as one pack; merge the packs when there are too many, or
        when one was found damaged."""
        if self.directory is None:
            return
        damaged = any(s.rejected for s in self._sealed or ())
        if not self._added and not damaged:
            return
        folder = self._folder()
        self._load()
        added = {fp: data for fp, data in sorted(self._added.items()) if self._kept(fp) != data}
        packs = list(self._packs)
        if added:
            written = folder / f"{time.time_ns():020d}-{os.getpid()}.pack"
            write_entry(written, seal(added.items()))
            packs.append(written)
        if damaged or len(packs) > MAX_PACKS:
            self._merge(folder, added, packs)

    def _merge(self, folder: Path, added: dict[str, bytes], packs: list[Path]) -> None:
        """One pack for all: this run's entries, then each older pack's that verify, newest first,
        to MAX_BYTES. Only the packs merged are removed (a racing run's new pack stays); a reader
        mid-merge misses."""
        merged: dict[str, bytes] = {}
        size = 0

        def keep(fp: str, data: bytes) -> None:
            nonlocal size
            if fp not in merged and size + len(data) <= MAX_BYTES:
                merged[fp] = data
                size += len(data)

        for fp, data in added.items():
            keep(fp, data)
        for pack in reversed(self._packs):
            sealed = Sealed.read(pack)  # read again: what this run counted stays as it found it
            for fp in sealed.keys():
                content = sealed.open(fp)
                if content is not None:
                    keep(fp, content)
        target = folder / f"{time.time_ns():020d}-{os.getpid()}-merged.pack"
        write_entry(target, seal(sorted(merged.items())))
        if not target.is_file():
            return  # not written (a full disk): keep what there is
        for pack in packs:
            try:
                pack.unlink(missing_ok=True)
            except OSError:
                return
