"""A content-addressed cache of builds, so an unchanged Kustomization is never built twice.

The key is a fingerprint of the Flux spec and the blob ids of every file the build reads
(gen/guard/build/inputs.py) plus the kustomize engine's identity; the same key always means the same
output, so entries never need invalidating. A CI job that restores the directory between runs
(e.g. actions/cache) judges a one-file change by building only what that file feeds.

Entries are kept in packs, one file per run that built something, not one file per build: a
fleet's cold run makes thousands of entries, and a file each cost ~1 ms of kernel time apiece
(a third of a full cold run on a CI disk). A pack is written whole or not at all; a reader that
finds a pack gone or unreadable only misses. Past `MAX_PACKS` the packs are merged into one,
newest entries first, up to `MAX_BYTES`.
"""

from __future__ import annotations

import json
import marshal
import os
import time
from pathlib import Path
from typing import Any

from gen.cachefile import write_entry

PACKS = "builds-1"  # the folder of packs; the number is the format's
MAX_PACKS = 8
MAX_BYTES = 256 << 20  # what a merge keeps: a 200-cluster fleet's two revisions take ~6 MiB


def default_dir() -> Path:
    """`COREDNS_GEN_CACHE_DIR`, else ~/.cache/coredns-gen/guard; read when a guard run starts (not at
    import), so whoever sets the variable later, a test or a wrapper, gets its own cache."""
    return Path(os.environ.get("COREDNS_GEN_CACHE_DIR") or "~/.cache/coredns-gen/guard").expanduser()


def _read_pack(path: Path) -> dict[str, bytes]:
    """One pack's entries; empty when it is gone, torn or not ours."""
    try:
        entries = marshal.loads(path.read_bytes())
    except (OSError, ValueError, EOFError, TypeError):
        return {}
    return entries if isinstance(entries, dict) else {}


class BuildCache:
    """Build results by fingerprint; `None` dir disables it. `save` keeps what a run added."""

    def __init__(self, directory: Path | None) -> None:
        self.directory = directory
        self.hits = 0
        self._known: dict[str, bytes] | None = None  # every pack's entries, read at the first get
        self._packs: list[Path] = []  # oldest first
        self._added: dict[str, bytes] = {}

    def _folder(self) -> Path:
        assert self.directory is not None
        return self.directory / PACKS

    def _load(self) -> dict[str, bytes]:
        if self._known is None:
            self._known = {}
            try:
                self._packs = sorted(p for p in self._folder().iterdir() if p.suffix == ".pack")
            except OSError:
                self._packs = []
            for pack in self._packs:
                self._known.update(_read_pack(pack))
        return self._known

    def get(self, fingerprint: str) -> list[dict[str, Any]] | None:
        if self.directory is None:
            return None
        entry = self._added.get(fingerprint) or self._load().get(fingerprint)
        if not isinstance(entry, bytes):
            return None
        try:
            data = json.loads(entry)
        except ValueError:
            return None
        if not isinstance(data, list):
            return None
        self.hits += 1
        return data

    def put(self, fingerprint: str, objects: list[dict[str, Any]]) -> None:
        """Keep a successful build for `save`; failures are not cached (the tool may have been missing)."""
        if self.directory is None:
            return
        self._added[fingerprint] = json.dumps(objects, separators=(",", ":")).encode()  # the C encoder

    def save(self) -> None:
        """Write this run's new entries as one pack; merge the packs when there are too many."""
        if self.directory is None or not self._added:
            return
        folder = self._folder()
        known = self._load()
        added = {fp: data for fp, data in sorted(self._added.items()) if known.get(fp) != data}
        if not added:
            return
        written = folder / f"{time.time_ns():020d}-{os.getpid()}.pack"
        write_entry(written, marshal.dumps(added))
        if len(self._packs) + 1 > MAX_PACKS:
            self._merge(folder, added, [*self._packs, written])

    def _merge(self, folder: Path, added: dict[str, bytes], packs: list[Path]) -> None:
        """One pack for all: this run's entries, then each older pack's, newest first, to MAX_BYTES.
        Only the packs merged are removed (a racing run's new pack stays); a reader mid-merge misses."""
        merged: dict[str, bytes] = {}
        size = 0
        for entries in [added, *(_read_pack(p) for p in reversed(self._packs))]:
            for fp, data in entries.items():
                if fp not in merged and size + len(data) <= MAX_BYTES:
                    merged[fp] = data
                    size += len(data)
        target = folder / f"{time.time_ns():020d}-{os.getpid()}-merged.pack"
        write_entry(target, marshal.dumps(dict(sorted(merged.items()))))
        if not target.is_file():
            return  # not written (a full disk): keep what there is
        for pack in packs:
            try:
                pack.unlink(missing_ok=True)
            except OSError:
                return
