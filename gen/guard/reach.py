"""Which clusters a change reaches, from the changed paths and the fleet index of its base.

`git diff-tree` between base and head names what changed (gen/guard/repo/listing.py); the index
(gen/guard/build/index.py) names what each cluster's builds looked at in the base revision (or in a commit indexed lately, such as
main before its last merges: then what changed between that commit and base counts too). A
cluster is explored when the change meets one of its looks, when its roots differ between the
revisions, or when the index has no entry for it. A change to what decides the topology itself
(the config, an ignore file, a manifest that holds a Flux source, ArtifactGenerator or Flux
Operator object at either revision, a CI file that pushes an OCI artifact) or a cluster's platform
facts (a values file the config names) is judged on the whole fleet, as is any run without a
verified index. tests/guard/test_reach.py holds the verdicts of both ways equal on random changes
to random fleets.
"""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from gen import __version__
from gen.config import CONFIG_NAME
from gen.errors import ToolError
from gen.guard.build.index import ClusterLooks, FleetIndex, change_keys
from gen.guard.fleet import Fleet
from gen.guard.flux.platform_facts import is_values_file
from gen.guard.flux.sources import is_ci_file
from gen.guard.repo.manifests import try_docs
from gen.guard.repo.revision import Tree, changed_paths
from gen.tools import git_binary

_TOPOLOGY_MARKS = (b"source.toolkit.fluxcd.io", b"source.extensions.fluxcd.io", b"fluxcd.controlplane.io",
                   b"flux-instance")
_IGNORE_FILE = ".sourceignore"
_TOPOLOGY_GROUPS = ("source.toolkit.fluxcd.io", "source.extensions.fluxcd.io", "fluxcd.controlplane.io")
_PUSHES, _PUSH_ACTION = b"push artifact", b"/actions/push"  # what gen/guard/flux/sources.py push_conventions reads
_code_digest: str | None = None


@dataclass(frozen=True)
class Reach:
    """What a run explores: `only` these clusters (None: every one), and what the index says of
    the others (their reads keep `unreached` true, their Kustomizations count in the summary)."""

    only: frozenset[str] | None
    carried: Mapping[str, ClusterLooks] = field(default_factory=dict)
    why_whole: str = ""  # why the whole fleet is explored (for tests)
    known: bool = False  # base's own index was found (and verified): it is not written again

    def read_elsewhere(self) -> frozenset[str]:
        """The files the carried clusters read (not explored here, so not unreached either)."""
        return frozenset(path for entry in self.carried.values() for path in entry.reads)

    def carried_nodes(self) -> int:
        """The Kustomizations of the carried clusters (they count in the summary)."""
        return sum(entry.nodes for entry in self.carried.values())


def context(fleet: Fleet, helper: str, config_blob: str | None) -> str:
    """What an index entry depends on besides its commit: this code, the helper that builds, the
    config the run reads, the remotes that say which sources are this repository, --path, and the
    branch --base names (a source tracking a ref is judged against it)."""
    return json.dumps([__version__, _code(), helper, config_blob, sorted(fleet.remotes),
                       list(fleet.under), fleet.synced_branch], separators=(",", ":"))


def plan(index: FleetIndex, ctx: str, commits: dict[str, str], fleet: Fleet, trees: dict[str, Tree],
         changed: frozenset[str], repo: Path, values: tuple[str, ...], whole: str = "") -> Reach:
    """The clusters of `fleet` to explore for this change, from the index of base, else of a
    commit indexed lately (main before the last merges): then what changed since that commit
    counts as changed too. `values`: the config's values globs (a cluster's platform facts)."""
    if whole:
        return Reach(None, why_whole=whole)
    if fleet.guessed():
        return Reach(None, why_whole="roots are guessed (no bootstrap found)")
    topology = _topology_change(changed, trees, values)
    if topology:
        return Reach(None, why_whole=topology)
    known, since = index.load(ctx, commits["base"]), frozenset[str]()
    if known is None:
        found = _nearest(index, ctx, commits, repo)
        if found is None:
            return Reach(None, why_whole="no index of the base revision or of a commit near it")
        known, since, commit = found
        topology = _topology_change(since, trees, values, repo, commit)
        if topology:
            return Reach(None, why_whole=topology)
    base, head = fleet.digests("base"), fleet.digests("head")

    def came_or_went(folder: str) -> bool:
        return trees["base"].is_dir(folder) != trees["head"].is_dir(folder)

    # what changed since an older index: its folders are not at hand, so each counts as come or gone
    keys = change_keys(changed, came_or_went) | change_keys(since)
    only = set()
    carried = {}
    for cluster in set(base) | set(head):
        entry = known.get(cluster)
        if entry is None or entry.roots != base.get(cluster) or entry.roots != head.get(cluster) or entry.reached(keys):
            only.add(cluster)
        else:
            carried[cluster] = entry
    return Reach(frozenset(only), carried, known=not since)


