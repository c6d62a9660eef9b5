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
`substituteFrom` (its values may come from any file), no Helm chart that may be this repository's
(`spec.chart` from a GitRepository or a Bucket; a `spec.chartRef` the run finds made of this
repository) and no Flux Operator object in its output (rules judge those from outside kustomize's
reads). A Flux source
in its output is fine: the file that writes it is one of its reads, and a change to a file that
holds a source anywhere is judged on the whole fleet (gen/guard/reach.py). Any other cluster
has no entry, and a cluster without an entry is always explored.

The index is a cache like the builds: a sealed file (gen/cachefile.py) per revision and context
(the code, the helper, the config, the remotes, `--path`, --base's branch), verified before it is
believed; one that does not verify is a miss, and the run explores the whole fleet as if there were
none.
"""

from __future__ import annotations

import array
import hashlib
import json
import posixpath
import re
import struct
import sys
import zlib
from pathlib import Path
from typing import Any, Callable, Iterable

from gen.cachefile import Sealed, read_entry, seal, write_entry

FOLDER = "index-2"  # the number is the format's
_RECENT = "recent.json"  # the commits indexed lately, newest first: a hint only (each index is sealed)
_RECENT_KEEP = 32
_COMMIT = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")  # a commit id (SHA-1 or SHA-256): never an option to git
_HELM_GROUP = "helm.toolkit.fluxcd.io"
# Flux Operator objects: a ResourceSet is rendered from inputs a build does not read (its input
# providers, gen/guard/flux/resourcesets.py), and what is not rendered is listed per run
_OUTSIDE_GROUPS = ("fluxcd.controlplane.io",)


class ClusterLooks:
    """One cluster at one revision, as far as a later run needs it without building it: the
    digest of its roots (gen/guard/discovery.py root_digests), its looks ("p:<path>" read or
    checked, "l:<dir>" listed, "t:<dir>" walked; repository paths), the files its builds read and
    its Kustomizations are written in (for `unreached`), and how many Kustomizations it has.
    A kept one holds its looks as ids into its index's table of paths, read only where asked."""

    __slots__ = ("roots", "nodes", "_looks", "_reads", "_table", "_look_ids", "_read_ids")

    def __init__(self, roots: str, looks: tuple[str, ...], reads: tuple[str, ...], nodes: int) -> None:
        self.roots, self.nodes = roots, nodes
        self._looks: tuple[str, ...] | None = looks
        self._reads: tuple[str, ...] | None = reads
        self._table: _Table | None = None
        self._look_ids: array.array[int] | None = None
        self._read_ids: array.array[int] | None = None

    @classmethod
    def kept(cls, roots: str, nodes: int, table: _Table, looks: array.array[int], reads: array.array[int]) -> ClusterLooks:
        made = cls(roots, (), (), nodes)
        made._looks = made._reads = None
        made._table, made._look_ids, made._read_ids = table, looks, reads
        return made

    @property
    def looks(self) -> tuple[str, ...]:
        if self._looks is None:
            assert self._table is not None and self._look_ids is not None
            self._looks = tuple(self._table.paths[i] for i in self._look_ids)
        return self._looks

    @property
    def reads(self) -> tuple[str, ...]:
        if self._reads is None:
            assert self._table is not None and self._read_ids is not None
            self._reads = tuple(self._table.paths[i] for i in self._read_ids)
        return self._reads

    def reached(self, keys: frozenset[str]) -> bool:
        """Whether a change with these keys (`change_keys`) meets anything the builds looked at."""
        if self._table is not None and self._look_ids is not None:
            return not self._table.ids_of(keys).isdisjoint(self._look_ids)
        return not keys.isdisjoint(self.looks)


class _Table:
    """The paths of one kept index (a fleet's clusters share their bases): ids are positions."""

    def __init__(self, paths: list[str]) -> None:
        self.paths = paths
        self._ids: dict[str, int] | None = None
        self._asked: dict[frozenset[str], frozenset[int]] = {}

    def ids(self) -> dict[str, int]:
        if self._ids is None:
            self._ids = {path: i for i, path in enumerate(self.paths)}
        return self._ids

    def ids_of(self, keys: frozenset[str]) -> frozenset[int]:
        found = self._asked.get(keys)
        if found is None:
            ids = self.ids()
            found = self._asked[keys] = frozenset(ids[k] for k in keys if k in ids)
        return found


def change_keys(changed: Iterable[str], came_or_went: Callable[[str], bool] = lambda folder: True) -> frozenset[str]:
    """The looks a change of these repository paths can alter: each path itself, a listing of its
    folder, a walk of any folder above it (the root is ""), and, for a folder above it that
    `came_or_went` says is a folder at one revision only, a check of that folder and a listing of
    the folder that holds it."""
    keys: set[str] = set()
    for path in changed:
        keys.add("p:" + path)
        parent = posixpath.dirname(path)
        keys.add("l:" + parent)
        while True:
            keys.add("t:" + parent)
            if came_or_went(parent):  # the folder itself is checked or read differently, and listed above
                keys.add("p:" + parent)
                if parent:
                    keys.add("l:" + posixpath.dirname(parent))
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
    Operator object, or a HelmRelease whose `spec.chart` is not a chart repository's (one with a
    `spec.chartRef` is kept out by the run when its chart may be this repository's)."""
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
            if spec.get("chartRef") is not None:
                continue  # whose chart that is, the run decides (gen/guard/flux/charts.py, then reach.keep)
            if not isinstance(ref, dict) or ref.get("kind") != "HelmRepository":
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
            return _decode(content)
        except (ValueError, TypeError, KeyError, IndexError, struct.error, zlib.error):
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
        write_entry(path, seal([(name, _encode(clusters))]))
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
        """Commits indexed lately in this context, newest first (a hint: each index verifies itself;
        the list is not sealed, so what is not a commit id is left out: git would read
        `--output=FILE` as an option and write that file)."""
        scope = hashlib.sha256(context.encode()).hexdigest()
        return [commit for kept_scope, commit in self._recent() if kept_scope == scope]

    def _recent(self) -> list[list[str]]:
        if self.directory is None:
            return []
        try:
            found = json.loads(read_entry(self.directory / FOLDER / _RECENT))
        except (OSError, ValueError):
            return []
        if not isinstance(found, list):
            return []
        return [e for e in found if isinstance(e, list) and len(e) == 2 and all(isinstance(x, str) for x in e)
                and _COMMIT.fullmatch(e[1])]


_SIZES = struct.Struct("<III")


def _encode(clusters: dict[str, ClusterLooks]) -> bytes:
    """A header (JSON: each cluster's roots, Kustomizations and how many ids it has), the table
    of paths, then every cluster's ids (uint32, little-endian). Clusters carried from one kept
    index keep their ids: its table is the new one's start."""
    kept = [c._table for c in clusters.values() if c._table is not None]
    base = max(set(kept), key=kept.count) if kept else None
    paths = list(base.paths) if base is not None else []
    ids = dict(base.ids()) if base is not None else {}
    header = []
    out = array.array("I")
    for name, c in sorted(clusters.items()):
        if c._table is base and base is not None and c._look_ids is not None and c._read_ids is not None:
            looks, reads = c._look_ids, c._read_ids
        else:
            looks = array.array("I", (ids.setdefault(p, len(ids)) for p in c.looks))
            reads = array.array("I", (ids.setdefault(p, len(ids)) for p in c.reads))
        header.append([name, c.roots, c.nodes, len(looks), len(reads)])
        out.extend(looks)
        out.extend(reads)
    paths.extend(list(ids)[len(paths):])
    if sys.byteorder != "little":
        out.byteswap()
    head = json.dumps(header, separators=(",", ":")).encode()
    table = "\0".join(paths).encode()
    body = out.tobytes()
    return zlib.compress(_SIZES.pack(len(head), len(table), len(body)) + head + table + body, 1)


def _decode(data: bytes) -> dict[str, ClusterLooks]:
    raw = zlib.decompress(data)
    head_len, table_len, body_len = _SIZES.unpack_from(raw)
    at = _SIZES.size
    if at + head_len + table_len + body_len != len(raw):
        raise ValueError("sizes")
    header = json.loads(raw[at:at + head_len])
    text = raw[at + head_len:at + head_len + table_len].decode()
    table = _Table(text.split("\0") if text else [])
    ids = array.array("I")
    if ids.itemsize != 4 or body_len % 4:
        raise ValueError("ids")
    ids.frombytes(raw[at + head_len + table_len:])
    if sys.byteorder != "little":
        ids.byteswap()
    if ids and max(ids) >= len(table.paths):
        raise ValueError("an id outside the table")
    out: dict[str, ClusterLooks] = {}
    pos = 0
    for name, roots, nodes, looks, reads in header:
        if not (isinstance(name, str) and isinstance(roots, str) and isinstance(nodes, int)
                and isinstance(looks, int) and isinstance(reads, int)):
            raise ValueError("header")
        out[name] = ClusterLooks.kept(roots, nodes, table, ids[pos:pos + looks], ids[pos + looks:pos + looks + reads])
        pos += looks + reads
    if pos != len(ids):
        raise ValueError("ids")
    return out
