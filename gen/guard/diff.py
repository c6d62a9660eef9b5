"""What Flux would do with the objects in place when head replaces base: delete, orphan, keep.

kustomize-controller garbage-collects every object of its last inventory that the new build
lacks, when `spec.prune` is true and the object carries no `prune: disabled` (or
`reconcile: disabled`, `ssa: Ignore`) marker. A Kustomization that leaves git is deleted by its
parent (if that one prunes), and its finalizer then deletes its whole inventory (if it pruned).
A ConfigMap whose name changes only by kustomize's generator hash is replaced by design, and so is
one whose generator switches from a hash name to its stable name (`disableNameSuffixHash`): the
same generator writes the new object and kustomize points every reference in the build at it. A
stable name becoming a hash name is not: the stable name is an identity that what is outside the
build mounts by name (AKS's CoreDNS mounts kube-system/coredns-custom, gen/data/aks), and Flux
prunes it like any object that leaves the build.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from gen.guard.build.inputs import Views
from gen.guard.flux.resourcesets import GROUP as OPERATOR_GROUP
from gen.guard.flux.resourcesets import RSET
from gen.guard.model import FLUX_GROUP, HELM_GROUP, FluxKs, KsRef, Node, ObjKey, Revision, metadata_flag, orphaning_marker

DELETED, ORPHANED, MOVED = "deleted", "orphaned", "moved"
# The Flux Operator's markers (its api/v1 common_types.go): a ResourceSet with reconcile disabled
# neither collects nor uninstalls; an object with prune disabled is excluded from both. Flux's own
# kustomize.toolkit.fluxcd.io markers mean nothing to it.
OPERATOR_PRUNE, OPERATOR_RECONCILE = f"{OPERATOR_GROUP}/prune", f"{OPERATOR_GROUP}/reconcile"
_GENERATED = re.compile(r"^(?P<stem>.+)-[2456789bcdfghkmt]{10}$")  # kustomize's hash alphabet
# (label, Kustomization) -> (kind, name) of the generators its build reads at that revision
Generators = Callable[[str, KsRef], set[tuple[str, str]]]


@dataclass(frozen=True)
class Removal:
    """One object in place at base that head's builds no longer produce from the same place
    (anchored once, by gen/guard/locate.py Locator.anchored: `file`, `line`, `hint`, the cause)."""

    key: ObjKey
    obj: dict[str, Any]
    ks: KsRef
    fate: str
    reason: str  # why Flux deletes or orphans it, one sentence
    ks_gone: bool = False
    moved_to: KsRef | None = None
    file: str = ""
    line: int = 1
    hint: str = ""
    details: dict[str, str] = field(default_factory=dict)


@dataclass
class BuildIssue:
    ks: KsRef
    base_error: str | None
    head_error: str | None


def move_deletes(removal: Removal) -> bool:
    """A ConfigMap or (unsuspended) HelmRelease whose old Kustomization leaves git with prune on:
    the parent deletes the old Kustomization, whose finalizer deletes every object still
    labelled as its own (fluxcd/pkg ssa skips only objects whose live labels name another
    owner), and nothing orders that after the new Kustomization's first apply. For a ConfigMap
    that is DNS config gone; for a HelmRelease, `helm uninstall` of the whole release."""
    if removal.fate != MOVED or not removal.ks_gone:
        return False
    key = removal.key
    if key.kind == "HelmRelease" and key.group == "helm.toolkit.fluxcd.io":
        return (removal.obj.get("spec") or {}).get("suspend") is not True  # helm-controller skips the uninstall
    return key.kind == "ConfigMap" and not key.group


def generators_of(views: Views, revisions: Mapping[str, Revision]) -> Generators:
    """The generator names each Kustomization's build reads, from the input resolution."""
    def names(label: str, ref: KsRef) -> set[tuple[str, str]]:
        node = revisions[label].nodes.get(ref)
        if node is None or not node.view:
            return set()
        return views.resolver(label, node.view).for_ks(node.ks.path, node.ks.components()).generators
    return names


def generated_stem(name: str) -> str:
    """The name a generator was given, before kustomize appended its hash (if it did)."""
    return _stem(name)[0]


