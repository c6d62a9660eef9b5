"""Charts as source-controller fetches them, kept by digest so a run needs the network once.

A chart from a repository is fetched by the helper (tools/helper/helm fetch: Helm's index and
registry client) into `<cache>/charts/<sha256>.tgz`; an exact version's answer (origin, chart,
version -> digest) is kept sealed beside it (gen/cachefile.py), so a CI run that restored the cache
renders offline. An archive is read only when its bytes hash to its name; one that does not is a
miss, fetched again. A version constraint is resolved anew each run (the repository may have a
newer match). A chart kept in this repository is written from the revision's tree into the run's
scratch folder, keyed by the blobs it holds. Credentials are the helper's business (Helm's and
Docker's config in the environment): nothing here writes one.
"""

from __future__ import annotations

import hashlib
import json
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gen.cachefile import Sealed, read_entry, seal, write_entry
from gen.guard.flux.fluxspec import normalize_path
from gen.guard.helm.client import HelmHelper, TookTooLong
from gen.guard.helm.sources import ChartLocation
from gen.guard.repo.manifests import try_docs
from gen.guard.repo.revision import Tree

_EXACT = re.compile(r"^v?\d+\.\d+\.\d+([-+][0-9A-Za-z.+-]*)?$")


@dataclass(frozen=True)
class Chart:
    """A chart on disk (a folder or an archive) and the digest of what it holds."""

    path: Path
    digest: str


def open_sealed(entry: Path, key: str) -> tuple[bytes | None, int]:
    """(what a sealed one-entry file keeps under `key`, or None; how many records did not verify)."""
    if not entry.exists() and not entry.is_symlink():
        return None, 0
    sealed = Sealed.read(entry)
    content = sealed.open(key)
    return content, sealed.rejected


class Unavailable(Exception):
    """The chart cannot be had here: why, and what would let the guard render it."""

    def __init__(self, why: str, fix: str) -> None:
        super().__init__(why)
        self.why, self.fix = why, fix


