"""Versions: the one parser for every release string, and the CoreDNS release that gates `next`.

Which CoreDNS a platform release ships belongs to the platform (gen/platforms/<name>.py);
CoreDNS's own per-option history is gen/lint/option_releases.py; the release tables are
gen/platforms/releases.py (sources in gen/data/SOURCES.md).
"""

from __future__ import annotations

import functools
import re
from typing import NamedTuple


class Version(NamedTuple):
    major: int
    minor: int
    patch: int = 0

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}.{self.patch}"


_VERSION = re.compile(r"^v?(\d+)\.(\d+)(?:\.(\d+))?")


@functools.lru_cache(maxsize=256)  # a render asks for the same few releases thousands of times
def parse_version(text: str) -> Version:
    """Parse `v1.34.9+k3s1`, `1.34`, `1.14.6` into (major, minor, patch); suffixes ignored."""
    m = _VERSION.match(text.strip())
    if not m:
        raise ValueError(f"not a version: {text!r}")
    return Version(int(m[1]), int(m[2]), int(m[3] or 0))


# CoreDNS feature gates (coredns/coredns plugin/forward/setup.go at each tag).
NEXT_MIN = Version(1, 11, 4)  # forward `next RCODE…` (implies several forwards per block, 1.9.4)
