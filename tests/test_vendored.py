"""Vendored upstream data is exactly what its SOURCES.md says it is.

Render, lint and verify trust `gen/data/` (and tests trust `tests/data/upstream/`) to be the
platforms' own text byte for byte; a file edited, added or removed without its provenance row
fails here, so a changed default can never slip in unrecorded.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FOLDERS = [REPO / "gen" / "data", REPO / "tests" / "data" / "upstream", REPO / "tests" / "data" / "charts",
           REPO / "tests" / "data" / "replays", REPO / "tests" / "data" / "bootstraps-realworld"]
_ROW = re.compile(r"^\| `(?P<file>[^`]+)` \|.*\| `(?P<sha>[0-9a-f]{64})` \|$")


def _recorded(folder: Path) -> dict[str, str]:
    rows = {}
    for line in (folder / "SOURCES.md").read_text(encoding="utf-8").splitlines():
        match = _ROW.match(line)
        if match:
            rows[match["file"]] = match["sha"]
    return rows


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: p.relative_to(REPO).as_posix())
def test_every_vendored_file_has_its_source_and_hash(folder: Path) -> None:
    present = {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
               for p in folder.rglob("*") if p.is_file() and p.name != "SOURCES.md"}
    assert present, f"nothing vendored under {folder}"
    assert present == _recorded(folder), f"update {folder.relative_to(REPO)}/SOURCES.md (source, licence, sha256)"