def within(reached: Reach, clusters: frozenset[str]) -> Reach:
    """The plan for `clusters` alone (a --shard's share): what else the fleet holds is neither
    explored nor carried."""
    only = clusters if reached.only is None else reached.only & clusters
    return Reach(only, {c: e for c, e in reached.carried.items() if c in clusters}, reached.why_whole, reached.known)


_NEAR = 8  # indexed commits tried
_NEAR_PATHS = 2000  # a commit further than this from base is no help


def _nearest(index: FleetIndex, ctx: str, commits: dict[str, str], repo: Path) -> \
        tuple[dict[str, ClusterLooks], frozenset[str], str] | None:
    """The index of a commit indexed lately and what changed between it and base, the nearest first."""
    best: tuple[dict[str, ClusterLooks], frozenset[str], str] | None = None
    for commit in index.recent(ctx)[:_NEAR]:
        if commit in commits.values():
            continue
        try:
            since = changed_paths(repo, commit, commits["base"])
        except ToolError:
            continue  # not in this clone (a cache restored from another fork)
        if len(since) > _NEAR_PATHS or (best is not None and len(since) >= len(best[1])):
            continue
        known = index.load(ctx, commit)
        if known is not None:
            best = (known, since, commit)
    return best


def keep(index: FleetIndex, ctx: str, commits: dict[str, str], found: dict[str, dict[str, ClusterLooks]],
         reach: Reach) -> None:
    """Keep each revision's index: what this run explored there, and what it carried unexplored
    (a cluster the change does not reach looked at the same at both revisions)."""
    for label, commit in commits.items():
        if label == "base" and reach.known:
            continue  # what this run explored at base, it found as the index says
        if label == "head" and commits["head"] == commits.get("base"):
            continue
        index.save(ctx, commit, {**reach.carried, **found.get(label, {})}, replace=label == "base")


def _topology_change(changed: frozenset[str], trees: dict[str, Tree], values: tuple[str, ...],
                     repo: Path | None = None, commit: str = "") -> str:
    """Why this change may alter what sources, roots or artifacts are ("" when it cannot); with
    `commit`, each path is also read as it was there."""
    for path in sorted(changed):
        name = posixpath.basename(path)
        if path == CONFIG_NAME or name == _IGNORE_FILE:
            return f"{path} decides what the guard or Flux reads"
        if is_values_file(path, values):
            return f"{path} is a values file: it says which platform and release its cluster runs"
        texts = [tree.read(path) for tree in trees.values() if path in tree.blobs]
        if repo is not None:
            texts.append(_blob_at(repo, commit, path))
        if is_ci_file(path) and any(_PUSHES in t or _PUSH_ACTION in t for t in texts):
            return f"{path} pushes an OCI artifact of this repository"
        if any(_holds_topology(path, t) for t in texts):
            return f"{path} holds a Flux source or Flux Operator object" + (f" (or did at {commit[:12]})" if repo else "")
    return ""


def _holds_topology(path: str, text: bytes) -> bool:
    """Whether a manifest holds a Flux source, an ArtifactGenerator or a Flux Operator object (a
    CustomResourceDefinition of one, as in gotk-components.yaml, is none of them): what decides
    which sources are this repository and what their artifacts hold."""
    if not path.endswith((".yaml", ".yml")) or not any(mark in text for mark in _TOPOLOGY_MARKS):
        return False
    docs = try_docs(text.decode("utf-8", "replace"))
    if docs is None:
        return True  # unreadable here: it may be one
    for doc in docs:
        if not isinstance(doc, dict):
            continue
        group = str(doc.get("apiVersion") or "").split("/")[0]
        if group in _TOPOLOGY_GROUPS or (doc.get("kind") == "HelmRelease" and b"flux-instance" in text):
            return True
    return False


def _blob_at(repo: Path, commit: str, path: str) -> bytes:
    """The file at `path` in `commit` (b"" when it has none)."""
    proc = subprocess.run([git_binary(), "-C", str(repo), "cat-file", "blob", "--end-of-options", f"{commit}:{path}"],
                          capture_output=True, check=False)
    return proc.stdout if proc.returncode == 0 else b""


def _code() -> str:
    """One id of the code that made an index: every module of the package, not the guard's
    alone (how the config is read, gen/config.py, decides which sources are this repository and
    so what is explored; a dev install keeps its version number across such changes)."""
    global _code_digest
    if _code_digest is None:
        digest = hashlib.sha256()
        for rel in _sources(str(_PACKAGE)):  # (os.walk: pathlib's rglob costs more than the reading)
            digest.update(rel.encode() + b"\0" + (_PACKAGE / rel).read_bytes() + b"\0")
        _code_digest = digest.hexdigest()
    return _code_digest


def _sources(top: str) -> list[str]:
    """Every .py file under `top` as a sorted posix path relative to it (what sorted(rglob) gave)."""
    out = []
    for folder, _dirs, files in os.walk(top):
        rel = os.path.relpath(folder, top)
        lead = "" if rel == "." else rel.replace(os.sep, "/") + "/"
        out += [lead + name for name in files if name.endswith(".py")]
    return sorted(out, key=lambda rel: tuple(rel.split("/")))


_PACKAGE = Path(__file__).resolve().parent.parent  # gen/