def _stem(name: str) -> tuple[str, bool]:
    match = _GENERATED.match(name)
    return (match.group("stem"), True) if match else (name, False)


def names_generator(stem: str, name: str) -> bool:
    """`stem` is what generator `name` writes, allowing a namePrefix/nameSuffix around it."""
    return stem == name or stem.endswith("-" + name) or stem.startswith(name + "-") or f"-{name}-" in stem


def _churn(key: ObjKey, head_keys: set[ObjKey], same_generator: Callable[[str, str], bool]) -> bool:
    """Whether head replaces this generated object by its successor from the same generator:
    a new hash (`name-<hash>` -> `name-<other hash>`), or hash name -> stable name. A stable
    name -> hash name is not (hashed_successor): nothing outside the build follows the rename."""
    if key.kind not in ("ConfigMap", "Secret") or key.group:
        return False
    stem, hashed = _stem(key.name)
    if not hashed:
        return False
    for other in head_keys:
        if (other.kind, other.group, other.namespace) != (key.kind, key.group, key.namespace) or other == key:
            continue
        other_stem, other_hashed = _stem(other.name)
        if other_stem != stem:
            continue
        if other_hashed or same_generator(key.kind, stem):
            return True
    return False


def hashed_successor(key: ObjKey, head_keys: set[ObjKey]) -> str | None:
    """The hash name head's build gives a ConfigMap or Secret that had a stable name (its
    generator lost `disableNameSuffixHash`), or None."""
    if key.kind not in ("ConfigMap", "Secret") or key.group or _stem(key.name)[1]:
        return None
    for other in sorted(head_keys):
        if (other.kind, other.group, other.namespace) == (key.kind, key.group, key.namespace) and \
                _stem(other.name) == (key.name, True):
            return other.name
    return None


def _ks_fate(ref: KsRef, base: Revision, head: Revision,
             head_owner: dict[tuple[str, ObjKey], KsRef]) -> tuple[str, str] | None:
    """What happens to a Kustomization object that head no longer produces (None: not judged);
    `head_owner` is head.owners()."""
    node = base.nodes[ref]
    marker = orphaning_marker({"metadata": {"annotations": dict(node.ks.annotations)}})
    if marker:
        return ORPHANED, f"Kustomization {ref} carries {marker}, so Flux leaves it and its objects"
    parent = node.parent
    if parent is None:
        return ORPHANED, f"root Kustomization {ref} was applied outside git"
    key = ObjKey(ref.namespace, ref.name, FLUX_GROUP, "Kustomization")
    pnode = base.nodes.get(parent)
    made_by = pnode.build.generated.get(key) if pnode is not None else None
    if pnode is not None and made_by is not None:  # a ResourceSet made it: the Flux Operator deletes it, not the prune
        held_parent = head.nodes.get(parent)
        if held_parent is not None and held_parent.build.error:
            return None
        outcome = _ks_fate(parent, base, head, head_owner) if held_parent is None else None
        if held_parent is None and outcome is None:
            return None
        fate, why = _generated_fate(key, pnode.build.objects.get(key) or {}, parent, made_by, pnode, held_parent, outcome,
                                    head, head_owner)
        return (fate, why) if fate in (DELETED, ORPHANED) else None
    held = head.nodes.get(parent)
    if held is not None and not held.external:
        if held.build.error:
            return None
        if held.ks.prune:
            return DELETED, f"Kustomization {ref} is no longer produced by {parent}, which prunes it"
        return ORPHANED, f"{parent} has prune: false, so Kustomization {ref} is orphaned, not deleted"
    if pnode is not None:
        return _ks_fate(parent, base, head, head_owner)
    return None


