"""Parsed manifests kept between runs by blob id, beside the build cache.

A warm guard run over a fleet still parses every root file and source object it reads (a few
hundred YAML files, ~0.4 ms each with libyaml). Their documents depend only on the blob's bytes
and the loader, so they are kept marshalled (like gen/codecache.py) in one file named by the
loader, holding what the last run used; documents marshal cannot hold (a YAML timestamp) are
parsed again instead. Each blob's documents are a sealed entry (gen/cachefile.py) keyed by the
loader and the blob id: one that does not verify is parsed again, and never unmarshalled.
"""

from __future__ import annotations

import marshal
from pathlib import Path

from gen.cachefile import Sealed, seal, write_entry
from gen.guard.repo import manifests


def _path(directory: Path) -> Path:
    return directory / "parsed" / f"{manifests.LOADER}.sealed"


def _key(blob: str) -> str:
    return f"{manifests.LOADER} {blob}"


def load(directory: Path | None) -> int:
    """Start a run: make what an earlier run kept known to `manifests.file_docs` (nothing when
    unreadable). Returns how many kept entries did not verify (they are parsed again)."""
    manifests.USED.clear()
    manifests.ADDED.clear()
    if len(manifests.BY_BLOB) > 200_000:  # one process, many runs (a test session): bounded
        manifests.BY_BLOB.clear()
    if directory is None:
        return 0
    sealed = Sealed.read(_path(directory))
    prefix = _key("")
    for key in sealed.keys():
        content = sealed.open(key)
        if content is None or not key.startswith(prefix):
            continue
        try:
            docs = marshal.loads(content)
        except (ValueError, EOFError, TypeError):  # verified, so written by another Python: parse again
            continue
        if docs is None or isinstance(docs, tuple):
            manifests.BY_BLOB.setdefault(key[len(prefix):], docs)
    if sealed.rejected:
        sealed.drop(_path(directory))
    return sealed.rejected


def save(directory: Path | None) -> None:
    """Keep the documents this run used, when it parsed any it did not have."""
    if directory is None or not manifests.ADDED:
        return
    entries = []
    for blob in sorted(manifests.USED):
        if blob in manifests.BY_BLOB:
            try:
                entries.append((_key(blob), marshal.dumps(manifests.BY_BLOB[blob])))
            except ValueError:  # a document with a type marshal cannot hold: keep the others
                continue
    write_entry(_path(directory), seal(entries))
