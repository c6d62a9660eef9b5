"""Parsed manifests kept between runs by blob id, beside the build cache.

A warm guard run over a fleet still parses every root file and source object it reads (a few
hundred YAML files, ~0.4 ms each with libyaml). Their documents depend only on the blob's bytes
and the loader, so they are kept marshalled (like gen/codecache.py) in one file named by the
loader, holding what the last run used; documents marshal cannot hold (a YAML timestamp) are
parsed again instead.
"""

from __future__ import annotations

import marshal
from pathlib import Path
from typing import Any

from gen.cachefile import write_entry
from gen.guard.repo import manifests


def _path(directory: Path) -> Path:
    return directory / "parsed" / f"{manifests.LOADER}.marshal"


def load(directory: Path | None) -> None:
    """Start a run: make what an earlier run kept known to `manifests.file_docs` (nothing when
    unreadable)."""
    manifests.USED.clear()
    manifests.ADDED.clear()
    if len(manifests.BY_BLOB) > 200_000:  # one process, many runs (a test session): bounded
        manifests.BY_BLOB.clear()
    if directory is None:
        return
    try:
        kept = marshal.loads(_path(directory).read_bytes())
    except (OSError, ValueError, EOFError, TypeError):
        return
    if isinstance(kept, dict):
        for blob, docs in kept.items():
            manifests.BY_BLOB.setdefault(blob, docs)


def save(directory: Path | None) -> None:
    """Keep the documents this run used, when it parsed any it did not have."""
    if directory is None or not manifests.ADDED:
        return
    used = {b: manifests.BY_BLOB[b] for b in sorted(manifests.USED) if b in manifests.BY_BLOB}
    try:
        data = marshal.dumps(used)
    except ValueError:  # a document with a type marshal cannot hold: keep the others
        data = marshal.dumps({b: d for b, d in used.items() if _marshals(d)})
    write_entry(_path(directory), data)


def _marshals(docs: Any) -> bool:
    try:
        marshal.dumps(docs)
    except ValueError:
        return False
    return True
