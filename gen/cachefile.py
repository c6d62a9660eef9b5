"""Write one cache entry whole or not at all, and never fail the run over it.

Every cache here (compiled validators, guard builds) is an optimisation: processes racing on
one entry must see it complete or absent, and a read-only home or a full disk must only cost
time, never an error or a stray temp file.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_entry(entry: Path, data: bytes) -> None:
    """Write `data` to `entry` through a temp sibling and a rename; give up quietly on OSError."""
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=entry.parent, prefix=".tmp-", suffix=entry.suffix)
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(tmp, entry)
    except OSError:
        Path(tmp).unlink(missing_ok=True)