class ChartStore:
    """Charts by location; `cache` None keeps fetched charts in the run's scratch folder only."""

    def __init__(self, helper: HelmHelper, cache: Path | None, scratch: Path) -> None:
        self.helper = helper
        self.folder = cache / "charts" if cache is not None else scratch / "charts"
        self.scratch = scratch
        self.rejected = 0  # cache entries that did not verify
        self._memo: dict[str, Chart] = {}

    def get(self, location: ChartLocation, tree: Tree | None) -> Chart:
        """The chart at `location`; `tree` is the revision's files for a chart kept in git.

        Raises:
            Unavailable: it cannot be had (no source, no network, not in the repository).
        """
        if location.kind == "none":
            raise Unavailable(location.why, "")
        if location.kind == "git":
            if tree is None:
                raise Unavailable(f"its chart is in GitRepository {location.git[1]}/{location.git[2]}, "
                                  "which is not this repository", "")
            return self._from_tree(location, tree)
        key = json.dumps([location.mirror_of or location.url, location.name, location.version, location.tag,
                          location.digest])  # by origin: any mirror of it serves the same chart
        if key in self._memo:
            return self._memo[key]
        # a digest, an exact version, or a tag that reads as one (a release's tag is not moved; `latest` is)
        exact = bool(location.digest) or bool(_EXACT.match(location.tag or location.version))
        chart = self._kept(key) if exact else None
        if chart is None:
            chart = self._fetch(location)
            if exact:
                write_entry(self._ref_file(key), seal([(key, chart.digest.encode())]))
        self._memo[key] = chart
        return chart

    def _ref_file(self, key: str) -> Path:
        return self.folder / (hashlib.sha256(key.encode()).hexdigest() + ".ref")

    def _kept(self, key: str) -> Chart | None:
        """The archive an earlier run fetched for `key`, when its answer and its bytes verify."""
        content, rejected = open_sealed(self._ref_file(key), key)
        self.rejected += rejected
        if content is None:
            return None
        digest = content.decode(errors="replace")
        archive = self.folder / f"{digest}.tgz"
        try:
            data = read_entry(archive)
        except OSError:
            return None
        if hashlib.sha256(data).hexdigest() != digest:
            self.rejected += 1
            return None
        return Chart(archive, digest)

    def _fetch(self, location: ChartLocation) -> Chart:
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError:
            self.folder = self.scratch / "charts"
            self.folder.mkdir(parents=True, exist_ok=True)
        try:
            answer = self._ask_fetch(location)
        except TookTooLong as slow:
            raise Unavailable(f"its chart {location.origin()} could not be fetched: {slow}",
                              "give the guard the network, or a mirror of that repository") from slow
        if answer.get("error"):
            raise Unavailable(f"its chart {location.origin()} could not be fetched: {str(answer['error'])[:300]}",
                              "give the guard the network, or a mirror of that repository "
                              "(guard.charts in .coredns-gen.yaml, or --chart-mirror ORIGIN=MIRROR)")
        return Chart(Path(str(answer["path"])), str(answer["digest"]))

    def _ask_fetch(self, location: ChartLocation) -> dict[str, Any]:
        return self.helper.ask({"op": "fetch", "url": location.url, "name": location.name,
                                  "version": "" if location.version == "*" else location.version,
                                  "tag": location.tag, "digest": location.digest,
                                  "plain_http": location.plain_http, "dest": str(self.folder)})

    def _from_tree(self, location: ChartLocation, tree: Tree) -> Chart:
        folder = location.folder
        if not tree.is_dir(folder) or not tree.walk(folder):
            raise Unavailable(f"its chart folder ./{folder} is not in this repository", "")
        # (path in the repository, path in the chart) of every file the chart is made of
        files = sorted((path, posixpath.join(into, path[len(source) + 1:] if source else path))
                       for source, into in chart_folders(tree, folder) for path in tree.walk(source))
        digest = hashlib.sha256()
        for path, rel in files:
            digest.update(rel.encode() + b"\0" + (tree.blobs.get(path) or "").encode() + b"\0")
        name = digest.hexdigest()
        dest = self.scratch / "git-charts" / name
        if not dest.exists():
            for path, rel in files:
                target = dest / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(tree.read(path))
        return Chart(dest, "git:" + name)


def chart_folders(tree: Tree, folder: str, into: str = "", seen: frozenset[str] = frozenset()) -> list[tuple[str, str]]:
    """The folders of the repository a chart kept in it is made of, each with where it goes in the
    chart: its own, and each `file://` dependency of its Chart.yaml that its charts/ does not hold,
    as charts/<name> (source-controller builds the missing ones from the artifact before it
    packages the chart), recursively. A library chart beside the chart is as much its input."""
    out = [(folder, into)]
    meta_file = posixpath.join(folder, "Chart.yaml")
    docs = try_docs(tree.read(meta_file).decode(errors="replace")) if tree.is_file(meta_file) else None
    meta = docs[0] if docs and isinstance(docs[0], dict) else {}
    deps = meta.get("dependencies")
    held = {posixpath.basename(p).rsplit("-", 1)[0] if p.endswith(".tgz") else p.split("/")[0]
            for p in (path[len(folder) + len("/charts/"):] if folder else path[len("charts/"):]
                      for path in tree.walk(posixpath.join(folder, "charts")))}
    for dep in deps if isinstance(deps, list) else []:
        if not isinstance(dep, dict) or not str(dep.get("repository") or "").startswith("file://"):
            continue
        name = str(dep.get("name") or "")
        source = normalize_path(posixpath.join(folder, str(dep["repository"])[len("file://"):]))
        if name and name not in held and source not in seen | {folder} and tree.is_dir(source):
            out += chart_folders(tree, source, posixpath.join(into, "charts", name), seen | {folder})
    return out