def compute_removals(base: Revision, head: Revision, inventory: dict[KsRef, set[ObjKey]] | None = None,
                     touched: set[str] | None = None,
                     generators: Generators | None = None) -> tuple[list[Removal], list[BuildIssue]]:
    """Judge every Kustomization of the clusters the change touches (all when `touched` is None).

    `generators` tells which generator names a build reads: a hash name -> stable name switch is
    a replacement only when a generator of that name is read at both revisions."""
    removals: list[Removal] = []
    issues: list[BuildIssue] = []
    head_owner = head.owners()
    for ref in sorted(base.nodes):
        bnode = base.nodes[ref]
        if bnode.external or (touched is not None and ref.cluster not in touched):
            continue
        hnode = head.nodes.get(ref)
        if hnode is not None and hnode.external:
            continue
        herror = hnode.build.error if hnode is not None else None
        if bnode.build.error or herror:
            issues.append(BuildIssue(ref, bnode.build.error, herror))
            continue
        in_place: dict[ObjKey, dict[str, Any]] = dict(bnode.build.objects)
        if inventory is not None and ref.in_cluster("") in inventory:
            in_place = {k: bnode.build.objects.get(k) or _stub(k) for k in inventory[ref.in_cluster("")]}
        if hnode is not None:
            head_keys = set(hnode.build.objects)
            gone = sorted(set(in_place) - head_keys)
            ks_gone, ks_outcome = False, None
        else:
            head_keys = set()
            gone = sorted(in_place)
            ks_gone, ks_outcome = True, _ks_fate(ref, base, head, head_owner)
            if ks_outcome is None:
                continue
        def same_generator(kind: str, stem: str, ref: KsRef = ref) -> bool:
            if generators is None:
                return False
            return all(any(k == kind and names_generator(stem, name) for k, name in generators(label, ref))
                       for label in ("base", "head"))

        for key in gone:
            if not ks_gone and _churn(key, head_keys, same_generator):
                continue
            obj = in_place[key]
            rset = bnode.build.generated.get(key)
            if rset is not None:  # the Flux Operator's to delete, not this Kustomization's
                fate, reason = _generated_fate(key, obj, ref, rset, bnode, hnode, ks_outcome, head, head_owner)
            else:
                fate, reason = _fate(key, obj, ref, bnode.ks, hnode.ks.prune if hnode else None,
                                     ks_outcome, head_owner)
            if fate is None:
                continue
            successor = None if ks_gone else hashed_successor(key, head_keys)
            if successor is not None:
                reason += (f"; its generator now names it {successor} (no disableNameSuffixHash), and what mounts "
                           f"{key.name} by name (a platform's CoreDNS) finds it gone")
            owner = head_owner.get((ref.cluster, key))
            removals.append(Removal(key, obj, ref, fate, reason, ks_gone=ks_gone,
                                    moved_to=owner if fate == MOVED else None))
    for ref in sorted(head.nodes):
        hnode = head.nodes[ref]
        if ref not in base.nodes and hnode.build.error and not hnode.external and \
                (touched is None or ref.cluster in touched):
            issues.append(BuildIssue(ref, _unknown_at_base(ref, base, head), hnode.build.error))
    return removals, issues


def _unknown_at_base(ref: KsRef, base: Revision, head: Revision) -> str | None:
    """Why a Kustomization absent at base may not be new: an ancestor did not build at base, so
    base never showed its children (it may have been in the cluster all along). None: it is new."""
    parent = head.nodes[ref].parent
    seen: set[KsRef] = set()
    while parent is not None and parent not in seen:
        seen.add(parent)
        held = base.nodes.get(parent)
        if held is not None and held.build.error:
            return f"its parent {parent} did not build at base, so whether it is new cannot be told"
        node = head.nodes.get(parent)
        parent = node.parent if node is not None else None
    return None


def _fate(key: ObjKey, obj: dict[str, Any], ref: KsRef, base_ks: FluxKs, head_prune: bool | None,
          ks_outcome: tuple[str, str] | None, head_owner: dict[tuple[str, ObjKey], KsRef]) -> tuple[str | None, str]:
    marker = orphaning_marker(obj)
    owner = head_owner.get((ref.cluster, key))
    moved = owner is not None and owner != ref
    if ks_outcome is not None:
        fate, reason = ks_outcome
        if fate == ORPHANED:
            return (None if moved else ORPHANED), reason
        kept = base_ks.finalizer_keeps()
        if kept:
            return (None if moved else ORPHANED), f"Kustomization {ref} is deleted but {kept}"
        lead = f"Kustomization {ref} leaves git and its finalizer deletes its inventory ({reason})"
    else:
        if head_prune is False:
            return (None if moved else ORPHANED), f"Kustomization {ref} has prune: false, so Flux orphans it"
        lead = f"it is no longer in the build of Kustomization {ref}, which has prune: true"
    if marker:
        return (None if moved else ORPHANED), f"{lead}, but the object carries {marker}, so Flux leaves it in place"
    if moved:
        return MOVED, f"{lead}; it is now built by {owner}, but Flux may delete it before that one re-creates it"
    return DELETED, lead


