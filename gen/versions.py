"""Which CoreDNS each platform release ships, and the CoreDNS releases that gate features.

Every figure comes from ../shared/upstream/FACTS.md (§2 and §6); keep the two in step.
A platform release we have no fact for is refused rather than guessed, with a hint to set
`corednsVersion` explicitly.
"""

from __future__ import annotations

import re
from typing import NamedTuple


class Version(NamedTuple):
    major: int
    minor: int
    patch: int = 0

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}.{self.patch}"


_VERSION = re.compile(r"^v?(\d+)\.(\d+)(?:\.(\d+))?")


def parse_version(text: str) -> Version:
    """Parse `v1.34.9+k3s1`, `1.34`, `1.14.6` into (major, minor, patch); suffixes ignored."""
    m = _VERSION.match(text.strip())
    if not m:
        raise ValueError(f"not a version: {text!r}")
    return Version(int(m[1]), int(m[2]), int(m[3] or 0))


# CoreDNS feature gates (FACTS.md §2).
NEXT_MIN = Version(1, 11, 4)  # forward `next RCODE…` (implies several forwards per block, 1.9.4)

# Talos: (minor) -> list of (first patch, CoreDNS) in ascending order (FACTS.md §6).
TALOS_COREDNS: dict[tuple[int, int], list[tuple[int, Version]]] = {
    (1, 8): [(0, Version(1, 11, 3))],
    (1, 9): [(0, Version(1, 12, 0))],
    (1, 10): [(0, Version(1, 12, 1))],
    (1, 11): [(0, Version(1, 12, 2)), (1, Version(1, 12, 3)), (3, Version(1, 12, 4))],
    (1, 12): [(0, Version(1, 13, 2)), (8, Version(1, 14, 3)), (9, Version(1, 14, 2))],
    (1, 13): [(0, Version(1, 14, 2)), (7, Version(1, 14, 4)), (8, Version(1, 14, 6))],
}
# Newest patch FACTS.md covers per Talos minor; later patches are not guessed.
TALOS_LAST_KNOWN_PATCH = {(1, 8): 4, (1, 9): 6, (1, 10): 9, (1, 11): 6, (1, 12): 11, (1, 13): 9}

# k3s: exact releases FACTS.md names -> CoreDNS.
K3S_COREDNS: dict[Version, Version] = {
    Version(1, 32, 9): Version(1, 12, 3),
    Version(1, 32, 10): Version(1, 13, 1),
    Version(1, 34, 2): Version(1, 13, 1),
    Version(1, 34, 9): Version(1, 14, 4),
    Version(1, 36, 3): Version(1, 14, 6),
}
# k3s imports *.override before its own `forward` from these releases on (PR #12980);
# before them a root `forward .` override is unreachable. release-1.33 is unverified.
K3S_OVERRIDE_ORDER_FIXED = {(1, 32): 10, (1, 34): 2}
K3S_OVERRIDE_ORDER_FIXED_FROM_MINOR = (1, 35)

# AKS Kubernetes minor -> CoreDNS (supported-kubernetes-versions.md, FACTS.md §6).
AKS_COREDNS: dict[tuple[int, int], Version] = {
    (1, 32): Version(1, 11, 3),
    (1, 33): Version(1, 12, 1),
    (1, 34): Version(1, 13, 1),
    (1, 35): Version(1, 13, 1),
    (1, 36): Version(1, 14, 3),
}


def talos_coredns(version: Version) -> Version | None:
    """CoreDNS that a Talos release deploys by default, or None when FACTS.md has no figure."""
    minor = (version.major, version.minor)
    table = TALOS_COREDNS.get(minor)
    if table is None or version.patch > TALOS_LAST_KNOWN_PATCH[minor]:
        return None
    chosen = table[0][1]
    for first_patch, coredns in table:
        if version.patch >= first_patch:
            chosen = coredns
    return chosen


def k3s_coredns(version: Version) -> Version | None:
    return K3S_COREDNS.get(version)


def aks_coredns(version: Version) -> Version | None:
    return AKS_COREDNS.get((version.major, version.minor))


def k3s_override_after_forward(version: Version) -> bool | None:
    """True when k3s imports *.override after its own forward (old order); None if unknown."""
    minor = (version.major, version.minor)
    if minor >= K3S_OVERRIDE_ORDER_FIXED_FROM_MINOR:
        return False
    if minor in K3S_OVERRIDE_ORDER_FIXED:
        return version.patch < K3S_OVERRIDE_ORDER_FIXED[minor]
    if minor < (1, 32):
        return True
    return None
