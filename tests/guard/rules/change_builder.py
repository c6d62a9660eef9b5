"""A guard `Change` built in memory, from what each Flux Kustomization applies at base and head.

A rule is a function of a `Change` (gen/guard/change.py); the pipeline tests build a git
repository and run Flux's build through the helper to make one. These build it from values, in
milliseconds: one cluster, whose root `flux-system` applies the Kustomizations given, each with
the objects its build applies. What Flux deletes, orphans or moves, and which builds fail, is
judged by the guard's own code (gen/guard/diff.py compute_removals); where things are written is
said here, not read from files (`written`, else each Kustomization's file, line 1). The
revisions' files, for the rules that read them (`.sourceignore`, an error's folder), are given as
text (`files`) and served from memory, as git's blobs are (gen/guard/repo/revision.py Tree).
"""

from __future__ import annotations

import hashlib
import posixpath
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from gen.finding import Finding
from gen.guard import RULES
from gen.guard.change import Change, Where
from gen.guard.diff import compute_removals
from gen.guard.flux.charts import RefChart
from gen.guard.flux.moves import Move
from gen.guard.flux.platform_facts import ClusterFacts
from gen.guard.helm.release_upgrades import HelmLayer, Rendered, Upgrade
from gen.guard.model import FLUX_GROUP, Build, FluxKs, KsRef, Node, ObjKey, Revision
from gen.guard.repo.revision import Tree
from gen.guard.unjudged import Unjudged, judged_reads

CLUSTER = "clusters/prod/flux-system/gotk-sync.yaml"
ROOT = KsRef(CLUSTER, "flux-system", "flux-system")
SOURCE = ("GitRepository", "flux-system", "flux-system")
NOWHERE = Path("/nonexistent/in-memory")  # a tree's root: its files are in memory, never on disk


def obj(kind: str, name: str, namespace: str = "kube-system", api: str = "v1", **fields: Any) -> dict[str, Any]:
    """A Kubernetes object as a build applies it."""
    return {"apiVersion": api, "kind": kind, "metadata": {"name": name, "namespace": namespace}, **fields}


def key(o: dict[str, Any]) -> ObjKey:
    return ObjKey.of(o)


@dataclass(frozen=True)
class Ks:
    """One Flux Kustomization of the cluster at one revision, and what its build applies."""

    name: str
    objects: tuple[dict[str, Any], ...] = ()
    prune: bool = True
    depends_on: tuple[str, ...] = ()  # names of Kustomizations in flux-system
    error: str | None = None  # its build fails
    inputs: tuple[str, ...] = ()  # the files its build reads
    path: str = ""  # spec.path (default: the name)

    @property
    def ref(self) -> KsRef:
        return KsRef(CLUSTER, "flux-system", self.name)

    @property
    def file(self) -> str:
        return f"clusters/prod/{self.name}.yaml"

    def spec(self) -> FluxKs:
        return FluxKs(self.ref, self.path or self.name, self.prune, SOURCE,
                      depends_on=tuple(("flux-system", d) for d in self.depends_on))


def revision(label: str, kustomizations: Iterable[Ks]) -> Revision:
    """The cluster at one revision: its root applies every Kustomization given."""
    kss = list(kustomizations)
    applied = [obj("Kustomization", k.name, "flux-system", f"{FLUX_GROUP}/v1", spec={"prune": k.prune}) for k in kss]
    root = Node(FluxKs(ROOT, "clusters/prod", True, SOURCE), _build(label, "flux-system", applied), None, ROOT,
                CLUSTER, children=[k.ref for k in kss])
    nodes = {ROOT: root}
    for k in kss:
        nodes[k.ref] = Node(k.spec(), _build(label, k.name, list(k.objects), k.error, k.inputs), ROOT, ROOT, k.file)
    return Revision(label, label, nodes, [ROOT])


def _build(label: str, name: str, objects: list[dict[str, Any]], error: str | None = None,
           inputs: tuple[str, ...] = ()) -> Build:
    return Build({ObjKey.of(o): o for o in objects} if error is None else {}, error, inputs,
                 fingerprint=f"{label}:{name}:{len(objects)}")


class _InMemory:
    """A revision's files as git's blobs (gen/guard/repo/revision.py Files), from text."""

    def __init__(self, files: Mapping[str, str]) -> None:
        self.by_blob = {_blob(text): text.encode() for text in files.values()}

    def unpack(self) -> None:
        raise AssertionError("an in-memory revision is never put on disk")

    def place(self, paths: list[str]) -> None:
        self.unpack()

    def blob(self, blob: str) -> bytes:
        return self.by_blob[blob]

    def close(self) -> None:
        pass


