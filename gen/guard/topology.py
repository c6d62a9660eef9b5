"""`coredns-gen guard --discover`: what the guard believes about a repository, each belief with its
evidence, so a team can read it, correct it, and confirm it once (`--write`).

It runs the guard's own discovery (gen/guard/discovery.py) on one revision, the way a guard run
reads that revision, and reports: the clusters (their root and the bootstrap form that says so),
the sources taken as this repository and why, the Kustomizations and Flux Operator objects that
are not judged and why (a ResourceSet is judged when the Flux Operator's builder renders it here), the files no cluster reaches, and old API versions (judged as v1).
`--write` puts the clusters and the sources that are not evident by themselves into
`.coredns-gen.yaml` (`guard.clusters`, `guard.sources`), keeping the file's comments and order.
"""

from __future__ import annotations

import json
import posixpath
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from gen.config import CONFIG_NAME, load_config
from gen.errors import UsageError
from gen.guard.build.cache import BuildCache, default_dir
from gen.guard.build.engine import Engine
from gen.config import Config
from gen.guard.discovery import Discovery
from gen.guard.fleet import Exploration, Fleet
from gen.guard.flux.fluxconfigs import TOOL_LABEL
from gen.guard.flux.roots import Candidate, is_bootstrap
from gen.guard.model import FLUX_GROUP
from gen.guard.repo.checkout import load_tree
from gen.guard.repo.listing import listing
from gen.guard.repo.manifests import file_docs
from gen.guard.repo.marks import Marked
from gen.guard.repo.revision import Tree, branch_of, remote_urls, repo_root, resolve

_OPERATOR = b"fluxcd.controlplane.io"
_NOT_RENDERED = ("ResourceSet", "ResourceSetInputProvider")


@dataclass
class Cluster:
    name: str
    cluster: str  # the id findings and `--allow cluster:` use
    root: str  # the file its root is written in ("" when a script applies it; `file#configuration` for Azure's)
    form: str  # how it is bootstrapped
    evidence: str  # where that is written
    path: str  # the folder its root Kustomization syncs
    kustomizations: int = 0
    judged: int = 0


@dataclass
class Topology:
    commit: str
    how: str
    clusters: list[Cluster] = field(default_factory=list)
    sources: list[dict[str, str]] = field(default_factory=list)
    not_judged: list[dict[str, str]] = field(default_factory=list)
    operator: list[dict[str, str]] = field(default_factory=list)
    unreached: list[dict[str, str]] = field(default_factory=list)
    old_api: list[dict[str, str]] = field(default_factory=list)

    def as_json(self) -> str:
        return json.dumps(asdict(self), indent=2, sort_keys=False) + "\n"

    def text(self) -> str:
        count = len({c.cluster for c in self.clusters})  # a cluster may have several roots (one line each)
        lines = [f"repository at {self.commit[:12]}: {count} cluster{'s' if count != 1 else ''}"
                 f" ({_HOW[self.how]})"]
        for c in self.clusters:
            lines.append(f"  cluster {c.name}: {c.form} — {c.evidence}; syncs ./{c.path} "
                         f"({c.judged} of {c.kustomizations} Flux Kustomizations judged)")
        lines.append(f"sources taken as this repository: {len(self.sources)}")
        lines += [f"  {s['source']}: {s['why']}" for s in self.sources]
        lines.append(f"not judged: {len(self.not_judged)} Kustomizations, {len(self.operator)} Flux Operator objects")
        lines += [f"  Kustomization {n['kustomization']} [{n['cluster']}]: {n['why']}" for n in self.not_judged]
        lines += [f"  {o['kind']} {o['name']} ({o['file']}): {o['why']}" for o in self.operator]
        lines.append(f"files no cluster reaches: {len(self.unreached)}")
        lines += [f"  {u['file']}" + (f": {u['why']}" if u["why"] else "") for u in self.unreached]
        if self.old_api:
            lines.append(f"older API versions (judged as {FLUX_GROUP}/v1): {len(self.old_api)}")
            lines += [f"  Kustomization {o['kustomization']}: {o['apiVersion']}" for o in self.old_api]
        if self.how == "fallback":
            lines.append("the clusters are guessed: check them, then `coredns-gen guard --discover --write` records them "
                         f"in {CONFIG_NAME} for review")
        return "\n".join(lines) + "\n"


_HOW = {"bootstrap": "from bootstraps", "config": f"named in {CONFIG_NAME}", "path": "under --path",
        "fallback": "guessed: no bootstrap found, every Kustomization no build produces is a root"}


