"""The values a guard run passes from stage to stage, before the change is judged.

A run is a chain of values, each made by a function of the ones before it: the two revisions'
trees -> the `Fleet` (every cluster's roots at each revision, how they were found, the evidence,
a digest; gen/guard/discovery.py `find_roots`) -> the reach plan (which clusters to explore;
gen/guard/reach.py) -> the `Exploration` (every Kustomization reached and built at each revision;
gen/guard/discovery.py `explore`) -> the `Change` (gen/guard/change.py) -> the verdict. Each is
frozen: a stage that needs more asks for it in its arguments, and nothing is set on a value
after it is made.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field

from gen.guard.flux.bootstraps import Evidence
from gen.guard.flux.roots import Candidate, How
from gen.guard.model import KsRef, Revision


@dataclass(frozen=True)
class Fleet:
    """Every cluster's roots at each revision ("base", "head"), as found in the repository.

    `roots` is what is explored (head also keeps a root base wrote that head deleted: a root is
    applied out of band, so it stays in the cluster); `candidates` every Kustomization that could have been one (their sources are the clusters'
    bootstrap sources); `how` says how they were found, `evidence` the scripts and tools that
    bootstrap, `refused` the files the fallback never takes as roots, and why."""

    roots: Mapping[str, tuple[Candidate, ...]]
    candidates: Mapping[str, tuple[Candidate, ...]] = field(default_factory=dict)
    how: Mapping[str, How] = field(default_factory=dict)
    evidence: Mapping[str, tuple[Evidence, ...]] = field(default_factory=dict)
    refused: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    flux_files: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # files that can hold Kustomizations
    remotes: frozenset[str] = frozenset()  # the clone's remote URLs: which sources are this repository
    synced_branch: str | None = None  # the branch --base names (a source tracking a ref is judged against it)
    under: tuple[str, ...] = ()  # --path: the roots were looked for under these folders
    # digests() per revision, made once: the plan, the index and the shards each ask (a memo of
    # values that never change, not state)
    _digests: dict[str, dict[str, str]] = field(default_factory=dict, compare=False, repr=False)

    def clusters(self) -> frozenset[str]:
        """Every cluster of the fleet, at either revision."""
        return frozenset(c.ks.ref.cluster for cands in self.roots.values() for c in cands)

    def root_refs(self) -> frozenset[KsRef]:
        return frozenset(c.ks.ref for cands in self.roots.values() for c in cands)

    def guessed(self) -> bool:
        """Whether the roots of a revision are the fallback's guess (no bootstrap found)."""
        return any(how == "fallback" for how in self.how.values())

    def digests(self, label: str) -> dict[str, str]:
        """Per cluster, one id of its roots at this revision as discovered: what they are, where
        they are written, their source and evidence (a cluster whose id differs is explored)."""
        known = self._digests.get(label)
        if known is not None:
            return dict(known)
        parts: dict[str, list[str]] = {}
        for c in self.roots.get(label, ()):
            parts.setdefault(c.ks.ref.cluster, []).append(json.dumps(
                [c.ks.build_id(), c.ks.path, c.file, c.namespace_given, c.source_object, c.not_ours, repr(c.evidence),
                 c.guessed, str(c.ks.ref), c.ks.source], sort_keys=True, default=str))
        found = self._digests[label] = {cluster: hashlib.sha256("\n".join(sorted(texts)).encode()).hexdigest()
                                        for cluster, texts in parts.items()}
        return dict(found)

    def digest(self) -> str:
        """One id of the fleet as this run found it: every cluster's roots at both revisions, the
        remotes and the synced branch they were judged with. Shards cut the fleet by it, so shards
        that found it otherwise (a guessed root's parent whose build failed on one machine only, a
        checkout with other remotes) would leave a cluster to no shard, or to two: guard-merge refuses."""
        found = {label: self.digests(label) for label in sorted(self.roots)}
        text = json.dumps([found, sorted(self.remotes), self.synced_branch], sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class Exploration:
    """Every Kustomization reached from the fleet's roots at each revision, built, and what no
    cluster reads: `unread` the files with Flux objects that no explored (or carried) cluster
    reads, `unreached` those of them the run owns (a --shard's hash; every file when not sharded)
    that hold Kustomizations."""

    revisions: Mapping[str, Revision]
    unread: tuple[str, ...] = ()
    unreached: tuple[str, ...] = ()

    def touched(self, every: bool = False) -> frozenset[str]:
        """The clusters the change touches: a build (its key or what it saw), the set of
        Kustomizations, or a root differs between base and head (`every`: all clusters, as an
        inventory asks). Every Kustomization is built already."""
        base, head = self.revisions["base"], self.revisions["head"]
        prints: dict[str, tuple[dict[KsRef, str | None], dict[KsRef, str | None]]] = {}
        for r in list(base.roots) + list(head.roots):
            prints.setdefault(r.cluster, ({}, {}))
        for index, rev in enumerate((base, head)):
            for ref, node in rev.nodes.items():
                marker = node.build.fingerprint if not node.external else f"external:{node.why_external}"
                prints.setdefault(ref.cluster, ({}, {}))[index][ref] = marker
        return frozenset(c for c, (before, after) in prints.items() if every or before != after or not before)
