"""The data the guard reasons about: object identities, Flux Kustomizations, builds, revisions.

Objects are identified the way Flux's inventory does (`<namespace>_<name>_<group>_<kind>`), so a
rename, a namespace move or a kind change is a different object: Flux deletes the old one.
"""

from __future__ import annotations

import json
import posixpath
from dataclasses import dataclass, field
from typing import Any, NamedTuple

FLUX_GROUP = "kustomize.toolkit.fluxcd.io"
FLUX_VERSIONS = ("v1", "v1beta2", "v1beta1")
HELM_GROUP = "helm.toolkit.fluxcd.io"  # a HelmRelease's API group

# kustomize-controller's selectors (v1.10.1, internal/controller/kustomization_controller.go),
# built from its api/v1 constants (`<GroupVersion.Group>/prune` and DisabledValue, IgnoreValue,
# IfNotPresentValue): what deleteObjects leaves in place (DeleteOptions.Exclusions), what
# Apply skips (ApplyOptions.ExclusionSelector) and what it creates but never patches
# (ApplyOptions.IfNotPresentSelector). fluxcd/pkg/ssa matches them with utils.AnyInMetadata.
# tools/markercheck holds them, and tests/data/flux-markers/cases.json, against that code.
ORPHANING = {
    f"{FLUX_GROUP}/prune": "disabled",
    f"{FLUX_GROUP}/reconcile": "disabled",
    f"{FLUX_GROUP}/ssa": "Ignore",
}
APPLY_EXCLUDED = {f"{FLUX_GROUP}/reconcile": "disabled", f"{FLUX_GROUP}/ssa": "Ignore"}
APPLY_IF_NOT_PRESENT = {f"{FLUX_GROUP}/ssa": "IfNotPresent"}


class ObjKey(NamedTuple):
    """One Kubernetes object as Flux's inventory names it. A named tuple, not a dataclass: a
    fleet's run hashes, compares and sorts millions of them, and a tuple does that in C."""

    namespace: str
    name: str
    group: str
    kind: str

    @property
    def id(self) -> str:
        return f"{self.namespace}_{self.name}_{self.group}_{self.kind}"

    @property
    def ref(self) -> str:
        """Human form: `ConfigMap kube-system/coredns`."""
        where = f"{self.namespace}/{self.name}" if self.namespace else self.name
        return f"{self.kind} {where}"

    @classmethod
    def of(cls, obj: dict[str, Any]) -> ObjKey:
        api = str(obj.get("apiVersion") or "")
        group = api.rsplit("/", 1)[0] if "/" in api else ""
        meta = obj.get("metadata") or {}
        return cls(str(meta.get("namespace") or ""), str(meta.get("name") or ""), group, str(obj.get("kind") or ""))

    @classmethod
    def parse(cls, text: str) -> ObjKey | None:
        """Parse a Flux inventory id; names never contain `_`, so splitting is exact."""
        parts = text.split("_")
        if len(parts) != 4 or not parts[1] or not parts[3]:
            return None
        return cls(*parts)


class KsRef(NamedTuple):
    """A Flux Kustomization in one cluster: every cluster of a fleet has its own
    `flux-system/flux-system`, so the cluster (its root's file) is part of the identity. A named
    tuple for the same reason as ObjKey."""

    cluster: str
    namespace: str
    name: str

    def __str__(self) -> str:
        return f"{self.namespace}/{self.name}"

    def same_object(self, other: KsRef) -> bool:
        return (self.namespace, self.name) == (other.namespace, other.name)

    def in_cluster(self, cluster: str) -> KsRef:
        return KsRef(cluster, self.namespace, self.name)


@dataclass(frozen=True)
class FluxKs:
    """The parts of a Flux Kustomization that decide what it builds and what it prunes."""

    ref: KsRef
    path: str  # repo-relative posix, "" for the repository root
    prune: bool
    source: tuple[str, str, str]  # kind, namespace, name of spec.sourceRef
    target_namespace: str | None = None
    # Fields of spec that change the build (JSON-able, for fingerprints and wrappers).
    transforms: tuple[tuple[str, str], ...] = ()
    substitute: tuple[tuple[str, str], ...] | None = None  # None: no postBuild
    substitute_from: tuple[tuple[str, str, bool], ...] = ()  # (kind, name, optional) of postBuild.substituteFrom
    annotations: tuple[tuple[str, str], ...] = ()
    suspended: bool = False
    deletion_policy: str = "MirrorPrune"  # spec.deletionPolicy: what its finalizer does when it is deleted
    # spec.dependsOn as (namespace, name): kustomize-controller applies nothing until each is Ready and,
    # when it reads the same source, has applied the source's current revision (its checkDependencies)
    depends_on: tuple[tuple[str, str], ...] = ()
    # The object as Flux's generator and postBuild read it (JSON): what the helper is sent.
    build_spec: str = ""

    def finalizer_keeps(self) -> str:
        """Why deleting this Kustomization leaves what it applied in place, or "" when its finalizer
        deletes it: kustomize-controller's finalizerShouldDeleteResources (never while suspended;
        `deletionPolicy` MirrorPrune, the default, follows `prune`; Delete and WaitForTermination
        always delete; Orphan never)."""
        if self.suspended:
            return "is suspended, so its finalizer deletes none of its objects"
        if self.deletion_policy == "MirrorPrune":
            return "" if self.prune else "had prune: false, so its objects are orphaned"
        if self.deletion_policy in ("Delete", "WaitForTermination"):
            return ""
        return f"has deletionPolicy: {self.deletion_policy}, so its objects are orphaned"

    def build_id(self) -> str:
        """Everything of the object that Flux's build reads: its generator and postBuild."""
        return self.build_spec or repr((self.path, self.target_namespace, self.transforms, self.substitute,
                                        self.substitute_from))

    def components(self) -> tuple[str, ...]:
        """`spec.components`, as folders of the artifact (relative to `spec.path`, like Flux)."""
        for key, raw in self.transforms:
            if key == "components":
                value = json.loads(raw)
                return tuple(posixpath.normpath(posixpath.join(self.path, str(c))) for c in value
                             if isinstance(c, str)) if isinstance(value, list) else ()
        return ()