def _blob(text: str) -> str:
    data = text.encode()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()  # git's blob id


def tree(label: str, files: Mapping[str, str]) -> Tree:
    """One revision holding these files (path -> text), read from memory."""
    entries: dict[str, set[str]] = {"": set()}
    for path in files:
        child = path
        while child:
            parent = posixpath.dirname(child)
            entries.setdefault(parent, set()).add(posixpath.basename(child))
            child = parent
    return Tree(label, NOWHERE, {p: _blob(t) for p, t in files.items()}, entries, checkout=_InMemory(files))


class Written:
    """Where things are written (gen/guard/change.py Anchors), as the test says: an object at
    `where[key]`, else at its Kustomization's file, line 1."""

    def __init__(self, revisions: Mapping[str, Revision], where: Mapping[ObjKey, tuple[str, int]],
                 trees: Mapping[str, Tree]) -> None:
        self._revisions = revisions
        self._where = where
        self._trees = trees

    @property
    def trees(self) -> Mapping[str, Tree]:
        return self._trees

    def invariant_anchor(self, ks: KsRef, key: ObjKey, field: str = "") -> tuple[str, int]:
        if key in self._where:
            return self._where[key]
        src = self.ks_source("head", ks)
        return (src[0], src[1]) if src else ("", 1)

    def ks_source(self, label: str, ref: KsRef) -> Where | None:
        node = self._revisions[label].nodes.get(ref)
        return (node.file, node.line, {}) if node is not None and node.file else None

    def object_source(self, label: str, inputs: tuple[str, ...], key: ObjKey) -> Where | None:
        return (*self._where[key], {}) if key in self._where else None


def change(base: Iterable[Ks], head: Iterable[Ks], *, changed: Iterable[str] = (), unjudged: Iterable[Unjudged] = (),
           helm: HelmLayer | None = None, written: Mapping[ObjKey, tuple[str, int]] | None = None,
           platform: str | None = None, files: Mapping[str, Mapping[str, str]] | None = None,
           moves: Iterable[Move] = (), ref_charts: Mapping[str, dict[tuple[str, ObjKey], list[RefChart]]] | None = None,
           ) -> Change:
    """The change from `base` to `head` of the one cluster, judged as the guard judges it.

    `platform`: what the cluster runs by fact; `files`: "base"/"head" -> path -> text of the
    revision's files; `moves` and `ref_charts`: what gen/guard/flux/moves.py and charts.py found."""
    revisions = {"base": revision("base", base), "head": revision("head", head)}
    trees = {label: tree(label, (files or {}).get(label, {})) for label in revisions}
    anchors = Written(revisions, written or {}, trees)
    removals, issues = compute_removals(revisions["base"], revisions["head"])
    anchored = []
    for r in removals:  # where the locator would anchor it: here, where the test says, else its Kustomization
        file, line = (written or {}).get(r.key) or (revisions["base"].nodes[r.ks].file or CLUSTER, 1)
        anchored.append(replace(r, file=file, line=line, hint=f"put {r.key.ref} back",
                                details={**r.details, "cause": "it left the build"}))
    items = list(unjudged)
    return Change(revisions["base"], revisions["head"], anchored, issues, anchors, fleet_roots=1,
                  facts={CLUSTER: ClusterFacts(CLUSTER, platform, None)}, changed=frozenset(changed), unjudged=items,
                  judged_reads=judged_reads(revisions["base"], revisions["head"], {u.ks.cluster for u in items}),
                  ref_charts=dict(ref_charts or {}), helm=helm or HelmLayer(), moves=list(moves))


def upgrade(release: str, base: Iterable[dict[str, Any]], head: Iterable[dict[str, Any]], *, by: str = "apps",
            namespace: str = "media", suspended: bool = False) -> Upgrade:
    """A HelmRelease of the cluster whose values change, with what its chart renders at each revision."""
    def rendered(objects: Iterable[dict[str, Any]]) -> Rendered:
        return Rendered({ObjKey.of(o): o for o in objects}, release, "1.0.0", "oci://charts.example/" + release)
    return Upgrade(CLUSTER, ObjKey(namespace, release, "helm.toolkit.fluxcd.io", "HelmRelease"),
                   KsRef(CLUSTER, "flux-system", by), rendered(base), rendered(head), ("spec.values",), ("config",),
                   suspended)


def findings(of: Change, rule: str) -> list[Finding]:
    """What the registered rule `rule` finds in the change."""
    found = [r for r in RULES if r.ID == rule]
    assert found, f"no rule {rule}"
    return list(found[0].check(of))
