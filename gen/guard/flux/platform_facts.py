"""What platform each cluster runs, by fact: never guessed from what its builds contain.

Two facts say it. `.coredns-gen.yaml` may name it (`guard.clusters[].platform`, for the
cluster whose root file is `root`). And coredns-gen's own values files (the `values:` globs)
each give a `platform` and the file their Flux objects are written to (`flux.output`, by
default `clusters/<cluster>/coredns.yaml`): the cluster whose Kustomizations read that file is
the one the values file renders for. The config wins where both speak; values files that land in
one cluster with different platforms leave it unknown. Rules may lower a finding on evidence of
content (a marker object) but only a fact here makes a platform-specific finding an error.
"""

from __future__ import annotations

import posixpath
import re
from typing import Iterable, Mapping, NamedTuple

from gen.config import Config
from gen.guard.repo.manifests import file_docs
from gen.guard.model import Revision
from gen.guard.repo.revision import Tree


def _glob(pattern: str) -> re.Pattern[str]:
    """A `values:` glob as pathlib reads it (`*` within a folder, `**/` any folders), matched
    against git's listing: a pattern leaving the repository matches nothing, and nothing is listed."""
    out, i = "", 0
    text = posixpath.normpath(pattern.removeprefix("./"))
    while i < len(text):
        if text.startswith("**/", i):
            out, i = out + "(?:[^/]+/)*", i + 3
        elif text.startswith("**", i):
            out, i = out + ".*", i + 2
        elif text[i] == "*":
            out, i = out + "[^/]*", i + 1
        elif text[i] == "?":
            out, i = out + "[^/]", i + 1
        else:
            out, i = out + re.escape(text[i]), i + 1
    return re.compile(out + r"\Z")


def is_values_file(path: str, patterns: Iterable[str]) -> bool:
    """Whether the `values:` globs name this repository file (dot-files skipped, as gen.config does)."""
    return not posixpath.basename(path).startswith(".") and any(_glob(p).match(path) for p in patterns)


def _values_files(tree: Tree, patterns: Iterable[str]) -> list[str]:
    """The files of the revision the `values:` globs name (dot-files skipped, as gen.config does)."""
    globs = [_glob(p) for p in patterns]
    if not globs:  # no values files named: a fleet's 10^4 paths need not be looked at
        return []
    return sorted(path for path in tree.blobs
                  if any(g.match(path) for g in globs) and path not in tree.links
                  and not posixpath.basename(path).startswith("."))


class Rendered(NamedTuple):
    """What a values file says about the cluster it renders for, read without validating the rest."""

    platform: str
    output: str  # flux.output: the file its Flux objects are written to
    cluster: str
    release: str | None  # platformVersion


class ClusterFacts(NamedTuple):
    """What facts say of one cluster: a name for a reader, its platform and release (None: unknown)."""

    name: str
    platform: str | None
    release: str | None


def _rendered(tree: Tree, path: str) -> Rendered | None:
    docs = file_docs(tree, path)
    doc = docs[0] if docs else None
    if not isinstance(doc, dict) or not isinstance(doc.get("platform"), str) or not isinstance(doc.get("cluster"), str):
        return None
    flux = doc.get("flux")
    output = flux.get("output") if isinstance(flux, dict) else None
    if not isinstance(output, str):
        output = f"clusters/{doc['cluster']}/coredns.yaml"  # gen.render.values' default
    release = doc.get("platformVersion")
    return Rendered(str(doc["platform"]), posixpath.normpath(output.removeprefix("./")), str(doc["cluster"]),
                    str(release) if isinstance(release, (str, int, float)) else None)


def cluster_platforms(tree: Tree, config: Config, revisions: Mapping[str, Revision]) -> dict[str, str | None]:
    """Cluster (its root file) -> platform name, or None where no fact says it."""
    return {c: facts.platform for c, facts in cluster_facts(tree, config, revisions).items()}


def cluster_facts(tree: Tree, config: Config, revisions: Mapping[str, Revision]) -> dict[str, ClusterFacts]:
    """Cluster (its root file) -> its name, platform and release, as far as facts say them.

    `tree` is the head revision (values files and config are part of the reviewed change);
    a cluster is matched through the files its Kustomizations' builds read, at head or at base.
    The name is `guard.clusters[].name`, else the `cluster` of the values files landing in it,
    else the folder of its root file (`clusters/prod/flux-system/gotk-sync.yaml` -> `prod`)."""
    clusters = sorted({r.cluster for rev in revisions.values() for r in rev.roots})
    rendered_at: dict[str, list[Rendered]] = {}  # a rendered output -> the values files writing it
    for path in _values_files(tree, config.values):
        rendered = _rendered(tree, path)
        if rendered is not None:
            rendered_at.setdefault(rendered.output, []).append(rendered)
    found: dict[str, set[Rendered]] = {}
    if rendered_at:  # only then is every build's inputs worth a look (a fleet has ~20,000)
        for label in ("head", "base"):
            for ref, node in revisions[label].nodes.items() if label in revisions else ():
                for path in node.build.inputs:
                    if path in rendered_at:
                        found.setdefault(ref.cluster, set()).update(rendered_at[path])
    out: dict[str, ClusterFacts] = {}
    for c in clusters:
        seen = found.get(c, set())
        platforms = {r.platform for r in seen}
        names = {r.cluster for r in seen}
        releases = {(r.platform, r.release) for r in seen}
        out[c] = ClusterFacts(next(iter(names)) if len(names) == 1 else folder_name(c),
                              next(iter(platforms)) if len(platforms) == 1 else None,
                              next(iter(releases))[1] if len(releases) == 1 else None)
    for entry in config.guard_clusters:
        cluster = entry.root or entry.path or "."  # a path entry's cluster is the folder it applies
        if cluster in out:
            old = out[cluster]
            same = entry.platform is None or entry.platform == old.platform
            out[cluster] = ClusterFacts(entry.name, entry.platform or old.platform, old.release if same else None)
    return out


def folder_name(root: str) -> str:
    """A cluster's name from its root file's folder, past Flux's own `flux-system`/`flux` folders;
    an Azure fluxConfiguration's cluster (`file#configuration[@variant]`) by the configuration."""
    if "#" in root:
        return root.rsplit("#", 1)[1].replace("@", "-")
    parts = [p for p in posixpath.dirname(root).split("/") if p]
    while len(parts) > 1 and parts[-1] in ("flux-system", "flux"):
        parts.pop()
    return parts[-1] if parts else root