@dataclass
class Build:
    """What one Flux Kustomization produces at one revision (or why it could not be built)."""

    objects: dict[ObjKey, dict[str, Any]] = field(default_factory=dict)
    error: str | None = None
    inputs: tuple[str, ...] = ()  # repo-relative files the build read (kustomize says which)
    fingerprint: str | None = None  # the build's identity: its key and what it saw
    seen: tuple[tuple[str, str, str], ...] = ()  # what it saw of its artifact (gen/guard/build/seen.py)
    # Flux Operator objects it applies whose output is not judged: (kind, namespace/name, why)
    # (gen/guard/flux/resourcesets.py; what the others generate is in `objects`)
    operator: tuple[tuple[str, str, str], ...] = ()
    # the objects a ResourceSet it applies generates: that ResourceSet's `namespace/name` (the Flux
    # Operator deletes what leaves its output, whatever this Kustomization's prune)
    generated: dict[ObjKey, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Node:
    """One Flux Kustomization reached at one revision, with its build and where it came from."""

    ks: FluxKs
    build: Build
    parent: KsRef | None  # the Kustomization whose build produced it; None for a root
    root: KsRef
    file: str | None = None  # where the object is written, when known
    line: int = 1
    children: list[KsRef] = field(default_factory=list)
    external: bool = False  # its source is not this repository: not built, not judged
    why_external: str = ""  # for a not-judged one: why its source is not this repository
    view: str = "git"  # the artifact its spec.path is read in (gen/guard/flux/sources.py view ids)
    unresolved: tuple[str, ...] = ()  # substituteFrom sources that could not be read, and why


@dataclass(frozen=True)
class Revision:
    """Every Flux Kustomization reached from the roots at one revision."""

    label: str  # "base" or "head"
    ref: str
    nodes: dict[KsRef, Node] = field(default_factory=dict)
    roots: list[KsRef] = field(default_factory=list)

    def clusters(self, only: set[KsRef] | None = None) -> dict[KsRef, dict[ObjKey, tuple[KsRef, dict[str, Any]]]]:
        """Every object each cluster (one root's tree; of the roots `only` names, when given) gets,
        with the Kustomization applying it."""
        out: dict[KsRef, dict[ObjKey, tuple[KsRef, dict[str, Any]]]] = {
            root: {} for root in self.roots if only is None or root in only}
        for ref in sorted(self.nodes):
            node = self.nodes[ref]
            if node.build.error is None and node.root in out:
                objects = out[node.root]
                for key, obj in node.build.objects.items():
                    objects.setdefault(key, (ref, obj))
        return out

    def owners(self) -> dict[tuple[str, ObjKey], KsRef]:
        """(cluster, object) -> the Kustomization that applies it."""
        out: dict[tuple[str, ObjKey], KsRef] = {}
        for ref in sorted(self.nodes):
            for key in self.nodes[ref].build.objects:
                out.setdefault((ref.cluster, key), ref)
        return out


def metadata_flag(obj: dict[str, Any], key: str) -> str | None:
    """An annotation or label value (Flux honours both for its own markers)."""
    meta = obj.get("metadata") or {}
    for section in ("annotations", "labels"):
        value = (meta.get(section) or {}).get(key)
        if value is not None:
            return str(value)
    return None


def any_in_metadata(obj: dict[str, Any], selector: dict[str, str]) -> str | None:
    """`key: value` of the first of `selector`'s entries the object carries, as fluxcd/pkg/ssa's
    utils.AnyInMetadata matches them: a label or an annotation, each on its own, a non-empty
    value equal to the selector's case-insensitively. None: no entry matches."""
    meta = obj.get("metadata") or {}
    for key, value in selector.items():
        for section in ("annotations", "labels"):
            found = (meta.get(section) or {}).get(key)
            if found is not None and str(found) != "" and str(found).casefold() == value.casefold():
                return f"{key}: {found}"
    return None


def apply_skipped(existing: dict[str, Any], desired: dict[str, Any]) -> str | None:
    """`key: value` of the marker that makes kustomize-controller keep the in-cluster object
    `existing` instead of applying `desired` (fluxcd/pkg/ssa shouldSkipApply): APPLY_EXCLUDED on
    either, APPLY_IF_NOT_PRESENT on `desired`. None: the new spec is applied (`prune: disabled`
    only stops deletion, not apply)."""
    return (any_in_metadata(desired, APPLY_EXCLUDED) or any_in_metadata(existing, APPLY_EXCLUDED)
            or any_in_metadata(desired, APPLY_IF_NOT_PRESENT))


def orphaning_marker(obj: dict[str, Any]) -> str | None:
    """`key: value` of the first Flux marker that makes Flux leave this object in place."""
    return any_in_metadata(obj, ORPHANING)
