"""What each cluster's builds looked at in one revision, kept between runs: the fleet index.

A one-file change reaches one cluster of a fleet, but a run that knows nothing must build every
Kustomization to learn what each reads. So every run keeps, per revision (by commit), what each
cluster's builds looked at, as kustomize's file system reported it (gen/guard/build/seen.py):
the paths read or checked, the folders listed and the folders walked. A later run whose base has
an index judges only the clusters the change reaches (gen/guard/reach.py): one whose looks meet a
changed path, whose roots differ, or that the index cannot vouch for. Every other cluster builds
the same at both revisions, so it prunes nothing and is not explored again.

A cluster is kept here only when what it applies is a function of its looks alone: every
Kustomization built from this repository's git artifact, no build failed or left the artifact, no
`substituteFrom` (its values may come from any file), no Helm chart kept in git and no Flux
Operator object in its output (rules judge those from outside kustomize's reads). A Flux source
in its output is fine: the file that writes it is one of its reads, and a change to a file that
holds a source anywhere is judged on the whole fleet (gen/guard/reach.py). Any other cluster
has no entry, and a cluster without an entry is always explored.

The index is a cache like the builds: a sealed file (gen/cachefile.py) per revision and context
(the code, the helper, the config, the remotes, `--path`), verified before it is believed; one that
does not verify is a miss, and the run explores the whole fleet as if there were none.
"""

from __future__ import annotations

import hashlib
import json
import posixpath
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

from gen.cachefile import Sealed, seal, write_entry

FOLDER = "index-1"  # the number is the format's
_RECENT = "recent.json"  # the commits indexed lately, newest first: a hint only (each index is sealed)
_RECENT_KEEP = 32
_HELM_GROUP = "helm.toolkit.fluxcd.io"
# Flux Operator objects: what they create is listed per run (gen/guard/coverage.py), never built
_OUTSIDE_GROUPS = ("fluxcd.controlplane.io",)


@dataclass(frozen=True)
class ClusterLooks:
    """One cluster at one revision, as far as a later run needs it without building it."""

    roots: str  # digest of the cluster's roots as discovered (gen/guard/discovery.py root_digests)
    looks: tuple[str, ...]  # "p:<path>" read or checked, "l:<dir>" listed, "t:<dir>" walked (repo paths)
    reads: tuple[str, ...]  # files its builds read and its Kustomizations are written in (`unreached`)
    nodes: int  # its Flux Kustomizations

    def reached(self, keys: frozenset[str]) -> bool:
        """Whether a change with these keys (`change_keys`) meets anything the builds looked at."""
        return not keys.isdisjoint(self.looks)


def change_keys(changed: Iterable[str], came_or_went: Callable[[str], bool] = lambda folder: True) -> frozenset[str]:
    """The looks a change of these repository paths can alter: each path itself, a listing of its
    folder, a walk of any folder above it (the root is ""), and a check of a folder above it that
    `came_or_went` says is a folder at one revision only (it came or went with the change)."""
    keys: set[str] = set()
    for path in changed:
        keys.add("p:" + path)
        parent = posixpath.dirname(path)
        keys.add("l:" + parent)
        while True:
            keys.add("t:" + parent)
            if came_or_went(parent):
                keys.add("p:" + parent)
            if not parent:
                break
            parent = posixpath.dirname(parent)
    return frozenset(keys)


def look_key(kind: str, path: str) -> str | None:
    """The index key of one look (a repository path); None for a look no index can vouch for."""
    path = "" if path in (".", "./") else path
    if kind in ("file", "stat"):
        return "p:" + path
    if kind == "list":
        return "l:" + path
    if kind == "tree":
        return "t:" + path
    return None


def outside_reads(objects: Iterable[Any]) -> bool:
    """Whether a build's output holds what rules judge from outside kustomize's reads: a Flux
    Operator object, or a HelmRelease whose chart is not a chart repository's."""
    for obj in objects:
        if not isinstance(obj, dict):
            continue
        group = str(obj.get("apiVersion") or "").split("/")[0]
        if group in _OUTSIDE_GROUPS:
            return True
        if group == _HELM_GROUP and obj.get("kind") == "HelmRelease":
            found = obj.get("spec")
            spec: dict[str, Any] = found if isinstance(found, dict) else {}
            chart = spec["chart"].get("spec") if isinstance(spec.get("chart"), dict) else None
            ref = chart.get("sourceRef") if isinstance(chart, dict) else None
            if spec.get("chartRef") is not None or not isinstance(ref, dict) or ref.get("kind") != "HelmRepository":
                return True
    return False