def discover(repo: Path, revision: str = "HEAD", cache_dir: Path | None = None) -> Topology:
    """What the guard's discovery finds at `revision` of `repo`.

    Raises:
        UsageError: a bad revision or config file (exit 2).
        ToolError: git or the helper failing (exit 3).
    """
    root = repo_root(repo)
    commit = resolve(root, revision, "--head")
    with tempfile.TemporaryDirectory(prefix="coredns-gen-discover-") as tmp:
        work = Path(tmp)
        cache = cache_dir if cache_dir is not None else default_dir()
        tree = load_tree(root, commit, work / "head" / "repo", listing=listing(root, commit, cache)[0])
        try:
            config = tree.config()
            engine = Engine()
            discovery = Discovery({"head": tree}, engine, BuildCache(cache),
                                  config, remote_urls(root), work, synced_branch=branch_of(root, revision))
            fleet = discovery.find_roots({"head": commit})
            explored = discovery.explore(fleet, {"head": commit})
            return _topology(commit, fleet, explored, config, tree, discovery.marked)
        finally:
            if tree.checkout is not None:
                tree.checkout.close()


def _topology(commit: str, fleet: Fleet, explored: Exploration, config: Config, tree: Tree, marked: Marked) -> Topology:
    """The topology of the one revision `tree` holds, from its fleet and its exploration."""
    how = fleet.how.get("head", "bootstrap")
    top = Topology(commit, how)
    model = explored.revisions["head"]
    chosen = fleet.roots.get("head", ())
    names: set[str] = set()
    for c in chosen:
        cluster = c.ks.ref.cluster
        nodes = [n for r, n in model.nodes.items() if r.cluster == cluster]
        if c.guessed and nodes and all(n.external for n in nodes):
            continue  # a guess on another repository's source is no cluster of this one (listed as not judged)
        form, evidence = _form(c, how)
        azure = c.evidence is not None and c.evidence.form == "flux-configuration"
        name = next((k.name for k in top.clusters if k.cluster == cluster), None) or _name(c, names)
        top.clusters.append(Cluster(name, cluster, cluster if azure else c.file or "", form, evidence, c.ks.path,
                                    len(nodes), sum(1 for n in nodes if not n.external)))
    configured = {(e.kind, e.namespace, e.name) for e in config.guard_sources}
    seen: dict[str, str] = {}
    root_sources = {c.ks.ref.cluster: c.ks.source for c in chosen}
    identities = {c.ks.ref.cluster: c.identity for c in chosen if c.identity}
    for ref in sorted(model.nodes):
        node = model.nodes[ref]
        if node.external:
            top.not_judged.append({"kustomization": str(ref), "cluster": ref.cluster, "why": node.why_external})
            continue
        kind, namespace, name = node.ks.source
        key = f"{kind}/{namespace}/{name}"
        if key in seen:
            continue
        if node.ks.source in configured:
            why = f"named in {CONFIG_NAME} guard.sources"
        elif node.ks.source == root_sources.get(ref.cluster) and identities.get(ref.cluster):
            why = f"the bootstrap source of cluster {ref.cluster}: {identities[ref.cluster]}"
        elif node.ks.source == root_sources.get(ref.cluster):
            why = f"the bootstrap source of cluster {ref.cluster}"
        elif kind == "GitRepository":
            why = "its URL is one of this clone's remotes or its cluster's bootstrap source"
        elif kind == "OCIRepository":
            why = "this repository's CI pushes it from a folder of the repository"
        elif kind == "ExternalArtifact":
            why = "its ArtifactGenerator copies only sources of this repository"
        else:
            why = "delivered from this repository"
        seen[key] = why
        top.sources.append({"source": key, "view": node.view, "why": why})
    for ref in sorted(model.nodes):  # old API versions of every judged Kustomization
        node = model.nodes[ref]
        api = str(json.loads(node.ks.build_spec).get("apiVersion", "")) if node.ks.build_spec else ""
        entry = {"kustomization": str(ref), "apiVersion": api}
        if api.endswith(("v1beta1", "v1beta2")) and entry not in top.old_api:
            top.old_api.append(entry)
    # Flux Operator objects the builds apply are rendered (gen/guard/flux/resourcesets.py) unless
    # a build says why not; one written in the repository that no build applies is not judged either
    applied = {(k.kind, f"{k.namespace}/{k.name}") for n in model.nodes.values() for k in n.build.objects
               if k.group == _OPERATOR.decode() and k.kind in _NOT_RENDERED}
    unrendered = {(kind, name): why for n in model.nodes.values() for kind, name, why in n.build.operator}
    for path in sorted(tree.blobs):
        if path.endswith((".yaml", ".yml")) and marked(tree, path, (_OPERATOR,)):
            for doc in file_docs(tree, path) or []:
                if isinstance(doc, dict) and doc.get("kind") in _NOT_RENDERED and \
                        str(doc.get("apiVersion", "")).startswith("fluxcd.controlplane.io/"):
                    meta = doc.get("metadata") or {}
                    name = f"{meta.get('namespace') or ''}/{meta.get('name') or ''}"
                    obj = (str(doc["kind"]), name)
                    if not meta.get("namespace"):  # placed by its build (targetNamespace): by name
                        obj = next((k for k in sorted(set(unrendered) | applied)
                                    if k[0] == obj[0] and k[1].endswith(name)), obj)
                    if obj in unrendered:
                        why = f"not rendered here: {unrendered[obj]}"
                    elif obj in applied:
                        continue  # rendered with the Flux Operator's builder: its output is judged
                    else:
                        why = "no build the guard reached applies it: what it creates is not judged"
                    top.operator.append({"kind": obj[0], "name": name, "file": path, "why": why})
    refused = fleet.refused.get("head", {})
    top.unreached = [{"file": f, "why": refused.get(f, "")} for f in explored.unreached]
    return top


