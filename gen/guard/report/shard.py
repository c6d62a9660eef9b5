"""`--shard K/N`: judge a stable 1/N of the clusters, so a fleet can fan out over a CI matrix.

A cluster is its root's file (`clusters/c042/flux-system/gotk-sync.yaml`), so a cluster falls in
shard `1 + sha256(root file) mod N`: the same shard at base and head, on every machine and in
every run, whatever else the repository holds. The roots are found from the files of the whole
fleet (no build), and only the shard's clusters are built and judged (from the root down), so
each of N machines builds about 1/N of the fleet, cold or warm. Whether a file is `unreached` (no
cluster's build reads it) needs every cluster: each shard names the files its own clusters do not
read, and guard-merge keeps the files no shard's clusters read.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from gen.errors import UsageError
from gen.guard.model import Revision

_SPEC = re.compile(r"^([1-9][0-9]*)/([1-9][0-9]*)$")


@dataclass(frozen=True)
class Shard:
    index: int  # 1-based
    count: int
    fleet_clusters: int = 0  # clusters of the whole fleet, filled in by restrict()

    @classmethod
    def parse(cls, text: str) -> Shard:
        match = _SPEC.match(text.strip())
        if not match or not 1 <= int(match.group(1)) <= int(match.group(2)):
            raise UsageError(f"--shard {text!r} is not K/N with 1 <= K <= N", key="--shard",
                             hint="e.g. --shard 2/4 for the second of four shards (a CI matrix index from 1)")
        return cls(int(match.group(1)), int(match.group(2)))

    def holds(self, path: str) -> bool:
        """Whether this cluster (root file) or unreached file falls in this shard."""
        digest = hashlib.sha256(path.encode("utf-8")).digest()
        return int.from_bytes(digest[:8], "big") % self.count == self.index - 1

    def mine(self, fleet: set[str]) -> frozenset[str]:
        """The clusters of `fleet` (root files) that fall in this shard."""
        return frozenset(c for c in fleet if self.holds(c))

    def restrict(self, revisions: dict[str, Revision], fleet: set[str]) -> Shard:
        """Drop every cluster outside the shard from both revisions (nothing, when only the
        shard's were explored); returns the shard with the fleet's cluster count (what the
        summary of an empty shard names)."""
        for rev in revisions.values():
            rev.roots = [r for r in rev.roots if self.holds(r.cluster)]
            rev.nodes = {ref: node for ref, node in rev.nodes.items() if self.holds(ref.cluster)}
        return Shard(self.index, self.count, len(fleet))

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def line(self, clusters: int) -> str:
        """The summary line that says what this shard covered (never silent when it is nothing)."""
        if clusters == 0:
            return (f"  shard {self} judged nothing: none of the fleet's {self.fleet_clusters} clusters falls in it "
                    "(merge every shard's --result with `coredns-gen guard-merge`)")
        return f"  shard {self}: {clusters} of the fleet's {self.fleet_clusters} clusters; merge every shard's --result with `coredns-gen guard-merge`"