class FleetIndex:
    """Cluster looks per (context, commit) in `directory`; `None` keeps nothing."""

    def __init__(self, directory: Path | None) -> None:
        self.directory = directory
        self.rejected = 0  # index files that did not verify

    def _name(self, context: str, commit: str) -> str:
        return hashlib.sha256(f"{context}\0{commit}".encode()).hexdigest()

    def load(self, context: str, commit: str) -> dict[str, ClusterLooks] | None:
        """The clusters kept for this commit in this context, or None (absent, or did not verify)."""
        if self.directory is None:
            return None
        name = self._name(context, commit)
        path = self.directory / FOLDER / f"{name}.idx"
        if not path.exists():
            return None
        sealed = Sealed.read(path)
        content = sealed.open(name)
        if content is None or sealed.rejected:
            self.rejected += max(1, sealed.rejected)
            Sealed.drop(path)
            return None
        try:
            return _decode(json.loads(zlib.decompress(content)))
        except (ValueError, TypeError, KeyError, IndexError, zlib.error):
            self.rejected += 1
            Sealed.drop(path)
            return None

    def save(self, context: str, commit: str, clusters: dict[str, ClusterLooks], replace: bool = True) -> None:
        """Keep the clusters of this commit; with `replace` false an index already kept stays (a
        commit's index is a function of the commit and the context: a warm run need not rewrite it)."""
        if self.directory is None:
            return
        name = self._name(context, commit)
        path = self.directory / FOLDER / f"{name}.idx"
        if not replace and path.exists():
            return
        body = zlib.compress(json.dumps(_encode(clusters), separators=(",", ":"), sort_keys=True).encode(), 1)
        write_entry(path, seal([(name, body)]))
        self._prune()
        scope = hashlib.sha256(context.encode()).hexdigest()
        recent = [entry for entry in self._recent() if entry != [scope, commit]]
        write_entry(self.directory / FOLDER / _RECENT, json.dumps([[scope, commit], *recent][:_RECENT_KEEP]).encode())

    def _prune(self) -> None:
        """Keep the newest indexes only (a fleet's is a few MB, and each pull request adds one)."""
        assert self.directory is not None
        try:
            kept = sorted((self.directory / FOLDER).glob("*.idx"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
            for old in kept[_RECENT_KEEP:]:
                old.unlink(missing_ok=True)
        except OSError:
            pass  # a cache only costs time

    def recent(self, context: str) -> list[str]:
        """Commits indexed lately in this context, newest first (a hint: each index verifies itself)."""
        scope = hashlib.sha256(context.encode()).hexdigest()
        return [commit for kept_scope, commit in self._recent() if kept_scope == scope]

    def _recent(self) -> list[list[str]]:
        if self.directory is None:
            return []
        try:
            found = json.loads((self.directory / FOLDER / _RECENT).read_bytes())
        except (OSError, ValueError):
            return []
        if not isinstance(found, list):
            return []
        return [e for e in found if isinstance(e, list) and len(e) == 2 and all(isinstance(x, str) for x in e)]


def _encode(clusters: dict[str, ClusterLooks]) -> dict[str, Any]:
    """One table of paths (a fleet's clusters share their bases), each cluster as indexes into it."""
    table: dict[str, int] = {}

    def ids(items: tuple[str, ...]) -> list[int]:
        return [table.setdefault(item, len(table)) for item in items]

    out = {name: [c.roots, ids(c.looks), ids(c.reads), c.nodes] for name, c in sorted(clusters.items())}
    return {"paths": list(table), "clusters": out}


def _decode(doc: dict[str, Any]) -> dict[str, ClusterLooks]:
    paths: list[str] = doc["paths"]
    if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
        raise ValueError("paths")
    out = {}
    for name, (roots, looks, reads, nodes) in doc["clusters"].items():
        if not isinstance(roots, str) or not isinstance(nodes, int):
            raise ValueError(name)
        out[str(name)] = ClusterLooks(roots, tuple(paths[i] for i in looks), tuple(paths[i] for i in reads), nodes)
    return out