def _operator_disabled(rset: dict[str, Any]) -> bool:
    """The Flux Operator leaves a ResourceSet alone: `fluxcd.controlplane.io/reconcile: disabled`
    among its annotations (flux-operator api/v1 ResourceSet.IsDisabled reads no label)."""
    value = ((rset.get("metadata") or {}).get("annotations") or {}).get(OPERATOR_RECONCILE)
    return str(value or "").lower() == "disabled"


def _generated_fate(key: ObjKey, obj: dict[str, Any], ref: KsRef, rset: str, bnode: Node, hnode: Node | None,
                    ks_outcome: tuple[str, str] | None, head: Revision,
                    head_owner: dict[tuple[str, ObjKey], KsRef]) -> tuple[str | None, str]:
    """What happens to an object that ResourceSet `rset` (applied by `ref`) made and head no
    longer makes: the Flux Operator collects what leaves a ResourceSet's output, and uninstalls
    everything it made when the ResourceSet is deleted (flux-operator's resourceset_controller.go),
    whatever the prune of the Kustomization that applies it."""
    namespace, name = rset.split("/", 1)
    rkey = ObjKey(namespace, name, OPERATOR_GROUP, RSET)
    owner = head_owner.get((ref.cluster, key))
    moved = owner is not None and owner != ref
    robj = bnode.build.objects.get(rkey) or {}
    if _operator_disabled(robj):
        return (None if moved else ORPHANED), (f"ResourceSet {rset} carries {OPERATOR_RECONCILE}: disabled, so the Flux "
                                               "Operator leaves what it made in place")
    held_by = head_owner.get((ref.cluster, rkey))
    if held_by is not None:
        held = head.nodes[held_by].build.objects.get(rkey) or {}
        if _operator_disabled(held):
            return (None if moved else ORPHANED), (f"ResourceSet {rset} now carries {OPERATOR_RECONCILE}: disabled, so "
                                                   "the Flux Operator leaves what it made in place")
        lead = (f"ResourceSet {rset} (applied by Kustomization {held_by}) no longer makes it, and the Flux Operator "
                "deletes what leaves a ResourceSet's output, whatever the Kustomization's prune")
    else:
        rfate, rreason = _fate(rkey, robj, ref, bnode.ks, hnode.ks.prune if hnode else None, ks_outcome, head_owner)
        if rfate != DELETED:  # the ResourceSet stays in the cluster (orphaned) and keeps what it made
            return (None if moved else ORPHANED), f"ResourceSet {rset} stays in the cluster ({rreason}) and keeps what it made"
        lead = f"ResourceSet {rset} is deleted ({rreason}) and the Flux Operator deletes everything it made"
    if (metadata_flag(obj, OPERATOR_PRUNE) or "").lower() == "disabled":
        return (None if moved else ORPHANED), f"{lead}, but the object carries {OPERATOR_PRUNE}: disabled, so it is left in place"
    if moved:
        return MOVED, f"{lead}; it is now applied by {owner}, but may be deleted before that one re-creates it"
    return DELETED, lead


def _stub(key: ObjKey) -> dict[str, Any]:
    api = f"{key.group}/v1" if key.group else "v1"
    meta: dict[str, Any] = {"name": key.name}
    if key.namespace:
        meta["namespace"] = key.namespace
    return {"apiVersion": api, "kind": key.kind, "metadata": meta}


NOTE = ("adding `kustomize.toolkit.fluxcd.io/prune: disabled` in this same change protects nothing "
        "(the annotation must already be on the object in the cluster)")


def safe_way(removal_id: str) -> str:
    return (f"if the removal is deliberate, first merge `kustomize.toolkit.fluxcd.io/prune: disabled` on the "
            f"object and let Flux apply it, then remove it; or allow it with --allow {removal_id}; {NOTE}")



def is_helmrelease(removal: Removal) -> bool:
    return removal.key.kind == "HelmRelease" and removal.key.group == HELM_GROUP
