"""`--shard K/N`: judge a stable 1/N of the clusters, so a fleet can fan out over a CI matrix.

A cluster is its root's file (`clusters/c042/flux-system/gotk-sync.yaml`). The roots are found
from the files of the whole fleet at base and head (no build), the same on every machine; the
fleet's clusters, ordered by the sha256 of their root files, are cut into N runs of equal length
(one more in some), and shard K takes the K-th: each of N machines builds 1/N of the clusters,
cold or warm, from their roots down. A hash alone (`sha256 mod N`) left shards uneven (200
clusters in 4: 60/47/53/40, the slowest a fifth over the even share); the order by hash keeps
names of one kind (`prod-*`) spread, and a cluster added to the fleet moves at most N-1 others
to a neighbouring shard, so a shard's cache still serves. Whether a file is `unreached` (no
cluster's build reads it) needs every cluster: each shard names the files its own clusters do not
read, and guard-merge keeps the files no shard's clusters read.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, replace

from gen.errors import UsageError

_SPEC = re.compile(r"^([1-9][0-9]*)/([1-9][0-9]*)$")


def _rank(path: str) -> int:
    """A path's place in the shards' order: the first 8 bytes of its sha256 (every machine agrees)."""
    return int.from_bytes(hashlib.sha256(path.encode("utf-8")).digest()[:8], "big")


@dataclass(frozen=True)
class Shard:
    index: int  # 1-based
    count: int
    fleet_clusters: int = 0  # clusters of the whole fleet, once the fleet is known (of_fleet)

    @classmethod
    def parse(cls, text: str) -> Shard:
        match = _SPEC.match(text.strip())
        if not match or not 1 <= int(match.group(1)) <= int(match.group(2)):
            raise UsageError(f"--shard {text!r} is not K/N with 1 <= K <= N", key="--shard",
                             hint="e.g. --shard 2/4 for the second of four shards (a CI matrix index from 1)")
        return cls(int(match.group(1)), int(match.group(2)))

    clusters: frozenset[str] | None = None  # this shard's clusters (root files), once the fleet is known

    def holds(self, path: str) -> bool:
        """Whether this unreached file (read by no cluster) falls in this shard: by its hash."""
        return _rank(path) % self.count == self.index - 1

    def of_fleet(self, fleet: set[str]) -> Shard:
        """This shard with its clusters of `fleet` (root files): the K-th of N equal runs of the
        fleet ordered by hash."""
        ordered = sorted(fleet, key=lambda c: (_rank(c), c))
        low, high = (self.index - 1) * len(ordered) // self.count, self.index * len(ordered) // self.count
        return replace(self, fleet_clusters=len(ordered), clusters=frozenset(ordered[low:high]))

    def mine(self, fleet: set[str]) -> frozenset[str]:
        """The clusters of `fleet` (root files) that fall in this shard."""
        mine = self.of_fleet(fleet).clusters
        assert mine is not None
        return mine

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def line(self, clusters: int) -> str:
        """The summary line that says what this shard covered (never silent when it is nothing)."""
        if clusters == 0:
            return (f"  shard {self} judged nothing: none of the fleet's {self.fleet_clusters} clusters falls in it "
                    "(merge every shard's --result with `coredns-gen guard-merge`)")
        return f"  shard {self}: {clusters} of the fleet's {self.fleet_clusters} clusters; merge every shard's --result with `coredns-gen guard-merge`"
