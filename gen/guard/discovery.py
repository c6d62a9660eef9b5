"""Follow every cluster from its bootstrap through the Kustomizations Flux would apply.

From each cluster's roots (gen/guard/flux/roots.py), every Flux Kustomization a build produces is
followed in turn, when its source is this repository (gen/guard/flux/sources.py): its `spec.path` is
read in that source's artifact, and built with real kustomize. Both revisions are explored in
lock-step waves so each wave is one batch of builds, and a build whose fingerprint (the spec
kustomize sees, every input's blob id) was already seen, at the other revision or in the
persistent cache, is not run again. Post-build substitution is applied per Kustomization, with
`substituteFrom` values read from what the cluster's own builds (or the repository's files)
hold; since those values come from builds, exploring repeats until they are stable.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gen.config import Config
from gen.guard.build import recall_cache
from gen.guard.flux import roots as rootsmod
from gen.guard.flux.applied import applied_before
from gen.guard.build.cache import BuildCache
from gen.guard.build.engine import Engine, Job
from gen.guard.flux.fluxspec import is_flux_kustomization, parse_ks
from gen.guard.build.inputs import Inputs, Recalled, Resolver, escape_error
from gen.guard.model import Build, FluxKs, KsRef, Node, ObjKey, Revision
from gen.guard.repo.revision import Tree
from gen.guard.flux.roots import Candidate
from gen.guard.flux.knowledge import Knowledge, RepoValues, gather, lookup
from gen.guard.repo.marks import Marks
from gen.guard.flux.sources import Delivery, SourceRef, Sources, source_key
from gen.guard.flux.substitution import Vars, resolve, substitute

_VERSION = "guard-build-3"  # bump when what a raw build means changes
_ROUNDS = 4


@dataclass(frozen=True)
class Question:
    """An answer that depended on what a cluster's builds hold: substituteFrom values for a
    Kustomization, or whether a source (with the cluster's bootstrap source) is this repository."""

    label: str
    cluster: str
    subject: FluxKs | tuple[SourceRef, SourceRef]
    answer: Vars | Delivery


@dataclass
class Item:
    """One Kustomization to reach: its spec, where it came from, and its artifact."""

    ks: FluxKs
    parent: KsRef | None
    root: KsRef
    root_source: SourceRef
    file: str | None
    view: str | None
    why: str = ""
    root_view: str | None = None  # the artifact of the cluster's bootstrap source


class Discovery:
    def __init__(self, trees: dict[str, Tree], engine: Engine, cache: BuildCache, config: Config,
                 remotes: set[str], workdir: Path, roots_under: tuple[str, ...] = (), build_all: bool = False,
                 repo: Path | None = None) -> None:
        self.trees = trees
        self.engine = engine
        self.cache = cache
        self.config = config
        self.remotes = remotes
        self.roots_under = roots_under
        self.build_all = build_all
        self.marked = Marks()
        self.sources = {label: Sources(tree, label, remotes, config.guard_sources, workdir / "artifacts", self.marked)
                        for label, tree in trees.items()}
        self._resolvers: dict[tuple[str, str], Resolver] = {}
        self._kids: dict[tuple[str, bool, str, str, str], list[FluxKs]] = {}
        # resolutions shared by base and head when nothing they looked at differs, kept between
        # runs in `repo` beside the build cache
        self._repo = repo
        self._recalled: Recalled = recall_cache.load(cache.directory, repo) if repo else {}
        self._recall_count = _count(self._recalled)
        self.raw: dict[str, Build] = {}  # raw fingerprint -> unsubstituted build
        self.requests: dict[str, tuple[Tree, FluxKs, Inputs]] = {}  # pending raw builds
        self._final: dict[tuple[str, str], Build] = {}  # (raw fingerprint, vars) -> substituted build
        self.repo_values = {label: RepoValues(tree, self.marked) for label, tree in trees.items()}
        self.candidates: dict[str, list[Candidate]] = {}
        self.how: dict[str, str] = {}
        self.unreached: list[str] = []
        self.flux_files: dict[str, list[str]] = {}  # per revision: files that can hold Flux Kustomizations
        # each node's raw build and the variables applied to it (finish() builds what was pending)
        self.made_of: dict[tuple[str, KsRef], tuple[str, Vars]] = {}
        # this round's answers that depended on what the clusters' builds hold
        self.questions: list[Question] = []

    def _answer(self, q: Question, knowledge: dict[str, dict[str, Knowledge]]) -> Vars | Delivery:
        """The question asked again, with other knowledge of the clusters' builds."""
        knows = knowledge.get(q.label, {}).get(q.cluster, Knowledge())
        if isinstance(q.subject, FluxKs):
            return resolve(q.subject, lookup(knows, self.repo_values[q.label]))
        return self.sources[q.label].deliver(q.subject[0], q.subject[1], knows.sources)

    # -- views and inputs -------------------------------------------------------------------
    def resolver(self, label: str, view: str) -> Resolver:
        key = (label, view)
        if key not in self._resolvers:
            self._resolvers[key] = Resolver(self.sources[label].view(view), self._recalled, view)
        return self._resolvers[key]

    def view(self, label: str, view: str) -> Tree:
        return self.sources[label].view(view)

    def _raw_fingerprint(self, tree: Tree, ks: FluxKs, inputs: Inputs) -> str:
        """The build's key: the spec kustomize sees and every input's blob id. A resolution's
        digest is computed once: where it is recalled, its files have the same blobs."""
        head = f"{_VERSION}\n{self.engine.identity}\n{ks.build_id()}\n"
        if not inputs.exact:
            text = f"{head}{_files_digest(tree, inputs)}\ninexact\0{tree.commit}\0{tree.root}\n"
            return "x" + hashlib.sha256(text.encode()).hexdigest()
        if not inputs.digest:
            inputs.digest = _files_digest(tree, inputs)
        return hashlib.sha256(f"{head}{inputs.digest}".encode()).hexdigest()

    def _may_produce_flux(self, tree: Tree, ks: FluxKs, inputs: Inputs) -> bool:
        """Whether a build can contain Flux objects others read (Kustomizations, sources).

        kustomize never invents an apiVersion, so a build whose input files (and substitution
        values) never mention a Flux API group cannot produce one."""
        if not inputs.exact or self.build_all or "toolkit.fluxcd.io" in repr(ks.substitute):
            return True
        if inputs.mentions_flux is None:  # the same files, the same blobs (as for fingerprints)
            marks = (b"toolkit.fluxcd.io", b"source.extensions.fluxcd.io")
            inputs.mentions_flux = any(self.marked(tree, path, marks) for path in inputs.files)
        return inputs.mentions_flux

    # -- building ---------------------------------------------------------------------------
    def _build(self, requests: dict[str, tuple[Tree, FluxKs, Inputs]]) -> None:
        """Fill self.raw for every fingerprint requested: memo, then cache, then kustomize."""
        jobs: dict[str, Job] = {}
        for fp, (tree, ks, inputs) in requests.items():
            if fp in self.raw and not self.raw[fp].pending:
                continue
            repo_inputs = tuple(sorted(tree.repo_path(p) for p in inputs.files))
            if not tree.is_dir(ks.path) or ks.path in tree.blobs:
                # kustomize-controller: "kustomization path not found"
                self.raw[fp] = Build(error=f"kustomization path not found: ./{ks.path}", inputs=repo_inputs, fingerprint=fp)
                continue
            if inputs.escapes:  # reads outside the repository: refused before kustomize runs
                self.raw[fp] = Build(error=escape_error(inputs.escapes), inputs=repo_inputs, fingerprint=fp)
                continue
            cached = self.cache.get(fp) if inputs.exact else None
            if cached is not None:
                self.raw[fp] = _keyed(cached, repo_inputs, fp)
            else:
                exact = inputs.exact and not inputs.missing  # kustomize reads these files and no others
                jobs[fp] = Job(fp, tree, ks, tuple(sorted(inputs.files)) if exact else None)
        for fp, outcome in self.engine.run(list(jobs.values())):
            tree, _, inputs = requests[fp]
            repo_inputs = tuple(sorted(tree.repo_path(p) for p in inputs.files))
            if outcome.objects is None:
                self.raw[fp] = Build(error=outcome.error or "build failed", inputs=repo_inputs, fingerprint=fp)
                continue
            if inputs.exact:
                self.cache.put(fp, outcome.objects)
            self.raw[fp] = _keyed(outcome.objects, repo_inputs, fp)

    def _substituted(self, raw: Build, variables: Vars) -> Build:
        """The raw build with one Kustomization's variables applied (shared when equal)."""
        if not variables.enabled or raw.pending or raw.error is not None:
            fp = _digest(raw.fingerprint or "", variables)
            return Build(raw.objects, raw.error, raw.inputs, fp, raw.pending)
        key = (raw.fingerprint or "", repr(variables))
        if key not in self._final:
            objects = substitute(list(raw.objects.values()), variables)
            self._final[key] = _keyed(objects, raw.inputs, _digest(raw.fingerprint or "", variables))
        return self._final[key]

    # -- exploring --------------------------------------------------------------------------
    def _explore(self, starts: dict[str, list[Item]], knowledge: dict[str, dict[str, Knowledge]],
                 refs: dict[str, str]) -> dict[str, Revision]:
        """Reach every Kustomization from the roots at every revision, one build batch a wave."""
        models = {label: Revision(label, refs[label]) for label in self.trees}
        for label, items in starts.items():
            models[label].roots = [i.ks.ref for i in items]
        wave = [(label, item) for label, items in starts.items() for item in items]
        while wave:
            pending: list[tuple[str, Item, str | None, Inputs | None]] = []
            queued: set[tuple[str, KsRef]] = set()  # (a set: a fleet's wave holds thousands)
            requests: dict[str, tuple[Tree, FluxKs, Inputs]] = {}
            for label, item in wave:
                rev = models[label]
                if item.ks.ref in rev.nodes or (label, item.ks.ref) in queued:
                    continue
                queued.add((label, item.ks.ref))
                if item.view is None:
                    pending.append((label, item, None, None))
                    continue
                tree = self.view(label, item.view)
                inputs = self.resolver(label, item.view).for_ks(item.ks.path, item.ks.components())
                fp = self._raw_fingerprint(tree, item.ks, inputs)
                pending.append((label, item, fp, inputs))
                if fp in self.raw:
                    continue
                if self._may_produce_flux(tree, item.ks, inputs):
                    requests.setdefault(fp, (tree, item.ks, inputs))
                else:
                    self.raw[fp] = Build(inputs=tuple(sorted(tree.repo_path(p) for p in inputs.files)),
                                         fingerprint=fp, pending=True)
                    self.requests[fp] = (tree, item.ks, inputs)
            self._build(requests)
            wave = []
            for label, item, raw_fp, read in pending:
                rev = models[label]
                knows = knowledge.get(label, {}).get(item.root.cluster, Knowledge())
                if raw_fp is None:
                    rev.nodes[item.ks.ref] = Node(item.ks, Build(), item.parent, item.root, item.file,
                                                  external=True, why_external=item.why, view="")
                    continue
                variables = resolve(item.ks, lookup(knows, self.repo_values[label]))
                if item.ks.substitute_from:
                    self.questions.append(Question(label, item.root.cluster, item.ks, variables))
                self.made_of[(label, item.ks.ref)] = (raw_fp, variables)
                build = self._substituted(self.raw[raw_fp], variables)
                node = Node(item.ks, build, item.parent, item.root, item.file, view=item.view or "",
                            unresolved=variables.unresolved)
                rev.nodes[item.ks.ref] = node
                for child in self._children(build, item.ks.ref) if build.error is None else \
                        applied_before(self.view(label, item.view or ""), read.files if read else (), item.ks.ref, self.marked):
                    node.children.append(child.ref)
                    view: str | None
                    root_view = item.root_view if item.parent is not None else item.view
                    if child.source == item.root_source and root_view is not None:
                        view, why = root_view, ""  # the bootstrap's own source: known without asking
                    else:
                        got = self.sources[label].deliver(child.source, item.root_source, knows.sources)
                        self.questions.append(Question(label, item.root.cluster, (child.source, item.root_source), got))
                        view, why = got.view, got.reason
                    wave.append((label, Item(child, item.ks.ref, item.root, item.root_source, None, view, why,
                                             root_view)))
        return models

    def _children(self, build: Build, parent: KsRef) -> list[FluxKs]:
        """The Flux Kustomizations a build applies, but the root that manages itself (flux-system);
        parsed once per build content (base and head share most builds)."""
        key = (build.fingerprint or "", build.pending, parent.cluster, parent.namespace, parent.name)
        if key not in self._kids:
            kids = (parse_ks(obj, parent.namespace, cluster=parent.cluster)
                    for obj in build.objects.values() if is_flux_kustomization(obj))
            self._kids[key] = [k for k in kids if not k.ref.same_object(parent)]
        return self._kids[key]

    def _start(self, label: str, roots: list[Candidate], knowledge: dict[str, Knowledge]) -> list[Item]:
        items = []
        for c in roots:
            if c.not_ours and c.ks.source not in self.sources[label].configured:  # guard.sources overrides
                items.append(Item(c.ks, None, c.ks.ref, c.ks.source, c.file, None, c.not_ours))
                continue
            known = knowledge.get(c.ks.ref.cluster, Knowledge()).sources
            if c.source_object is not None:
                key = source_key(c.source_object)
                known = {**known, **({key: c.source_object} if key else {})}
            got = self.sources[label].deliver(c.ks.source, c.ks.source, known)
            items.append(Item(c.ks, None, c.ks.ref, c.ks.source, c.file, got.view, got.reason))
        return items

    def run(self, refs: dict[str, str]) -> dict[str, Revision]:
        """Find the roots, explore until substituteFrom values and sources are stable."""
        chosen: dict[str, list[Candidate]] = {}
        for label in self.trees:
            view = self.sources[label].view(self.sources[label].git_view(None))
            files = rootsmod.flux_files(view, self.marked)
            self.flux_files[label] = files
            first = rootsmod.likely_roots(files, view, self.marked, self.config.guard_clusters, self.roots_under)
            candidates, instances = rootsmod.find_candidates(view, first, self.remotes)
            picked = rootsmod.choose(candidates, instances, self.config.guard_clusters, self.roots_under)
            if picked.how == "fallback":  # no bootstrap where bootstraps write: read every file
                candidates, instances = rootsmod.find_candidates(view, files, self.remotes)
                picked = rootsmod.choose(candidates, instances, self.config.guard_clusters, self.roots_under)
            self.candidates[label] = candidates + instances
            self.how[label] = picked.how
            chosen[label] = picked.roots
            if picked.drop_produced:
                chosen[label] = self._unproduced(label, picked.roots, refs)
        if "base" in chosen and "head" in chosen:
            # A root is applied out of band (flux bootstrap): deleting its file from git leaves it
            # in the cluster, still reconciling its path with the spec it had.
            head_refs = {c.ks.ref for c in self.candidates["head"]}
            chosen["head"] += [Candidate(c.ks, None, c.namespace_given, c.source_object, c.not_ours)
                               for c in chosen["base"] if c.ks.ref not in head_refs]
        knowledge: dict[str, dict[str, Knowledge]] = {}
        models: dict[str, Revision] = {}
        for _ in range(_ROUNDS):
            self.questions = []
            starts = {label: self._start(label, chosen[label], knowledge.get(label, {})) for label in self.trees}
            models = self._explore(starts, knowledge, refs)
            new = {label: gather(models[label], self.candidates.get(label, [])) for label in self.trees}
            if all(self._answer(q, new) == q.answer for q in self.questions):
                break  # what the builds hold answers every question as before: another round changes nothing
            knowledge = new
        for rev in models.values():  # each root node: where it is written
            for ref in rev.roots:
                node = rev.nodes.get(ref)
                if node is not None and node.file is None:
                    node.file = next((c.file for c in chosen[rev.label] if c.ks.ref == ref), None)
        if "head" in models:
            self.unreached = self._find_unreached(models["head"])
        if self._repo is not None and _count(self._recalled) != self._recall_count:
            recall_cache.save(self.cache.directory, self._repo, self._recalled)
        return models

    def _unproduced(self, label: str, candidates: list[Candidate], refs: dict[str, str]) -> list[Candidate]:
        """The older reading's roots: candidates that no other candidate's build produces, or would
        read had it built (a parent that fails does not make its children roots)."""
        starts = {label: self._start(label, candidates, {})}
        model = self._explore(starts, {}, {label: refs[label], **{k: refs[k] for k in self.trees if k != label}})[label]
        producers: dict[tuple[str, str], set[str]] = {}
        by_name: dict[str, set[str]] = {}
        for node in model.nodes.values():
            for child in node.children:
                producers.setdefault((child.namespace, child.name), set()).update(node.build.inputs)
                by_name.setdefault(child.name, set()).update(node.build.inputs)
        failed = [(ref, set(node.build.inputs)) for ref, node in model.nodes.items() if node.build.error]
        out = []
        for c in candidates:
            found = producers.get((c.ks.ref.namespace, c.ks.ref.name), set()) if c.namespace_given \
                else by_name.get(c.ks.ref.name, set())
            read_by_failed = any(c.file in inputs for ref, inputs in failed if ref != c.ks.ref)
            if c.file not in found and not read_by_failed:
                out.append(c)
        return out

    def _find_unreached(self, head: Revision) -> list[str]:
        """Files holding Flux Kustomizations that no build of any cluster reads, and no root
        (only these few of a fleet's files are parsed here)."""
        read: set[str] = set()
        for node in head.nodes.values():
            read.update(node.build.inputs)
            if node.file:
                read.add(node.file)
        view = self.view("head", "git")
        rest = [f for f in self.flux_files.get("head", []) if f not in read]
        if self.roots_under:  # --path: what lies outside is out of scope, not unreached
            rest = [f for f in rest if any(not p or f == p or f.startswith(p.rstrip("/") + "/") for p in self.roots_under)]
        found, _ = rootsmod.find_candidates(view, rest, self.remotes)
        return sorted({c.file for c in found if c.file})

    def finish(self, models: dict[str, Revision]) -> set[str]:
        """Build what the judgement needs: every Kustomization of every cluster the change
        touches (a fingerprint, the set of Kustomizations, or a root differs). Returns them."""
        base, head = models["base"], models["head"]
        prints: dict[str, tuple[dict[KsRef, str | None], dict[KsRef, str | None]]] = {}
        for r in list(base.roots) + list(head.roots):
            prints.setdefault(r.cluster, ({}, {}))
        for index, rev in enumerate((base, head)):
            for ref, node in rev.nodes.items():
                marker = node.build.fingerprint if not node.external else f"external:{node.why_external}"
                prints.setdefault(ref.cluster, ({}, {}))[index][ref] = marker
        touched = {c for c, (before, after) in prints.items() if self.build_all or before != after or not before}
        requests: dict[str, tuple[Tree, FluxKs, Inputs]] = {}
        pending = [(rev.label, ref, node) for rev in (base, head) for ref, node in rev.nodes.items()
                   if node.build.pending and (rev.label, ref) in self.made_of]
        for label, ref, _ in pending:
            raw = self.made_of[(label, ref)][0]
            if ref.cluster in touched and raw in self.requests:
                requests[raw] = self.requests[raw]
        self._build(requests)
        for label, ref, node in pending:
            raw, variables = self.made_of[(label, ref)]
            if not self.raw[raw].pending:
                node.build = self._substituted(self.raw[raw], variables)
        return touched


def _files_digest(tree: Tree, inputs: Inputs) -> str:
    digest = hashlib.sha256()
    for path in sorted(inputs.files):
        digest.update(f"{path}\0{tree.blobs[path]}\n".encode())
    for path in sorted(inputs.missing):
        digest.update(f"missing\0{path}\n".encode())
    return digest.hexdigest()


def _count(recalled: Recalled) -> int:
    return sum(len(found) for found in recalled.values())


def _digest(raw: str, variables: Vars) -> str:
    if not variables.enabled:
        return raw
    text = json.dumps([raw, list(variables.values), list(variables.unresolved)], separators=(",", ":"))
    return f"{raw}+{hashlib.sha256(text.encode()).hexdigest()[:16]}"


def _keyed(objects: list[dict[str, Any]], inputs: tuple[str, ...], fp: str) -> Build:
    keyed: dict[ObjKey, dict[str, Any]] = {}
    for obj in objects:
        if isinstance(obj, dict):
            keyed.setdefault(ObjKey.of(obj), obj)
    return Build(objects=keyed, inputs=inputs, fingerprint=fp)
