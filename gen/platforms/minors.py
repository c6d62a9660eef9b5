"""Platforms whose release is a Kubernetes minor (AKS, kubeadm, Gardener): one table, one reading.

Each maps (major, minor) to the CoreDNS that minor ships (None: the platform does not say), and
answers the Platform protocol's release questions the same way from it.
"""

from __future__ import annotations

from typing import Mapping, NamedTuple

from gen.versions import Version, parse_version


class MinorTable(NamedTuple):
    coredns: Mapping[tuple[int, int], Version | None]
    prefix: str = ""  # how users write the release: "v" for kubeadm's v1.35.0, "" for AKS's 1.34
    suffix: str = ""  # ".x" when any patch of the minor is meant

    def known(self) -> str:
        return ", ".join(f"{self.prefix}{a}.{b}{self.suffix}" for a, b in sorted(self.coredns))

    def releases(self) -> tuple[Version, ...]:
        return tuple(Version(a, b, 0) for a, b in sorted(self.coredns))

    def stand_in(self, release: str) -> str | None:
        """A row is a whole minor: any patch of a known minor is known."""
        v = parse_version(release)
        return release if (v.major, v.minor) in self.coredns else None

    def newest_release(self) -> str:
        a, b = max(self.coredns)
        return f"{self.prefix}{a}.{b}{self.suffix}"

    def coredns_for(self, release: str) -> Version | None:
        v = parse_version(release)
        return self.coredns.get((v.major, v.minor))

    def unknown(self, release: str, what: str, hint: str) -> tuple[str, str] | None:
        """(problem, hint) when the release's minor is not in the table."""
        v = parse_version(release)
        if (v.major, v.minor) in self.coredns:
            return None
        return f"unknown {what} {release}", f"{hint}{self.known()}"
