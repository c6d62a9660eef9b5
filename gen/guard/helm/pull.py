"""`coredns-gen charts-pull`: fill a chart mirror folder with the charts a repository's HelmReleases name.

Where the network is reachable (a desk, a CI job with egress), this fetches each remote chart the
repository's HelmReleases ask for, as the guard fetches it (Helm's index and registry client,
through the helper), into `<folder>/<origin>/`, laid out as a chart repository (`<name>-<version>.tgz`
and Helm's `index.yaml`), and says the `guard.charts` lines that make the guard use it: an
air-gapped CI then judges HelmReleases from that folder (committed, or restored from a cache).

It reads the repository's manifests as written (HelmRelease, HelmRepository, OCIRepository,
HelmChart documents of every YAML file), not Flux's builds: it only decides what to download. What
it misses (a source made by a generator, a version written as a variable) the guard refuses as not
judged, naming the chart, so a mirror that is short says so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gen.guard.helm.client import HelmHelper
from gen.guard.helm.sources import ChartLocation, locate
from gen.guard.model import HELM_GROUP, ObjKey
from gen.guard.repo.manifests import try_docs

_SOURCE_KINDS = ("HelmRepository", "OCIRepository", "HelmChart")
_SKIP_DIRS = {".git", "node_modules", "vendor", "third_party"}


@dataclass(frozen=True)
class Pulled:
    origin: str  # the chart repository or registry url the HelmRelease names
    chart: str
    version: str
    folder: str  # the mirror folder holding it, relative to the mirror root
    error: str = ""


def origin_folder(url: str) -> str:
    """A folder name for an origin url: its scheme and path, safe on every file system and inside
    the mirror: the url is the repository's to write (`https://host/../..`, a server may answer
    it), so no part of it is `.`, `..` or empty."""
    scheme, _, rest = url.partition("://")
    return "/".join(_part(part) for part in [scheme] + [part for part in rest.strip("/").split("/") if part])


def _part(part: str) -> str:
    part = re.sub(r"[^A-Za-z0-9._-]", "_", part)
    return "_" * max(len(part), 1) if part in ("", ".", "..") else part


def wanted(repo: Path) -> list[ChartLocation]:
    """Every remote chart (origin, name, version) the repository's HelmReleases name, sorted."""
    sources: dict[ObjKey, tuple[None, dict[str, Any]]] = {}
    releases: list[tuple[ObjKey, dict[str, Any]]] = []
    for path in sorted(repo.rglob("*")):
        if path.suffix not in (".yaml", ".yml") or _SKIP_DIRS & set(path.relative_to(repo).parts) or not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        for doc in try_docs(text) or []:
            if not isinstance(doc, dict):
                continue
            key = ObjKey.of(doc)
            if key.kind in _SOURCE_KINDS and key.group == "source.toolkit.fluxcd.io":
                sources[key._replace(namespace=key.namespace or "flux-system")] = (None, doc)
            elif key.kind == "HelmRelease" and key.group == HELM_GROUP:
                releases.append((key._replace(namespace=key.namespace or "default"), doc))
    found: dict[str, ChartLocation] = {}
    for key, doc in releases:
        location = locate(doc, key, sources)
        if location.kind in ("http", "oci"):
            found[repr((location.url, location.name, location.version, location.tag, location.digest))] = location
    return [found[k] for k in sorted(found)]


def pull(repo: Path, mirror: Path) -> list[Pulled]:
    """Fetch every chart `wanted` names into `mirror`, and index each origin's folder.

    Raises:
        ToolError: the helper is missing or broke (a chart that cannot be fetched is a Pulled with an error).
    """
    helper = HelmHelper()
    out: list[Pulled] = []
    folders: set[Path] = set()
    try:
        for location in wanted(repo):
            origin = location.url if location.kind == "http" or location.name else location.url.rpartition("/")[0]
            name = location.name or location.url.rpartition("/")[2]
            folder = mirror / origin_folder(origin)
            folder.mkdir(parents=True, exist_ok=True)
            answer = helper.ask({"op": "fetch", "url": location.url, "name": location.name,
                                 "version": "" if location.version == "*" else location.version, "tag": location.tag,
                                 "digest": location.digest, "plain_http": location.plain_http, "dest": str(folder)})
            if answer.get("error"):
                out.append(Pulled(origin, name, location.version or location.tag, origin_folder(origin),
                                  str(answer["error"])[:300]))
                continue
            fetched = Path(str(answer["path"]))
            final = folder / f"{answer['chart']}-{answer['version']}.tgz"
            fetched.replace(final)
            folders.add(folder)
            out.append(Pulled(origin, str(answer["chart"]), str(answer["version"]), origin_folder(origin)))
        for folder in sorted(folders):
            answer = helper.ask({"op": "index", "dest": str(folder), "url": ""})
            if answer.get("error"):
                raise OSError(f"indexing {folder}: {answer['error']}")
    finally:
        helper.close()
    return out
