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
from typing import Iterable, Mapping

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


def _values_files(tree: Tree, patterns: Iterable[str]) -> list[str]:
    """The files of the revision the `values:` globs name (dot-files skipped, as gen.config does)."""
    globs = [_glob(p) for p in patterns]
    return sorted(path for path in tree.blobs
                  if path not in tree.links and not posixpath.basename(path).startswith(".")
                  and any(g.match(path) for g in globs))


def _rendered(tree: Tree, path: str) -> tuple[str, str] | None:
    """(platform, flux.output) of one values file, read without validating the rest of it."""
    docs = file_docs(tree, path)
    doc = docs[0] if docs else None
    if not isinstance(doc, dict) or not isinstance(doc.get("platform"), str) or not isinstance(doc.get("cluster"), str):
        return None
    flux = doc.get("flux")
    output = flux.get("output") if isinstance(flux, dict) else None
    if not isinstance(output, str):
        output = f"clusters/{doc['cluster']}/coredns.yaml"  # gen.values' default
    return str(doc["platform"]), posixpath.normpath(output.removeprefix("./"))


def cluster_platforms(tree: Tree, config: Config, revisions: Mapping[str, Revision]) -> dict[str, str | None]:
    """Cluster (its root file) -> platform name, or None where no fact says it.

    `tree` is the head revision (values files and config are part of the reviewed change);
    a cluster is matched through the files its Kustomizations' builds read, at head or at base."""
    clusters = sorted({r.cluster for rev in revisions.values() for r in rev.roots})
    platforms_of: dict[str, set[str]] = {}  # a rendered output -> the platforms whose values write it
    for path in _values_files(tree, config.values):
        rendered = _rendered(tree, path)
        if rendered is not None:
            platforms_of.setdefault(rendered[1], set()).add(rendered[0])
    found: dict[str, set[str]] = {}
    if platforms_of:  # only then is every build's inputs worth a look (a fleet has ~20,000)
        for label in ("head", "base"):
            for ref, node in revisions[label].nodes.items() if label in revisions else ():
                for path in node.build.inputs:
                    if path in platforms_of:
                        found.setdefault(ref.cluster, set()).update(platforms_of[path])
    out: dict[str, str | None] = {c: (next(iter(found[c])) if len(found.get(c, ())) == 1 else None) for c in clusters}
    for entry in config.guard_clusters:
        cluster = entry.root or entry.path or "."  # a path entry's cluster is the folder it applies
        if entry.platform and cluster in out:
            out[cluster] = entry.platform
    return out
