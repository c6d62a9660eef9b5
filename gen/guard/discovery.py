"""Find the Flux Kustomizations that reach a cluster, at both revisions, building as it goes.

Roots are the Kustomizations no other Kustomization's build produces (typically
`clusters/<name>/flux-system/gotk-sync.yaml`); every Kustomization object a build produces is
followed in turn. Both revisions are explored in lock-step waves so each wave is one batch of
builds, and a build whose fingerprint (spec + input blob ids) was already seen, at the other
revision or in the persistent cache, is not run again. A file no build reaches is in no cluster.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from gen.guard.cache import BuildCache
from gen.guard.engine import Engine, Job
from gen.guard.fluxspec import is_flux_kustomization, parse_ks, substitute
from gen.guard.inputs import Inputs, Resolver, escape_error
from gen.guard.manifests import try_docs
from gen.guard.model import Build, FluxKs, KsRef, Node, ObjKey, Revision
from gen.guard.revision import Tree

FLUX_MARK = b"kustomize.toolkit.fluxcd.io"


@dataclass
class Candidate:
    """A Flux Kustomization written in a file: a root unless another build produces it."""

    ks: FluxKs
    file: str | None
    namespace_given: bool = True


@dataclass
class Explored:
    build: Build
    children: list[FluxKs] = field(default_factory=list)
    external: bool = False


class Discovery:
    def __init__(self, trees: dict[str, Tree], engine: Engine, cache: BuildCache,
                 roots_under: tuple[str, ...] = (), build_all: bool = False) -> None:
        self.trees = trees
        self.engine = engine
        self.cache = cache
        self.roots_under = roots_under
        parsed: dict[str, Any] = {}
        self.resolvers = {label: Resolver(tree, parsed) for label, tree in trees.items()}
        self.memo: dict[str, Build] = {}
        self.requests: dict[str, tuple[str, FluxKs, Inputs]] = {}  # pending fingerprints
        self._marks: dict[str, bool] = {}
        self.build_all = build_all
        self.explored: dict[tuple[str, KsRef, str], Explored] = {}
        self.candidates: dict[str, list[Candidate]] = {label: [] for label in trees}
        self._flux_blobs: dict[str, list[Any] | None] = {}

    # -- candidates -------------------------------------------------------------------------
    def _candidate_files(self, label: str) -> list[str]:
        """YAML files (under --path) that mention the Flux API group: where roots can be."""
        tree = self.trees[label]
        wanted = [p.rstrip("/") for p in self.roots_under if p]
        out = []
        for path in sorted(tree.blobs):
            if not path.endswith((".yaml", ".yml")):
                continue
            if self.roots_under and "" not in self.roots_under and \
                    not any(path == p or path.startswith(p + "/") for p in wanted):
                continue
            blob = tree.blobs[path]
            if blob not in self._marks:
                self._marks[blob] = FLUX_MARK in tree.read(path)
            if self._marks[blob]:
                out.append(path)
        return out

    def _parse(self, label: str, paths: list[str]) -> list[Candidate]:
        tree = self.trees[label]
        found: list[Candidate] = []
        for path in paths:
            blob = tree.blobs[path]
            if blob not in self._flux_blobs:
                self._flux_blobs[blob] = try_docs(tree.read(path).decode("utf-8", "replace"))
            for doc in self._flux_blobs[blob] or []:
                if is_flux_kustomization(doc):
                    given = bool((doc.get("metadata") or {}).get("namespace"))
                    # A root's file names its cluster: every cluster has its own flux-system.
                    found.append(Candidate(parse_ks(doc, "flux-system", cluster=path), path, given))
        return found

    def _covered(self, label: str) -> set[str]:
        """Files read by builds that produce Kustomizations: what they hold is produced, not a root."""
        out: set[str] = set()
        for (lab, _, _), entry in self.explored.items():
            if lab == label and entry.children:
                out.update(entry.build.inputs)
        return out

    # -- building ---------------------------------------------------------------------------
    def _fingerprint(self, label: str, ks: FluxKs, inputs: Inputs) -> str:
        tree = self.trees[label]
        digest = hashlib.sha256()
        digest.update(f"{self.engine.identity}\n{ks.spec_id()}\n".encode())
        for path in sorted(inputs.files):
            digest.update(f"{path}\0{tree.blobs[path]}\n".encode())
        for path in sorted(inputs.missing):
            digest.update(f"missing\0{path}\n".encode())
        if not inputs.exact:
            digest.update(f"inexact\0{tree.commit}\n".encode())
        return ("" if inputs.exact else "x") + digest.hexdigest()

    def _may_produce_flux(self, label: str, ks: FluxKs, inputs: Inputs) -> bool:
        """Whether a build can contain Flux Kustomizations (needed to find the next wave).

        kustomize never invents an apiVersion, so a build whose input files (and substitution
        values) never mention the Flux API group cannot produce one."""
        if not inputs.exact or self.build_all or FLUX_MARK.decode() in repr(ks.substitute):
            return True
        tree = self.trees[label]
        for path in inputs.files:
            blob = tree.blobs[path]
            if blob not in self._marks:
                self._marks[blob] = FLUX_MARK in tree.read(path)
            if self._marks[blob]:
                return True
        return False

    def _build(self, requests: dict[str, tuple[str, FluxKs, Inputs]]) -> None:
        """Fill self.memo for every fingerprint requested: memo, then cache, then kustomize."""
        jobs: dict[str, Job] = {}
        for fp, (label, ks, inputs) in requests.items():
            if fp in self.memo and not self.memo[fp].pending:
                continue
            tree = self.trees[label]
            if not tree.is_dir(ks.path) or ks.path in tree.blobs:
                # kustomize-controller: "kustomization path not found"
                self.memo[fp] = Build(error=f"kustomization path not found: ./{ks.path}", fingerprint=fp)
                continue
            if inputs.escapes:  # reads outside the repository: refused before kustomize runs
                self.memo[fp] = Build(error=escape_error(inputs.escapes), inputs=tuple(sorted(inputs.files)), fingerprint=fp)
                continue
            cached = self.cache.get(fp) if inputs.exact else None
            if cached is not None:
                self.memo[fp] = _make_build(cached, inputs, fp)
            else:
                jobs[fp] = Job(fp, tree, ks)
        for fp, outcome in self.engine.run(list(jobs.values())).items():
            job, inputs = jobs[fp], requests[fp][2]
            if outcome.objects is None:
                self.memo[fp] = Build(error=outcome.error or "build failed", inputs=tuple(sorted(inputs.files)),
                                      fingerprint=fp)
                continue
            objects = substitute(outcome.objects, job.ks)
            if inputs.exact:
                self.cache.put(fp, objects)
            self.memo[fp] = _make_build(objects, inputs, fp)

    def _wave(self, items: list[tuple[str, FluxKs, tuple[str, str, str]]]) -> list[tuple[str, FluxKs, tuple[str, str, str]]]:
        """Build one wave of (label, spec, root source); return the next wave."""
        keyed: list[tuple[str, FluxKs, tuple[str, str, str], str]] = []
        requests: dict[str, tuple[str, FluxKs, Inputs]] = {}
        for label, ks, root_source in items:
            inputs = self.resolvers[label].for_path(ks.path)
            fp = self._fingerprint(label, ks, inputs)
            keyed.append((label, ks, root_source, fp))
            if fp in self.memo:
                continue
            if self._may_produce_flux(label, ks, inputs):
                requests.setdefault(fp, (label, ks, inputs))
            else:
                self.memo[fp] = Build(inputs=tuple(sorted(inputs.files)), fingerprint=fp, pending=True)
                self.requests[fp] = (label, ks, inputs)
        self._build(requests)
        nxt: list[tuple[str, FluxKs, tuple[str, str, str]]] = []
        for label, ks, root_source, fp in keyed:
            key = (label, ks.ref, ks.spec_id())
            if key in self.explored:
                continue
            build = self.memo[fp]
            entry = Explored(build)
            self.explored[key] = entry
            for obj in build.objects.values():
                if not is_flux_kustomization(obj):
                    continue
                child = parse_ks(obj, ks.ref.namespace, cluster=ks.ref.cluster)
                if child.ref.same_object(ks.ref):
                    continue  # a root that manages itself (flux-system)
                entry.children.append(child)
                child_key = (label, child.ref, child.spec_id())
                if child_key in self.explored:
                    continue
                if child.source != root_source:
                    self.explored[child_key] = Explored(Build(), external=True)
                    continue
                nxt.append((label, child, root_source))
        return nxt

    def finish(self, models: dict[str, Revision]) -> set[str]:
        """Build what the judgement needs: every Kustomization of every cluster the change
        touches (a fingerprint, the set of Kustomizations, or a root differs). Returns them."""
        base, head = models["base"], models["head"]
        prints: dict[str, tuple[dict[KsRef, str | None], dict[KsRef, str | None]]] = {}
        for r in list(base.roots) + list(head.roots):
            prints.setdefault(r.cluster, ({}, {}))
        for index, rev in enumerate((base, head)):
            for ref, node in rev.nodes.items():
                prints.setdefault(ref.cluster, ({}, {}))[index][ref] = node.build.fingerprint
        touched = {c for c, (before, after) in prints.items() if self.build_all or before != after or not before}
        requests: dict[str, tuple[str, FluxKs, Inputs]] = {}
        for rev in (base, head):
            for ref, node in rev.nodes.items():
                fp = node.build.fingerprint
                if ref.cluster in touched and node.build.pending and fp is not None:
                    requests[fp] = self.requests[fp]
        self._build(requests)
        for rev in (base, head):
            for node in rev.nodes.values():
                fp = node.build.fingerprint
                if fp is not None and node.build.pending and not self.memo[fp].pending:
                    node.build = self.memo[fp]
        return touched

    def _explore(self, items: list[tuple[str, FluxKs, tuple[str, str, str]]]) -> None:
        seen: set[tuple[str, KsRef, str]] = set()
        while items:
            unique = []
            for item in items:
                key = (item[0], item[1].ref, item[1].spec_id())
                if key not in seen and key not in self.explored:
                    seen.add(key)
                    unique.append(item)
            items = self._wave(unique)

    # -- the model --------------------------------------------------------------------------
    def run(self, refs: dict[str, str]) -> dict[str, Revision]:
        """Explore from the likely roots (flux-system folders, gotk-sync.yaml) first; then only the
        Flux files no build has read yet need parsing: the rest are produced, not roots."""
        files = {label: self._candidate_files(label) for label in self.trees}
        parsed: dict[str, set[str]] = {label: set() for label in self.trees}
        todo = {label: [p for p in paths if _likely_root(p)] for label, paths in files.items()}
        first = True
        while first or any(todo.values()):
            first = False
            new = []
            for label, paths in todo.items():
                found = self._parse(label, paths)
                parsed[label].update(paths)
                self.candidates[label] += found
                new += [(label, c.ks, c.ks.source) for c in found]
            self._explore(new)
            todo = {}
            for label, paths in files.items():
                covered = self._covered(label)
                todo[label] = [p for p in paths if p not in parsed[label] and p not in covered]
        models = {label: self._model(label, refs[label]) for label in self.trees}
        if "base" in models and "head" in models:
            # A root is applied out of band (flux bootstrap): deleting its file from git leaves it
            # in the cluster, still reconciling its path with the spec it had.
            head_refs = {c.ks.ref for c in self.candidates["head"]}
            vanished = [models["base"].nodes[r] for r in models["base"].roots if r not in head_refs]
            if vanished:
                self.candidates["head"] += [Candidate(n.ks, None) for n in vanished]
                self._explore([("head", n.ks, n.ks.source) for n in vanished])
                models["head"] = self._model("head", refs["head"])
        return models

    def _model(self, label: str, ref: str) -> Revision:
        # (namespace, name) and name -> files read by the builds that produce such a Kustomization
        # (a build never counts as producing itself: those children are skipped when exploring)
        producers: dict[tuple[str, str], set[str]] = {}
        by_name: dict[str, set[str]] = {}
        for (lab, _, _), entry in self.explored.items():
            if lab == label:
                for child in entry.children:
                    producers.setdefault((child.ref.namespace, child.ref.name), set()).update(entry.build.inputs)
                    by_name.setdefault(child.ref.name, set()).update(entry.build.inputs)

        def is_root(c: Candidate) -> bool:
            """Not a root when another Kustomization's build reads its file and produces it."""
            found = producers.get((c.ks.ref.namespace, c.ks.ref.name), set()) if c.namespace_given \
                else by_name.get(c.ks.ref.name, set())
            return c.file not in found

        revision = Revision(label, ref)
        queue: list[tuple[FluxKs, KsRef | None, KsRef, str | None, tuple[str, str, str]]] = []
        for cand in self.candidates[label]:
            if is_root(cand) and cand.ks.ref not in revision.roots:
                revision.roots.append(cand.ks.ref)
                queue.append((cand.ks, None, cand.ks.ref, cand.file, cand.ks.source))
        while queue:
            ks, parent, root, file, root_source = queue.pop(0)
            if ks.ref in revision.nodes:
                continue
            found = self.explored.get((label, ks.ref, ks.spec_id()))
            external = ks.source != root_source or found is None or found.external
            node = Node(ks, found.build if found and not external else Build(), parent, root, file,
                        external=external)
            revision.nodes[ks.ref] = node
            if external or found is None:
                continue
            for child in found.children:
                node.children.append(child.ref)
                queue.append((child, ks.ref, root, None, root_source))
        return revision


def _likely_root(path: str) -> bool:
    return "flux-system" in path.split("/") or path.endswith(("/gotk-sync.yaml", "/gotk-sync.yml"))


def _make_build(objects: list[dict[str, Any]], inputs: Inputs, fp: str) -> Build:
    keyed: dict[ObjKey, dict[str, Any]] = {}
    for obj in objects:
        if isinstance(obj, dict):
            keyed.setdefault(ObjKey.of(obj), obj)
    return Build(objects=keyed, inputs=tuple(sorted(inputs.files)), fingerprint=fp)