def _form(c: Candidate, how: str) -> tuple[str, str]:
    if c.evidence is not None and c.evidence.form == "flux-configuration" and c.evidence.tool is not None:
        return f"Azure fluxConfiguration ({TOOL_LABEL[c.evidence.tool]})", c.evidence.describe()
    if c.evidence is not None:
        return {"flux-bootstrap": "flux bootstrap (a script)", "flux-create": "flux create kustomization (a script)",
                "kubectl-apply": "kubectl apply -k (a script)", "kubectl-apply-file": "kubectl apply -f (a script)",
                "flux-instance-chart": "flux-instance chart values (a tool)",
                "flux-configuration": "Azure fluxConfiguration"}[c.evidence.form], c.evidence.describe()
    if how == "config":
        return f"named in {CONFIG_NAME}", c.file or (c.ks.path or ".")
    if c.source_object is not None:
        return "FluxInstance (the object or flux-instance chart values)", c.file or ""
    if is_bootstrap(c):
        return "flux bootstrap (gotk-sync)", c.file or ""
    return "guess (no bootstrap found)", c.file or ""


def _name(c: Candidate, taken: set[str]) -> str:
    """A readable cluster name: the folder that names it (clusters/<name>/…), unique."""
    where = c.ks.path or posixpath.dirname(c.file or "") or "root"
    parts = [p for p in where.split("/") if p not in ("flux-system", "flux", "config", "cluster", "clusters",
                                                       "kubernetes", "bootstrap", ".")]
    name = parts[0] if parts else (where.rsplit("/", 1)[-1] or "root")
    if c.evidence is not None and c.evidence.form == "flux-configuration":
        name = c.evidence.source + (f"-{c.evidence.variant}" if c.evidence.variant else "")  # Azure's configuration
    base, n = name, 2
    while name in taken:
        name, n = f"{base}-{n}", n + 1
    taken.add(name)
    return name


def write_config(repo: Path, top: Topology) -> Path:
    """Write `guard.clusters` (and `guard.sources` the guard needs told) into .coredns-gen.yaml,
    round-trip: the file's other keys, comments and order stay as they were.

    Raises:
        UsageError: the file is not a mapping, or cannot be written (exit 2).
    """
    from ruamel.yaml import YAML
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    target = repo_root(repo) / CONFIG_NAME
    yaml = YAML()  # round-trip
    yaml.indent(mapping=2, sequence=4, offset=2)
    data: Any = CommentedMap()
    if target.exists():
        load_config(repo_root(repo))  # the file as every command reads it first: a bad or deep one is bad input
        loaded = yaml.load(target.read_text(encoding="utf-8"))
        if loaded is not None and not isinstance(loaded, dict):
            raise UsageError("expected a mapping", file=CONFIG_NAME, key="(top)", hint="fix the file, then run again")
        data = loaded if loaded is not None else data
    guard = data.get("guard")
    if not isinstance(guard, dict):
        guard = data["guard"] = CommentedMap()
    clusters = CommentedSeq()
    written: set[str] = set()
    for c in top.clusters:
        if c.root and c.root in written:  # another root of a cluster already written (Azure's kustomizations)
            continue
        written.add(c.root)
        entry = CommentedMap()
        entry["name"] = c.name
        if c.root:
            entry["root"] = c.root
        else:
            entry["path"] = c.path
            if c.form.startswith("kubectl"):
                entry["apply"] = "kubectl"
        entry.yaml_add_eol_comment(f"{c.form}: {c.evidence}"[:120], list(entry)[-1])
        clusters.append(entry)
    guard["clusters"] = clusters
    folders = [(src["source"], src["view"][len("dir:"):]) for src in top.sources if src["view"].startswith("dir:")]
    if folders:  # OCI artifacts recognised from CI: pinned, so a CI change cannot unpin them silently
        sources = guard.get("sources")
        if not isinstance(sources, list):
            sources = guard["sources"] = CommentedSeq()
        have = {str(e.get("source")) for e in sources if isinstance(e, dict)}
        for source, folder in folders:
            if source not in have:
                entry = CommentedMap()
                entry["source"], entry["path"] = source, folder + "/" if folder else "./"
                sources.append(entry)
    import io

    out = io.StringIO()
    yaml.dump(data, out)
    try:
        target.write_text(out.getvalue(), encoding="utf-8")
    except OSError as err:
        raise UsageError(f"cannot write {CONFIG_NAME}: {err.strerror}", file=CONFIG_NAME, key="guard",
                         hint="make the file writable") from None
    return target
