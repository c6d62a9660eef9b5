"""Follow every cluster from its bootstrap through the Kustomizations Flux would apply.

From each cluster's roots (gen/guard/flux/roots.py), every Flux Kustomization a build produces is
followed in turn, when its source is this repository (gen/guard/flux/sources.py): its `spec.path` is
read in that source's artifact, and built with Flux's own code (gen/guard/build/engine.py). Every
Kustomization is built: which ones a change reaches is never guessed from a model of kustomize,
it is what each build read, as kustomize's file system reports it (gen/guard/build/seen.py). A
build is run again only where something it saw differs: base's build serves head, and a cached
build serves any run, wherever every path it looked at shows the same. Post-build substitution
reads `substituteFrom` values from what the cluster's own builds (or the repository's files)
hold; since those values come from builds, exploring repeats until they are stable.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from pathlib import Path
from collections.abc import Callable
from typing import Any

from gen.config import Config
from gen.guard.flux import bootstraps, resourcesets, roots as rootsmod
from gen.guard.flux.applied import applied_before, written_in
from gen.guard.build.cache import BuildCache
from gen.guard.build.index import ClusterLooks, look_key, outside_reads
from gen.guard.build.engine import Engine, Job, Look, binary_id
from gen.guard.flux.fluxspec import is_flux_kustomization, parse_ks
from gen.guard.build import seen as seenmod
from gen.guard.build.inputs import Resolver
from gen.guard.fleet import Exploration, Fleet
from gen.guard.model import Build, FluxKs, KsRef, Node, ObjKey, Revision
from gen.guard.repo.revision import Tree
from gen.guard.flux.roots import Candidate
from gen.guard.flux.knowledge import Knowledge, RepoValues, gather, lookup
from gen.guard.repo.marks import Marks
from gen.guard.repo.manifests import file_docs
from gen.guard.flux.sources import ELSEWHERE, ClusterSources, Delivery, SourceRef, Sources, source_key
from gen.guard.flux.substitution import Vars, resolve
from gen.guard.flux.sourceignore import KeptStore
from gen.tools import corefile_binary

_VERSION = "guard-build-4"  # bump when what a build means changes
_ROUNDS = 4


@dataclass(frozen=True)
class Question:
    """An answer that depended on what a cluster's builds hold: substituteFrom values for a
    Kustomization, or whether a source (with the cluster's bootstrap source) is this repository."""

    label: str
    cluster: str
    subject: FluxKs | tuple[SourceRef, SourceRef]
    answer: Vars | Delivery
    root_file: str | None = None  # a root's own delivery: the file that writes it (and maybe its source)


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
    """The guard's workshop for one run: the revisions' trees, their sources' artifacts and the
    builds made so far (base's builds serve head, the cache serves both). It keeps no verdict of
    its own: `find_roots` makes the `Fleet`, `explore` the `Exploration` (gen/guard/fleet.py), each
    from what it is given; what it holds is how to build, and what was built (a memo)."""

    def __init__(self, trees: dict[str, Tree], engine: Engine, cache: BuildCache, config: Config,
                 remotes: set[str], workdir: Path, synced_branch: str | None = None) -> None:
        self.trees = trees
        self.engine = engine
        self.cache = cache
        self.config = config
        self.remotes = remotes
        self.marked = Marks(cache.directory)  # kept between runs: a warm run reads no file to answer
        store = self.kept = KeptStore(cache.directory, _artifact_identity(engine)) if cache.directory is not None else None
        self.synced_branch = synced_branch
        self.sources: dict[str, Sources] = {}
        for label, tree in trees.items():  # base first: head takes what its unchanged files answer the same
            self.sources[label] = Sources(tree, label, remotes, config.guard_sources, workdir / "artifacts", self.marked,
                                          store, synced_branch, like=self.sources.get("base"))
        self._resolvers: dict[tuple[str, str], Resolver] = {}  # for locating findings only
        self._kids: dict[tuple[str, str, str, str], list[FluxKs]] = {}
        self.made: dict[str, list[Build]] = {}  # build key -> the builds this run made or took from the cache
        self._readers: dict[int, seenmod.Reader] = {}  # per artifact (by identity): states of looks
        self._built_here: dict[tuple[str, int], Build] = {}  # (key, artifact identity) -> its build
        self.repo_values = {label: RepoValues(tree, self.marked) for label, tree in trees.items()}
        self._written: rootsmod.CandidateMemo = {}  # what each root file writes, shared by the revisions

    def _answer(self, q: Question, knowledge: dict[str, dict[str, Knowledge]]) -> Vars | Delivery:
        """The question asked again, with other knowledge of the clusters' builds."""
        knows = knowledge.get(q.label, {}).get(q.cluster, Knowledge())
        if isinstance(q.subject, FluxKs):
            return resolve(q.subject, lookup(knows, self.repo_values[q.label]))
        known = self._with_own_source(q.label, q.root_file, q.subject[0], knows.sources)
        return self.sources[q.label].deliver(q.subject[0], q.subject[1], known)

    # -- views and inputs -------------------------------------------------------------------
    def resolver(self, label: str, view: str) -> Resolver:
        key = (label, view)
        if key not in self._resolvers:
            self._resolvers[key] = Resolver(self.sources[label].view(view))
        return self._resolvers[key]

    def view(self, label: str, view: str) -> Tree:
        return self.sources[label].view(view)

    def reader(self, tree: Tree) -> seenmod.Reader:
        found = self._readers.get(id(tree))
        if found is None:
            found = self._readers[id(tree)] = seenmod.Reader(tree)
        return found

    def _key(self, ks: FluxKs, variables: Vars) -> str:
        """What a build is a function of besides the files it reads: the helper that builds, the
        Kustomization as Flux's build reads it, and the ConfigMaps/Secrets its postBuild reads."""
        text = json.dumps([_VERSION, self.engine.identity, ks.build_id(), ks.path,
                           list(variables.objects(ks.ref.namespace)), list(variables.unresolved)],
                          sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()

    def _known(self, key: str, tree: Tree) -> Build | None:
        """A build with this key that this artifact shows everything it saw the same: made in
        this run (at the other revision) or kept by the cache."""
        exact = self._built_here.get((key, id(tree)))
        if exact is not None:  # built from this very artifact (what it saw may hold nowhere else)
            return exact
        reader = self.reader(tree)
        for build in self.made.get(key, ()):
            if seenmod.holds(reader, build.seen):
                return build
        for variant in self.cache.get(key) or ():
            try:
                what: seenmod.Seen = tuple((str(k), str(p), str(s)) for k, p, s in variant["seen"])
                objects = variant["objects"]
            except (KeyError, TypeError, ValueError):
                continue  # not a variant this version wrote: a miss
            if isinstance(objects, list) and seenmod.holds(reader, what):
                build = self._made(key, tree, objects, None, what)
                return build
        return None

    def _made(self, key: str, tree: Tree, objects: list[dict[str, Any]] | None, error: str | None,
              what: seenmod.Seen) -> Build:
        build = _assembled(key, tree, objects, error, what)
        self.made.setdefault(key, []).append(build)
        self._built_here[(key, id(tree))] = build
        return build

    def build_variants(self, label: str, requests: list[tuple[Node, tuple[dict[str, Any], ...]]]) -> list[Build]:
        """Each Kustomization of `label` built again with the substituteFrom objects given (the
        placeholders of gen/guard/flux/unread.py for what cannot be read), in one batch: neither
        cached nor kept as this run's builds, which stay those of what the repository shows."""
        jobs = [Job(f"variant-{index}", self.view(label, node.view), node.ks.path,
                    json.loads(node.ks.build_spec) if node.ks.build_spec else {}, objects, node.ks.ref.cluster)
                for index, (node, objects) in enumerate(requests)]
        out: dict[str, Build] = {}
        for key, outcome in self.engine.run(jobs):
            tree = jobs[int(key.rsplit("-", 1)[1])].tree
            what = seenmod.seen(self.reader(tree), outcome.looks)
            out[key] = _assembled(key, tree, outcome.objects,
                                  outcome.error or ("build failed" if outcome.objects is None else None), what)
        return [out[job.key] for job in jobs]

    def _looked(self, key: str) -> tuple[Look, ...] | None:
        """What earlier builds with this key looked at (this run's, the cache's): a build expected to
        read the same is sent with only that on disk (gen/guard/build/placement.py); None when none."""
        looks = {(kind, path) for build in self.made.get(key, ()) for kind, path, _ in build.seen}
        for variant in self.cache.peek(key) or ():
            try:
                looks.update((str(kind), str(path)) for kind, path, _ in variant["seen"])
            except (KeyError, TypeError, ValueError):
                continue  # not a variant this version wrote
        return tuple(sorted(looks)) or None

    def _build(self, requests: dict[str, tuple[Tree, FluxKs, Vars]]) -> None:
        """Build what no earlier build serves, one batch; each result kept with what it saw."""
        jobs: list[Job] = []
        for key, (tree, ks, variables) in requests.items():
            if self._known(key, tree) is None:
                jobs.append(Job(key, tree, ks.path, _for_flux(ks, variables), variables.objects(ks.ref.namespace),
                                ks.ref.cluster, self._looked(key)))
        by_key = {job.key: job for job in jobs}
        for key, outcome in self.engine.run(jobs):
            tree = by_key[key].tree
            what = seenmod.seen(self.reader(tree), outcome.looks)
            self._made(key, tree, outcome.objects, outcome.error or ("build failed" if outcome.objects is None else None),
                       what)
            if outcome.objects is not None and not any(k == "out" for k, _ in outcome.looks):
                variants = [v for v in (self.cache.get(key) or []) if isinstance(v, dict)][:3]
                self.cache.put(key, [{"seen": [list(t) for t in what], "objects": outcome.objects}, *variants])

    # -- exploring --------------------------------------------------------------------------
    def _explore(self, starts: dict[str, list[Item]], knowledge: dict[str, dict[str, Knowledge]],
                 refs: dict[str, str], questions: list[Question]) -> dict[str, Revision]:
        """Reach every Kustomization from the roots at every revision, one build batch a wave; each
        revision's nodes are gathered here and made a Revision once every wave is done."""
        reached: dict[str, dict[KsRef, Node]] = {label: {} for label in self.trees}
        wave = [(label, item) for label, items in starts.items() for item in items]
        while wave:
            pending: list[tuple[str, Item, str | None, Tree | None, Vars]] = []
            queued: set[tuple[str, KsRef]] = set()  # (a set: a fleet's wave holds thousands)
            probes: set[tuple[str, KsRef]] = set()  # not judged, built here to learn what they read
            for label, item in wave:
                if item.ks.ref in reached[label] or (label, item.ks.ref) in queued:
                    continue
                queued.add((label, item.ks.ref))
                # one not judged is built only when its source may be this repository, to learn what it reads
                built_in = item.view if item.view is not None else self._probe_view(label, item)
                if built_in is None:
                    pending.append((label, item, None, None, Vars()))
                    continue
                knows = knowledge.get(label, {}).get(item.root.cluster, Knowledge())
                variables = resolve(item.ks, lookup(knows, self.repo_values[label]))
                if item.view is None:
                    probes.add((label, item.ks.ref))
                elif item.ks.substitute_from:
                    questions.append(Question(label, item.root.cluster, item.ks, variables))
                pending.append((label, item, self._key(item.ks, variables), self.view(label, built_in), variables))
            # base first: most of head's builds are base's, which head then shows the same
            for label in sorted(self.trees, key=lambda lab: lab != "base"):
                self._build({key: (tree, item.ks, variables) for lab, item, key, tree, variables in pending
                             if lab == label and key is not None and tree is not None})
            wave = []
            for label, item, key, tree, variables in pending:
                nodes = reached[label]
                knows = knowledge.get(label, {}).get(item.root.cluster, Knowledge())
                if key is None or tree is None:
                    nodes[item.ks.ref] = Node(item.ks, Build(), item.parent, item.root, item.file,
                                              external=True, why_external=item.why, view="")
                    continue
                if (label, item.ks.ref) in probes:
                    wave.extend((label, child) for child in self._not_judged(label, nodes, item, key, tree, knows,
                                                                             questions))
                    continue
                build = self._known(key, tree)
                assert build is not None, "every requested build was made"
                # a build that fails applies nothing new, but what it applied before is still there:
                # the Flux Kustomizations in the files it read (gen/guard/flux/applied.py)
                children = self._children(build, item.ks.ref) if build.error is None else \
                    applied_before(tree, seenmod.files_read(build.seen), item.ks.ref, self.marked)
                nodes[item.ks.ref] = Node(item.ks, build, item.parent, item.root, item.file,
                                          children=[child.ref for child in children], view=item.view or "",
                                          unresolved=variables.unresolved)
                root_view = item.root_view if item.parent is not None else item.view
                for child in children:
                    view, why = self._delivered(label, item, child, root_view, knows, questions)
                    wave.append((label, Item(child, item.ks.ref, item.root, item.root_source, None, view, why,
                                             root_view)))
        return {label: Revision(label, refs[label], nodes, [i.ks.ref for i in starts.get(label, [])])
                for label, nodes in reached.items()}

    def _delivered(self, label: str, item: Item, child: FluxKs, root_view: str | None, knows: Knowledge,
                   questions: list[Question]) -> tuple[str | None, str]:
        """The view `child`'s own sourceRef delivers in `item`'s cluster, or why it is not this repository."""
        if child.source == item.root_source and root_view is not None:
            return root_view, ""  # the bootstrap's own source: known without asking
        got = self.sources[label].deliver(child.source, item.root_source, knows.sources)
        questions.append(Question(label, item.root.cluster, (child.source, item.root_source), got))
        return got.view, got.reason

    def _probe_view(self, label: str, item: Item) -> str | None:
        """The view to build a Kustomization that is not judged in, when its source is a
        GitRepository that may be this repository (a mirror, a fork, another branch of it: not
        certainly another one): what it reads here and the Kustomizations it applies are what
        `not-judged-touched` counts (gen/guard/unjudged.py). A folder that is the whole repository
        counts every file already: not built."""
        if item.ks.source[0] != "GitRepository" or ELSEWHERE in item.why or not item.ks.path:
            return None
        return self.sources[label].git_view(None)

    def _not_judged(self, label: str, nodes: dict[KsRef, Node], item: Item, key: str, tree: Tree,
                    knows: Knowledge, questions: list[Question]) -> list[Item]:
        """Record a probed Kustomization as not judged, with only what its build read (never what it
        applies: nothing of it is judged), and its children: those its build applies, or, when it
        fails here, those written in what it read and under its folder.

        A child whose own sourceRef the cluster delivers as this repository (the bootstrap's
        GitRepository) is judged like any other: its spec is what this repository's files say
        (the probe builds them here), and what it builds is this repository's. Whether it exists
        at all depends on the probed source being this repository; judging one that may not exist
        can only add findings, and leaving it unjudged refused every change to what it reads, the
        same files its judged original reads (a same-owner GitRepository whose folder holds this
        repository's own Kustomizations, copied under another namespace). A child of another
        source stays unjudged, named by its nearest probed parent."""
        build = self._known(key, tree)
        assert build is not None, "every requested build was made"
        if build.error is None:
            children: list[tuple[FluxKs, str | None]] = [(k, None) for k in self._children(build, item.ks.ref)]
        else:
            under = item.ks.path.rstrip("/") + "/"
            files = set(seenmod.files_read(build.seen)) | {p for p in tree.blobs if p.startswith(under)}
            children = [(k, f) for k, f in written_in(tree, files, item.ks.ref, self.marked)]
        nodes[item.ks.ref] = Node(item.ks, Build(inputs=build.inputs), item.parent, item.root, item.file,
                                  children=[child.ref for child, _ in children], external=True,
                                  why_external=item.why, view="")
        out = []
        for child, file in children:
            view, _ = self._delivered(label, item, child, item.root_view, knows, questions)
            out.append(Item(child, item.ks.ref, item.root, item.root_source, file, view,
                            "" if view is not None else _not_judged_parent(item), item.root_view))
        return out

    def _children(self, build: Build, parent: KsRef) -> list[FluxKs]:
        """The Flux Kustomizations a build applies, but the root that manages itself (flux-system);
        parsed once per build content (base and head share most builds)."""
        key = (build.fingerprint or "", parent.cluster, parent.namespace, parent.name)
        if key not in self._kids:
            kids = (parse_ks(obj, parent.namespace, cluster=parent.cluster)
                    for obj in build.objects.values() if is_flux_kustomization(obj))
            self._kids[key] = [k for k in kids if not k.ref.same_object(parent)]
        return self._kids[key]

    def _start(self, label: str, roots: list[Candidate], knowledge: dict[str, Knowledge],
               questions: list[Question]) -> list[Item]:
        items = []
        for c in roots:
            known = knowledge.get(c.ks.ref.cluster, Knowledge()).sources
            not_ours = c.not_ours or (self.sources[label].foreign(c.ks.source, known) if c.guessed else "")
            if not_ours and c.ks.source not in self.sources[label].configured:  # guard.sources overrides
                items.append(Item(c.ks, None, c.ks.ref, c.ks.source, c.file, None, not_ours))
                continue
            if c.source_object is not None:
                key = source_key(c.source_object)
                known = {**known, **({key: c.source_object} if key else {})}
            else:
                known = self._with_own_source(label, c.file, c.ks.source, known)
            got = self.sources[label].deliver(c.ks.source, c.ks.source, known)
            # asked again with what the cluster's builds hold (its spec.ignore decides the artifact)
            questions.append(Question(label, c.ks.ref.cluster, (c.ks.source, c.ks.source), got,
                                           c.file if c.source_object is None else None))
            items.append(Item(c.ks, None, c.ks.ref, c.ks.source, c.file, got.view, got.reason))
        return items

    def _with_own_source(self, label: str, file: str | None, ref: SourceRef,
                         known: ClusterSources) -> ClusterSources:
        """`known`, with the source `ref` as the root's own file writes it beside the root
        (gotk-sync.yaml) when `known` lacks it: a fleet has hundreds of GitRepository flux-system,
        so the repository-wide lookup cannot tell which is the root's."""
        if file is None or ref in known:
            return known
        view = self.sources[label].view(self.sources[label].git_view(None))
        for doc in file_docs(view, file) or [] if view.is_file(file) else []:
            if source_key(doc) == ref:
                return {**known, ref: dict(doc)}
        return known

    def find_roots(self, refs: dict[str, str], under: tuple[str, ...] = ()) -> Fleet:
        """Every cluster's roots at every revision, from the bootstraps written in the repository,
        the config, the scripts, or the fallback's reading (`under`: --path's folders only)."""
        chosen: dict[str, list[Candidate]] = {}
        flux_files: dict[str, list[str]] = {}
        evidence: dict[str, tuple[bootstraps.Evidence, ...]] = {}
        refused: dict[str, dict[str, str]] = {}
        candidates: dict[str, list[Candidate]] = {}
        how: dict[str, rootsmod.How] = {}
        for label in self.trees:
            view = self.sources[label].view(self.sources[label].git_view(None))
            earlier = next(iter(flux_files), None)  # base's answer serves head's unchanged paths
            like = (self.sources[earlier].view(self.sources[earlier].git_view(None)), flux_files[earlier]) \
                if earlier is not None else None
            files = rootsmod.flux_files(view, self.marked, like)
            flux_files[label] = files
            first = rootsmod.likely_roots(files, view, self.marked, self.config.guard_clusters, under)
            found, instances = rootsmod.find_candidates(view, first, self.remotes, self._written)
            evidence[label] = tuple(bootstraps.scan(self.trees[label]))  # scripts are often sourceignored
            scripted = rootsmod.evidence_roots(list(evidence[label]), self.remotes, files, view)
            picked = rootsmod.choose(found, instances, self.config.guard_clusters, under, scripted)
            if picked.how == "fallback":  # no bootstrap where bootstraps write: read every file
                found, instances = rootsmod.find_candidates(view, files, self.remotes, self._written)
                refused[label] = {}

                def refuse(c: Candidate, view: Tree = view, label: str = label) -> str:
                    why = rootsmod.guess_refused(view, c)
                    if why and c.file:
                        refused[label][c.file] = why
                    return why

                picked = rootsmod.choose(found, instances, self.config.guard_clusters, under, scripted, refuse)
            candidates[label] = found + instances + scripted
            how[label] = picked.how
            chosen[label] = self._unproduced(label, picked.roots, refs) if picked.drop_produced else picked.roots
        if "base" in chosen and "head" in chosen:
            # A cluster whose bootstrap head writes another way keeps its identity: named as at head.
            renamed = rootsmod.same_clusters(chosen["base"], chosen["head"])
            if renamed:
                def named(cands: list[Candidate]) -> list[Candidate]:
                    return [rootsmod.in_cluster(c, renamed[c.ks.ref.cluster]) if c.ks.ref.cluster in renamed else c
                            for c in cands]
                chosen["base"] = named(chosen["base"])
                candidates["base"] = named(candidates["base"])
        roots = dict(chosen)
        if "base" in chosen and "head" in chosen:
            # A root is applied out of band (flux bootstrap): deleting its file from git leaves it
            # in the cluster, still reconciling its path with the spec it had.
            head_refs = {c.ks.ref for c in candidates["head"]}
            roots["head"] = chosen["head"] + [
                Candidate(c.ks, None, c.namespace_given, c.source_object, c.not_ours, c.evidence, c.guessed)
                for c in chosen["base"] if c.ks.ref not in head_refs]
        return Fleet(roots={label: tuple(cands) for label, cands in roots.items()},
                     candidates={label: tuple(cands) for label, cands in candidates.items()}, how=how,
                     evidence=evidence, refused=refused,
                     flux_files={label: tuple(files) for label, files in flux_files.items()},
                     remotes=frozenset(self.remotes), synced_branch=self.synced_branch, under=under)

    def explore(self, fleet: Fleet, refs: dict[str, str], only: frozenset[str] | None = None,
                read_elsewhere: frozenset[str] = frozenset(), owns: Callable[[str], bool] | None = None) -> Exploration:
        """Explore the clusters (`only` these, when given) from their roots at every revision,
        until substituteFrom values and sources are stable. `read_elsewhere`: the files the
        clusters not explored read (their index entries), so not unreached; `owns`: the files
        whose Kustomizations this run lists as unreached (a --shard's hash; every file when None)."""
        chosen = {label: [c for c in roots if only is None or c.ks.ref.cluster in only]
                  for label, roots in fleet.roots.items()}
        knowledge: dict[str, dict[str, Knowledge]] = {}
        models: dict[str, Revision] = {}
        for _ in range(_ROUNDS):
            questions: list[Question] = []  # this round's answers that depended on what the builds hold
            starts = {label: self._start(label, chosen[label], knowledge.get(label, {}), questions)
                      for label in self.trees}
            models = self._explore(starts, knowledge, refs, questions)
            new = {label: gather(models[label], list(fleet.candidates.get(label, ()))) for label in self.trees}
            if all(self._answer(q, new) == q.answer for q in questions):
                break  # what the builds hold answers every question as before: another round changes nothing
            knowledge = new
        models = {label: _roots_placed(rev, chosen[label]) for label, rev in models.items()}
        unread, unreached = self._find_unreached(fleet, models["head"], read_elsewhere, owns) \
            if "head" in models else ([], [])
        return Exploration(models, tuple(unread), tuple(unreached))

    def looks(self, rev: Revision, digests: dict[str, str]) -> dict[str, ClusterLooks]:
        """The index entries of the clusters explored at this revision that an index can vouch
        for (gen/guard/build/index.py): their looks, what they read, how many Kustomizations;
        `digests` are the clusters' roots at this revision (Fleet.digests)."""
        by_cluster: dict[str, list[Node]] = {}
        for ref in sorted(rev.nodes):
            by_cluster.setdefault(ref.cluster, []).append(rev.nodes[ref])
        out: dict[str, ClusterLooks] = {}
        for cluster, nodes in by_cluster.items():
            looks: set[str] = set()
            reads: set[str] = set()
            for node in nodes:
                build = node.build
                if node.external or build.error is not None or node.unresolved or node.ks.substitute_from \
                        or not (node.view == "git" or node.view.startswith("git:")) \
                        or outside_reads(build.objects.values()):
                    break
                tree = self.view(rev.label, node.view)
                keys = [look_key(kind, tree.repo_path(path) if path not in ("", ".") else "")
                        for kind, path, _ in build.seen]
                if any(k is None for k in keys):
                    break
                looks.update(k for k in keys if k is not None)
                reads.update(build.inputs)
                if node.file:
                    reads.add(node.file)
            else:
                if cluster in digests:
                    out[cluster] = ClusterLooks(digests[cluster], tuple(sorted(looks)), tuple(sorted(reads)), len(nodes))
        return out

    def _unproduced(self, label: str, candidates: list[Candidate], refs: dict[str, str]) -> list[Candidate]:
        """The older reading's roots: candidates that no other candidate's build produces, or would
        read had it built (a parent that fails does not make its children roots)."""
        asked: list[Question] = []  # (built once: nothing is asked again)
        starts = {label: self._start(label, candidates, {}, asked)}
        model = self._explore(starts, {}, {label: refs[label], **{k: refs[k] for k in self.trees if k != label}},
                              asked)[label]
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

    def _find_unreached(self, fleet: Fleet, head: Revision, read_elsewhere: frozenset[str],
                        owns: Callable[[str], bool] | None) -> tuple[list[str], list[str]]:
        """The files with Flux objects that no build of any cluster explored reads, and no root;
        and those of them this run owns that hold Flux Kustomizations (only these few of a
        fleet's files are parsed here)."""
        read: set[str] = set(read_elsewhere)
        for node in head.nodes.values():
            read.update(node.build.inputs)
            if node.file:
                read.add(node.file)
        view = self.view("head", "git")
        rest = [f for f in fleet.flux_files.get("head", ()) if f not in read]
        if fleet.under:  # --path: what lies outside is out of scope, not unreached
            rest = [f for f in rest if any(not p or f == p or f.startswith(p.rstrip("/") + "/") for p in fleet.under)]
        found, _ = rootsmod.find_candidates(view, [f for f in rest if owns is None or owns(f)], self.remotes, self._written)
        return sorted(rest), sorted({c.file for c in found if c.file})


def _roots_placed(rev: Revision, roots: list[Candidate]) -> Revision:
    """The revision with each root node written where its root was found (the first candidate of
    it), when its build did not say."""
    files: dict[KsRef, str | None] = {}
    for c in roots:
        files.setdefault(c.ks.ref, c.file)
    unplaced = [ref for ref in rev.roots if ref in rev.nodes and rev.nodes[ref].file is None]
    if not unplaced:
        return rev
    nodes = dict(rev.nodes)
    for ref in unplaced:
        nodes[ref] = replace(nodes[ref], file=files.get(ref))
    return Revision(rev.label, rev.ref, nodes, rev.roots)


def _not_judged_parent(item: Item) -> str:
    """Why a Kustomization followed from the folder of one not judged is not judged either: the
    nearest parent, and the first reason (not a chain of every parent between)."""
    first = item.why.split(_NOT_JUDGED, 1)[1] if item.why.startswith(_APPLIED_BY) else item.why
    return f"{_APPLIED_BY}{item.ks.ref}{_NOT_JUDGED}{first}"


_APPLIED_BY, _NOT_JUDGED = "it is applied by Kustomization ", ", which is not judged: "


def _for_flux(ks: FluxKs, variables: Vars) -> dict[str, Any]:
    """The Kustomization as the helper is sent it: a substituteFrom source that cannot be read
    here (a SOPS-encrypted Secret) is marked optional, so Flux's substitution runs without it
    (its variables empty) instead of failing as it would in a cluster without the object; the
    node lists it as not fully judged."""
    obj: dict[str, Any] = json.loads(ks.build_id()) if ks.build_spec else {}
    found = {(kind, name) for kind, name, _ in variables.found}
    post = (obj.get("spec") or {}).get("postBuild")
    if isinstance(post, dict) and isinstance(post.get("substituteFrom"), list):
        post["substituteFrom"] = [dict(ref, optional=True) if isinstance(ref, dict) and
                                  (str(ref.get("kind")), str(ref.get("name"))) not in found else ref
                                  for ref in post["substituteFrom"]]
    return obj


def _assembled(key: str, tree: Tree, objects: list[dict[str, Any]] | None, error: str | None,
               what: seenmod.Seen) -> Build:
    """One helper result as a Build: ResourceSets' output joins the build's, with what it read."""
    objects, operator, made = resourcesets.expand(objects or [])
    keyed = _keyed(objects)
    generated: dict[ObjKey, str] = {}
    for obj, rset in made:
        if keyed.get(made_key := ObjKey.of(obj)) is obj:  # (an object of the build itself wins)
            generated[made_key] = rset
    return Build(objects=keyed, error=error, operator=operator, generated=generated,
                 inputs=tuple(sorted(tree.repo_path(p) for p in seenmod.files_read(what))),
                 fingerprint=f"{key}:{seenmod.digest(what)}", seen=what)


def _keyed(objects: list[dict[str, Any]]) -> dict[ObjKey, dict[str, Any]]:
    """A build's objects by identity; the first of two with one identity wins, as before."""
    keyed: dict[ObjKey, dict[str, Any]] = {}
    for obj in objects:
        if isinstance(obj, dict):
            keyed.setdefault(ObjKey.of(obj), obj)
    return keyed


def _artifact_identity(engine: Engine) -> str:
    """Which programs answered what an artifact holds: `artifact` is asked of coredns-gen-corefile
    (gen/tools.py ask_artifact), which a checkout builds apart from the engine's helper, so a kept
    answer names both (a rebuilt one of either is asked again)."""
    answering = corefile_binary()
    return f"{engine.identity} artifact:{binary_id(answering) if answering is not None else 'none'}"
