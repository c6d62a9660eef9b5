"""The judged difference between base and head that every rule reads (rules never build).

Prune rules read `removals`; invariant rules give a pure `violations(objects)` over one
cluster's objects and `invariant_findings` turns head violations into findings, downgrading
those already true at base to warnings: the gate refuses what the change breaks, and still
shows what was broken before.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterator, Protocol

from gen.finding import Finding, Severity
from gen.guard.diff import MOVED, BuildIssue, Removal, move_deletes
from gen.guard.flux.charts import RefChart
from gen.guard.helm.release_upgrades import HelmLayer
from gen.guard.flux.moves import Move
from gen.guard.flux.platform_facts import ClusterFacts
from gen.guard.flux.unread import Blind
from gen.guard.model import FLUX_GROUP, HELM_GROUP, KsRef, ObjKey, Revision
from gen.guard.repo.revision import Tree
from gen.guard.unjudged import Unjudged

ClusterObjects = dict[ObjKey, tuple[KsRef, dict[str, Any]]]
# the Namespaces the API server never deletes (its NamespaceLifecycle admission refuses)
IMMORTAL = frozenset({"default", "kube-system", "kube-public"})


@dataclass(frozen=True)
class Violation:
    """One broken invariant: the object, the Kustomization applying it, which field, why."""

    ks: KsRef
    key: ObjKey
    message: str
    hint: str
    field: str = ""
    severity: Severity | None = None  # lower than the rule's: judged by content, not by fact


# (head objects, base objects, the cluster's platform by fact or None) -> violations
PlatformViolations = Callable[[ClusterObjects, ClusterObjects, "str | None"], Iterator[Violation]]


Where = tuple[str, int, dict[str, int]]  # file, line, and the line of each key of the object


class Anchors(Protocol):
    """Where objects and Kustomizations are written in the revisions' files: what a finding is
    anchored at (gen/guard/locate.py Locator reads it from the trees; a test can say it)."""

    @property
    def trees(self) -> Mapping[str, Tree]: ...

    def invariant_anchor(self, ks: KsRef, key: ObjKey, field: str = "") -> tuple[str, int]: ...

    def ks_source(self, label: str, ref: KsRef) -> Where | None: ...

    def object_source(self, label: str, inputs: tuple[str, ...], key: ObjKey) -> Where | None: ...


@dataclass(frozen=True)
class Change:
    """The judged change, made once from the exploration (gen/guard/__init__.py `_change`): what
    every rule reads. A test builds one in memory (tests/guard/rules/change_builder.py)."""

    base: Revision
    head: Revision
    removals: list[Removal]  # anchored at the file and line to change (Locator.anchored)
    issues: list[BuildIssue]
    locator: Anchors
    touched: set[str] | None = None  # clusters the change touches; None: all
    fleet_roots: int = 0  # roots of the whole repository (more than base/head hold under --shard)
    workdir: Path | None = None  # the guard's scratch dir (an ExternalArtifact's files), for messages
    facts: Mapping[str, ClusterFacts] = field(default_factory=dict)  # cluster -> name, platform, release by fact
    changed: frozenset[str] = frozenset()  # repository files that differ between base and head (git diff)
    unjudged: list[Unjudged] = field(default_factory=list)  # Kustomizations not judged (gen/guard/unjudged.py)
    judged_reads: dict[str, set[str]] = field(default_factory=dict)  # cluster -> files judged ones read
    # "base"/"head" -> (cluster, HelmRelease) -> the charts its spec.chartRef may render (gen/guard/flux/charts.py)
    ref_charts: dict[str, dict[tuple[str, ObjKey], list[RefChart]]] = field(default_factory=dict)
    helm: HelmLayer = field(default_factory=HelmLayer)  # what helm-controller's upgrades delete (gen/guard/helm/)
    moves: list[Move] = field(default_factory=list)  # bootstrap sources the change moves (gen/guard/flux/moves.py)
    # Kustomizations built without a substituteFrom source that cannot be read (gen/guard/flux/unread.py)
    blind: tuple[Blind, ...] = ()
    _views: dict[str, dict[KsRef, ClusterObjects]] = field(default_factory=dict, compare=False, repr=False)  # a memo

    def revisions(self) -> dict[str, Revision]:
        return {"base": self.base, "head": self.head}

    def platform(self, cluster: str) -> str | None:
        """The platform the cluster runs, by fact (gen/guard/flux/platform_facts.py), or None."""
        fact = self.facts.get(cluster)
        return fact.platform if fact is not None else None

    def where(self, ref: KsRef) -> str:
        """` [cluster <root file>]` when the repo holds several clusters, else nothing."""
        roots = max(self.fleet_roots, len(set(self.base.roots) | set(self.head.roots)))
        return f" [cluster {ref.cluster}]" if roots > 1 else ""

    def removed(self, fate: str) -> list[Removal]:
        return [r for r in self.removals if r.fate == fate]

    def clusters(self, label: str) -> dict[KsRef, ClusterObjects]:
        if label not in self._views:
            views = (self.head if label == "head" else self.base).clusters()
            self._views[label] = {r: v for r, v in views.items() if self.touched is None or r.cluster in self.touched}
        return self._views[label]

    def held_in(self, namespace: Removal) -> list[ObjKey]:
        """The ConfigMaps and HelmReleases the base applies in the pruned Namespace `namespace`,
        in its cluster: what Kubernetes deletes with it (gen/guard/rules/namespace_pruned.py). A
        HelmRelease written elsewhere counts when its release is there: its `targetNamespace` (the
        release's objects) or `storageNamespace` (Helm's record of the release). A suspended
        HelmRelease in it whose release is elsewhere does not: helm-controller deletes it without
        uninstalling the release."""
        if namespace.key.kind != "Namespace" or namespace.key.group:
            return []
        return self.held_in_namespace(namespace.ks.cluster, namespace.key.name)

    def held_in_namespace(self, cluster: str, name: str) -> list[ObjKey]:
        """held_in for the Namespace `name` of `cluster`, whoever deletes it (Flux's prune, or
        Helm's upgrade: gen/guard/rules/helm_upgrade_deletes.py)."""
        if name in IMMORTAL:
            return []
        held: set[ObjKey] = set()
        for root, objects in self.clusters("base").items():
            if root.cluster != cluster:
                continue
            for key, (_, obj) in objects.items():
                if key.kind == "ConfigMap" and not key.group:
                    if key.namespace == name:
                        held.add(key)
                elif key.kind == "HelmRelease" and key.group == HELM_GROUP:
                    spec = obj.get("spec") or {}
                    release_ns = spec.get("targetNamespace") or key.namespace
                    if spec.get("suspend") is True and key.namespace == name and release_ns != name:
                        continue  # deleted with it, but suspended: helm-controller skips the uninstall
                    if name in (key.namespace, release_ns, spec.get("storageNamespace")):
                        held.add(key)
        return sorted(held, key=lambda k: (k.kind != "ConfigMap", k))  # the ConfigMaps first

    def deleted_on_move(self, removal: Removal) -> list[ObjKey] | None:
        """Whether an object that moves away from a Kustomization deleted with prune is lost with
        it (its finalizer deletes what is still labelled as its own, before or after the new owner
        takes it over: nothing orders it): None when not; else what is lost besides it, for a
        Namespace what Kubernetes deletes with it (held_in: ConfigMaps, HelmReleases), for a
        Kustomization what its own finalizer deletes (ks_holds), [] for a ConfigMap or
        HelmRelease itself (gen/guard/diff.py move_deletes)."""
        if removal.fate != MOVED or not removal.ks_gone:
            return None
        return self.lost_with(removal)

    def pruned_on_move(self, removal: Removal) -> list[ObjKey] | None:
        """The same for a move away from a Kustomization that stays and prunes: its next reconcile
        deletes every object of its last inventory still labelled as its own, so unless the new
        owner has applied the object first (and relabelled it) it is deleted, and nothing orders
        that but a `dependsOn` (move_ordered). None when not lost or when ordered."""
        if removal.fate != MOVED or removal.ks_gone or self.move_ordered(removal):
            return None
        return self.lost_with(removal)

    def lost_with(self, removal: Removal) -> list[ObjKey] | None:
        """What deleting a moved object costs that a later re-create does not undo: None when
        nothing (other kinds are back at the new owner's next apply), [] for a ConfigMap or an
        unsuspended HelmRelease (an outage, an uninstall), else what goes with it."""
        if move_deletes(replace(removal, ks_gone=True)):
            return []
        key = removal.key
        if key.kind == "Kustomization" and key.group == FLUX_GROUP:
            return self.ks_holds(KsRef(removal.ks.cluster, key.namespace, key.name)) or None
        return self.held_in(removal) or None

    def ks_holds(self, ref: KsRef) -> list[ObjKey]:
        """The ConfigMaps and unsuspended HelmReleases Kustomization `ref` applies at base, when
        its finalizer deletes them if it is deleted (FluxKs.finalizer_keeps)."""
        node = self.base.nodes.get(ref)
        if node is None or node.ks.finalizer_keeps():
            return []
        held = [k for k, obj in node.build.objects.items()
                if (k.kind == "ConfigMap" and not k.group)
                or (k.kind == "HelmRelease" and k.group == HELM_GROUP and (obj.get("spec") or {}).get("suspend") is not True)]
        return sorted(held, key=lambda k: (k.kind != "ConfigMap", k))

    def move_ordered(self, removal: Removal) -> str:
        """Why the new owner applies a moved object before the old one can prune it, or "": the
        old Kustomization `dependsOn` the new one (directly or through others), every step reading
        the same source, at base and at head. kustomize-controller then applies nothing of the
        old one until the new one has applied the source's current revision (its
        checkDependencies), which relabels the object as the new owner's, and the old one's prune
        skips what another owner's labels name (fluxcd/pkg ssa)."""
        new = removal.moved_to
        if new is None or removal.ks_gone:
            return ""
        for revision in (self.base, self.head):
            if not _depends(revision, removal.ks, new):
                return ""
        return f"{removal.ks} dependsOn {new} (same source), so {new} applies it first"

    def removal_finding(self, rule: str, severity: Severity, removal: Removal, message: str, hint: str) -> Finding:
        details = {
            "object": removal.key.id,
            "kustomization": str(removal.ks),
            "cluster": removal.ks.cluster,
            "fate": removal.fate,
            "cause": removal.details.get("cause", ""),
        }
        if removal.moved_to:
            details["moved_to"] = str(removal.moved_to)
        return Finding(rule, severity, removal.file or ".", removal.line, message + self.where(removal.ks), hint,
                       details=details)

    def invariant_findings(self, rule: str, severity: Severity,
                           violations: Callable[[ClusterObjects, ClusterObjects], Iterator[Violation]]) -> Iterator[Finding]:
        return self.platform_invariant_findings(rule, severity, lambda objects, previous, _: violations(objects, previous))

    def platform_invariant_findings(self, rule: str, severity: Severity,
                                    violations: PlatformViolations) -> Iterator[Finding]:
        """invariant_findings for rules that depend on what the cluster runs (by fact)."""
        helm = {label: self.helm.applied(label) for label in ("base", "head")}  # what changed releases render
        for root, built in sorted(self.clusters("head").items()):
            objects = {**helm["head"].get(root.cluster, {}), **built}  # a Kustomization's object wins, as in Flux
            previous = {**helm["base"].get(root.cluster, {}), **self.clusters("base").get(root, {})}
            platform = self.platform(root.cluster)
            before = {(v.key, v.message) for v in violations(previous, {}, platform)}
            seen: set[tuple[ObjKey, str]] = set()
            for v in violations(objects, previous, platform):
                if (v.key, v.message) in seen:
                    continue
                seen.add((v.key, v.message))
                file, line = self.locator.invariant_anchor(v.ks, v.key, v.field)
                if not file:
                    root_node = self.head.nodes[root]
                    file, line = root_node.file or ".", root_node.line
                old = (v.key, v.message) in before
                yield Finding(
                    rule, Severity.WARNING if old else (v.severity or severity), file, line,
                    v.message + (" (already so at base: not caused by this change)" if old else "") + self.where(root),
                    v.hint,
                    details={"object": v.key.id, "kustomization": str(v.ks), "cluster": root.cluster},
                )


def _depends(revision: Revision, old: KsRef, new: KsRef) -> bool:
    """Whether `old` waits for `new` at this revision: a `dependsOn` path from old to new in which
    every Kustomization reads old's source (only then does kustomize-controller wait for the
    revision, not just for Ready). At base `new` may not exist yet: old then waits for it."""
    start = revision.nodes.get(old)
    if start is None:
        return False
    source = start.ks.source
    seen, todo = {old}, [start.ks]
    while todo:
        ks = todo.pop()
        for namespace, name in ks.depends_on:
            ref = KsRef(old.cluster, namespace, name)
            node = revision.nodes.get(ref)
            if ref == new and (node is None and revision.label == "base" or node is not None and node.ks.source == source):
                return True
            if node is None or ref in seen or node.ks.source != source:
                continue
            seen.add(ref)
            todo.append(node.ks)
    return False
