"""A content-addressed cache of builds, so an unchanged Kustomization is never built twice.

The key is a fingerprint of the Flux spec and the blob ids of every file the build reads
(gen/guard/inputs.py) plus the kustomize engine's identity; the same key always means the same
output, so entries never need invalidating. A CI job that restores the directory between runs
(e.g. actions/cache) judges a one-file change by building only what that file feeds.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from gen.cachefile import write_entry



def default_dir() -> Path:
    """`COREDNS_GEN_CACHE_DIR`, else ~/.cache/coredns-gen/guard; read when a guard run starts (not at
    import), so whoever sets the variable later, a test or a wrapper, gets its own cache."""
    return Path(os.environ.get("COREDNS_GEN_CACHE_DIR") or "~/.cache/coredns-gen/guard").expanduser()


class BuildCache:
    """Build results by fingerprint, one small JSON file each; `None` dir disables it."""

    def __init__(self, directory: Path | None) -> None:
        self.directory = directory
        self.hits = 0

    def _path(self, fingerprint: str) -> Path:
        assert self.directory is not None
        return self.directory / fingerprint[:2] / f"{fingerprint}.json"

    def get(self, fingerprint: str) -> list[dict[str, Any]] | None:
        if self.directory is None:
            return None
        try:
            data = json.loads(self._path(fingerprint).read_text())
        except (OSError, ValueError):
            return None
        if not isinstance(data, list):
            return None
        self.hits += 1
        return data

    def put(self, fingerprint: str, objects: list[dict[str, Any]]) -> None:
        """Store a successful build; failures are not cached (the tool may have been missing)."""
        if self.directory is None:
            return
        write_entry(self._path(fingerprint), json.dumps(objects, separators=(",", ":")).encode())  # the C encoder
