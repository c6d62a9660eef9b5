"""Which HelmReleases a change upgrades, both renders, and what each upgrade deletes.

A HelmRelease applied at both revisions whose inputs differ is upgraded by helm-controller: its
spec, the chart source's spec, the chart (a folder's blobs, or the version asked for), and the
ConfigMaps and Secrets its `valuesFrom` reads. Both revisions are rendered with Helm's own library
(client.py); Helm's upgrade deletes each object of the old manifest the new one does not hold,
unless the old object says `helm.sh/resource-policy: keep`. A HelmRelease whose inputs are the
same at both is not rendered (nothing reaches helm-controller); one new at head is an install,
which deletes nothing; one gone at head is the prune rules' (helmrelease-pruned).

A value the guard cannot read (a SOPS-encrypted Secret, one made out of band) is rendered as two
placeholders no chart holds (tools/helper/helm): when both name the same objects, the verdict
cannot depend on it; when not, or when a whole values document is unreadable, the release is not
judged. Renders are cached by everything they depend on, sealed (gen/cachefile.py).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from gen.cachefile import seal, write_entry
from gen.guard.flux.fluxspec import normalize_path
from gen.guard.helm.client import HelmHelper, TookTooLong
from gen.guard.helm.names import release_name, release_namespace
from gen.guard.helm.sources import ChartLocation, locate, mirrored
from gen.guard.helm.store import ChartStore, Unavailable, chart_folders, open_sealed
from gen.guard.model import HELM_GROUP, KsRef, ObjKey, Revision, apply_skipped
from gen.guard.repo.revision import Tree

Label = Literal["base", "head"]
KEEP = "helm.sh/resource-policy"
# the spec fields a render reads (tools/helper/helm): an interval, a timeout, remediation or
# dependsOn changes no manifest, so it upgrades nothing away
_RENDERED = frozenset({"chart", "chartRef", "values", "valuesFrom", "postRenderers", "commonMetadata", "releaseName",
                       "targetNamespace", "install"})
# kinds Helm applies without a namespace; every other kind lands in the release's namespace
CLUSTER_SCOPED = frozenset({
    "Namespace", "Node", "PersistentVolume", "StorageClass", "CSIDriver", "CSINode", "VolumeAttachment",
    "ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition", "APIService", "PriorityClass",
    "RuntimeClass", "IngressClass", "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration",
    "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding", "MutatingAdmissionPolicy",
    "MutatingAdmissionPolicyBinding", "PodSecurityPolicy", "ClusterIssuer", "ClusterSecretStore",
    "ClusterPolicy", "GatewayClass", "ClusterExternalSecret", "FlowSchema", "PriorityLevelConfiguration",
})


@dataclass(frozen=True)
class Rendered:
    """One revision's manifest of a release: its objects by key, and the chart it came from."""

    objects: dict[ObjKey, dict[str, Any]]
    chart: str
    version: str
    origin: str


@dataclass(frozen=True)
class Upgrade:
    """A HelmRelease whose inputs change, rendered at both revisions."""

    cluster: str
    key: ObjKey  # the HelmRelease
    ks: KsRef  # the Kustomization applying it at head
    base: Rendered
    head: Rendered
    changed: tuple[str, ...]  # which inputs differ, in words
    values_paths: tuple[str, ...]  # the leaf paths of spec.values that differ
    suspended: bool = False  # suspended at head: helm-controller upgrades it once it is resumed

    def deleted(self) -> list[tuple[ObjKey, dict[str, Any]]]:
        """What Helm's upgrade deletes: each object of base's manifest that head's does not hold,
        unless base's says `helm.sh/resource-policy: keep`."""
        return [(k, obj) for k, obj in sorted(self.base.objects.items())
                if k not in self.head.objects and _annotation(obj, KEEP) != "keep"]


@dataclass(frozen=True)
class NotRendered:
    """A HelmRelease whose inputs change but which could not be rendered: what it deletes is unknown."""

    cluster: str
    key: ObjKey
    ks: KsRef
    changed: tuple[str, ...]
    why: str
    fix: str


@dataclass(frozen=True)
class HelmLayer:
    """What the change does through helm-controller, for the rules and the Corefile view."""

    upgrades: tuple[Upgrade, ...] = ()
    not_rendered: tuple[NotRendered, ...] = ()
    rejected: int = 0  # cache entries that did not verify
    # (cluster, HelmRelease) -> its head manifest, for every release rendered (Corefile view)
    head_objects: dict[str, dict[ObjKey, dict[str, Any]]] = field(default_factory=dict)
    base_objects: dict[str, dict[ObjKey, dict[str, Any]]] = field(default_factory=dict)

    def applied(self, label: Label) -> dict[str, dict[ObjKey, tuple[KsRef, dict[str, Any]]]]:
        """Per cluster, what the renders of `label` apply, each with the Kustomization applying its
        HelmRelease (what the DNS invariants judge beside the builds' objects)."""
        out: dict[str, dict[ObjKey, tuple[KsRef, dict[str, Any]]]] = {}
        for upgrade in self.upgrades:
            rendered = upgrade.head if label == "head" else upgrade.base
            held = out.setdefault(upgrade.cluster, {})
            for key, obj in rendered.objects.items():
                held.setdefault(key, (upgrade.ks, obj))
        return out

    def judged(self) -> set[tuple[str, ObjKey]]:
        """(cluster, HelmRelease) of every release this layer looked at, rendered or not."""
        return {(u.cluster, u.key) for u in self.upgrades} | {(n.cluster, n.key) for n in self.not_rendered}


@dataclass(frozen=True)
class _Release:
    ks: KsRef
    obj: dict[str, Any]
    location: ChartLocation
    values: tuple[dict[str, Any], ...]  # the ConfigMaps and Secrets its valuesFrom reads, as applied
    unreadable: tuple[tuple[str, str, str], ...]  # (kind, namespace, name) it reads but the guard cannot
    inputs: dict[str, str]  # input name -> digest


def judge(revisions: Mapping[str, Revision], trees: Mapping[str, Tree], touched: set[str], changed_files: frozenset[str],
          mirrors: Mapping[str, str], cache: Path | None, scratch: Path) -> HelmLayer:
    """Render every HelmRelease whose inputs differ between base and head. In a cluster the change
    touches (one of its builds changed) any input may differ; in the others only a chart folder of
    this repository that no build reads, so only such releases are looked at there."""
    found = {label: _releases(revisions[label], trees[label], touched, changed_files, mirrors)
             for label in ("base", "head")}
    # a HelmRelease kustomize-controller does not update (reconcile: disabled, ssa: Ignore or
    # IfNotPresent) keeps its old spec in the cluster: helm-controller never sees the change
    # a release whose name or namespaces change is uninstalled, not upgraded (helmrelease-retargeted's)
    pairs = sorted(pair for pair in set(found["base"]) & set(found["head"])
                   if apply_skipped(found["base"][pair].obj, found["head"][pair].obj) is None
                   and _target(pair[1], found["base"][pair].obj) == _target(pair[1], found["head"][pair].obj))
    changed = {pair: _changed(found["base"][pair], found["head"][pair]) for pair in pairs}
    pairs = [pair for pair in pairs if changed[pair]]
    if not pairs:
        return HelmLayer()
    helper = HelmHelper()
    store = ChartStore(helper, cache, scratch)
    renders = _Renders(helper, cache)
    upgrades: list[Upgrade] = []
    failed: list[NotRendered] = []
    head_objects: dict[str, dict[ObjKey, dict[str, Any]]] = {}
    base_objects: dict[str, dict[ObjKey, dict[str, Any]]] = {}
    try:
        for cluster, key in pairs:
            base, head = found["base"][(cluster, key)], found["head"][(cluster, key)]
            try:
                rendered = {label: renders.render(store, rel, trees[label], key)
                            for label, rel in (("base", base), ("head", head))}
            except Unavailable as gone:
                failed.append(NotRendered(cluster, key, head.ks, changed[(cluster, key)], gone.why, gone.fix))
                continue
            head_objects.setdefault(cluster, {}).update(rendered["head"].objects)
            base_objects.setdefault(cluster, {}).update(rendered["base"].objects)
            upgrades.append(Upgrade(cluster, key, head.ks, rendered["base"], rendered["head"], changed[(cluster, key)],
                                    tuple(_value_paths(_spec(base.obj).get("values"), _spec(head.obj).get("values"))),
                                    suspended=_spec(head.obj).get("suspend") is True))
    finally:
        helper.close()
    return HelmLayer(tuple(upgrades), tuple(failed), store.rejected + renders.rejected, head_objects, base_objects)


def _target(key: ObjKey, obj: dict[str, Any]) -> tuple[str, str, str]:
    """The release helm-controller upgrades: its name, namespace and storage namespace."""
    return (release_name(key, obj), release_namespace(key, obj),
            str(_spec(obj).get("storageNamespace") or "") or key.namespace)


def _spec(obj: dict[str, Any]) -> dict[str, Any]:
    spec = obj.get("spec")
    return spec if isinstance(spec, dict) else {}


def _releases(rev: Revision, tree: Tree, touched: set[str], changed_files: frozenset[str],
              mirrors: Mapping[str, str]) -> dict[tuple[str, ObjKey], _Release]:
    """(cluster, HelmRelease) -> what its render depends on, for each HelmRelease a judged build of
    a touched cluster applies (the first Kustomization applying it wins, as in Flux)."""
    ours = {node.ks.source for node in rev.nodes.values() if not node.external}
    out: dict[tuple[str, ObjKey], _Release] = {}
    for root, objects in sorted(_with_releases(rev, tree, touched, changed_files).items()):
        for key, (ks, obj) in sorted(objects.items()):
            if key.kind != "HelmRelease" or key.group != HELM_GROUP or (root.cluster, key) in out:
                continue
            location = mirrored(locate(obj, key, objects), mirrors)
            folders = [f for f, _ in chart_folders(tree, location.folder)] if location.kind == "git" else []
            if root.cluster not in touched and not any(_under(changed_files, f) for f in folders):
                continue  # nothing a build reads changed here: only a chart folder can
            if location.kind == "git" and location.git not in ours:
                location = ChartLocation("none", why=f"its chart is in GitRepository {location.git[1]}/{location.git[2]}, "
                                                     "another repository's")
            values, unreadable = _values_sources(obj, key, objects)
            inputs = {"values": _digest(_spec(obj).get("values")),
                      "spec": _digest({k: v for k, v in _spec(obj).items() if k in _RENDERED and k != "values"}),
                      "name": _digest([key.namespace, key.name]),
                      "chart source": _digest(asdict(location)),
                      "valuesFrom": _digest([values, unreadable])}
            if location.kind == "git":
                inputs["chart files"] = _digest([[p, tree.blobs.get(p, "")] for f in folders for p in tree.walk(f)])
            out[(root.cluster, key)] = _Release(ks, obj, location, tuple(values), tuple(unreadable), inputs)
    return out


def _with_releases(rev: Revision, tree: Tree, touched: set[str],
                   changed_files: frozenset[str]) -> dict[KsRef, dict[ObjKey, tuple[KsRef, dict[str, Any]]]]:
    """Revision.clusters() of only the roots whose builds apply a HelmRelease the change may reach
    (in a touched cluster, or one whose chart may be a folder the change touches): a fleet the
    change does not reach costs one pass over its object keys."""
    roots = {node.root for node in rev.nodes.values()
             if node.build.error is None and any(k.kind == "HelmRelease" and k.group == HELM_GROUP
                                                 and (node.root.cluster in touched or _may_read_files(obj, tree, changed_files))
                                                 for k, obj in node.build.objects.items())}
    return rev.clusters(roots)


def _may_read_files(obj: Any, tree: Tree, changed_files: frozenset[str]) -> bool:
    """Whether a HelmRelease's chart may be a folder of this repository the change touches: a
    `spec.chart.spec` of a GitRepository whose folder (or a `file://` dependency of it) holds a
    changed file, or a chartRef HelmChart (its folder is known only from the cluster's objects)."""
    spec: dict[str, Any] = obj["spec"] if isinstance(obj, dict) and isinstance(obj.get("spec"), dict) else {}
    ref = spec.get("chartRef")
    if isinstance(ref, dict):
        return ref.get("kind") == "HelmChart" and bool(changed_files)
    template = (spec.get("chart") or {}).get("spec") if isinstance(spec.get("chart"), dict) else None
    if not isinstance(template, dict) or (template.get("sourceRef") or {}).get("kind") != "GitRepository":
        return False
    return any(_under(changed_files, f) for f, _ in chart_folders(tree, normalize_path(template.get("chart"))))


def _under(paths: frozenset[str], folder: str) -> bool:
    prefix = folder + "/" if folder else ""
    return any(p.startswith(prefix) for p in paths)


def _values_sources(obj: dict[str, Any], key: ObjKey,
                    objects: Mapping[ObjKey, tuple[Any, dict[str, Any]]]) -> tuple[list[dict[str, Any]], list[tuple[str, str, str]]]:
    """The ConfigMaps and Secrets `obj`'s valuesFrom names, as the cluster's builds apply them, and
    those it names that the guard cannot read (a SOPS-encrypted Secret, one no build applies)."""
    refs = _spec(obj).get("valuesFrom")
    values: list[dict[str, Any]] = []
    unreadable: list[tuple[str, str, str]] = []
    for ref in refs if isinstance(refs, list) else []:
        if not isinstance(ref, dict) or ref.get("kind") not in ("ConfigMap", "Secret"):
            continue
        kind, name = str(ref["kind"]), str(ref.get("name") or "")
        found = objects.get(ObjKey(key.namespace, name, "", kind))
        if found is None or "sops" in found[1]:
            if (kind, key.namespace, name) not in unreadable:
                unreadable.append((kind, key.namespace, name))
        elif found[1] not in values:
            values.append(found[1])
    return values, unreadable


def _changed(base: _Release, head: _Release) -> tuple[str, ...]:
    return tuple(name for name in sorted(set(base.inputs) | set(head.inputs))
                 if base.inputs.get(name) != head.inputs.get(name))


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()


def _value_paths(base: Any, head: Any, prefix: str = "") -> list[str]:
    """The leaf paths at which two values trees differ (`configMaps.config.enabled`), sorted."""
    if isinstance(base, dict) and isinstance(head, dict):
        out: list[str] = []
        for k in sorted(set(base) | set(head), key=str):
            out += _value_paths(base.get(k), head.get(k), f"{prefix}.{k}" if prefix else str(k))
        return out
    return [] if base == head else [prefix or "(all values)"]


def _kept_only(answer: dict[str, Any], namespace: str) -> dict[str, Any]:
    """What a verdict needs of a render, and nothing else: each object's identity and its resource
    policy, and whole only the kube-system objects but Secrets (the Corefile a ConfigMap holds for
    the reviewer's view, what the DNS invariants read). A render may hold what a chart makes of
    Secrets' values; none of that is kept in the cache or read further."""
    objects = []
    for obj in answer.get("objects") or []:
        if not isinstance(obj, dict):
            continue
        meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
        assert isinstance(meta, dict)
        if obj.get("kind") != "Secret" and (meta.get("namespace") or namespace) == "kube-system":
            objects.append(obj)
            continue
        slim_meta: dict[str, Any] = {k: meta[k] for k in ("name", "namespace") if k in meta}
        if _annotation(obj, KEEP):
            slim_meta["annotations"] = {KEEP: _annotation(obj, KEEP)}
        objects.append({"apiVersion": obj.get("apiVersion"), "kind": obj.get("kind"), "metadata": slim_meta})
    return {**answer, "objects": objects}


def _annotation(obj: dict[str, Any], name: str) -> str:
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    ann = meta.get("annotations") if isinstance(meta, dict) and isinstance(meta.get("annotations"), dict) else {}
    return str(ann.get(name) or "") if isinstance(ann, dict) else ""


class _Renders:
    """The helper's renders, cached by everything a render depends on."""

    def __init__(self, helper: HelmHelper, cache: Path | None) -> None:
        self.helper = helper
        self.folder = cache / "helm" if cache is not None else None
        self.rejected = 0

    def render(self, store: ChartStore, rel: _Release, tree: Tree, key: ObjKey) -> Rendered:
        """Raises:
            Unavailable: the chart cannot be had, Helm refused to render it, or an unreadable
            value reaches what the upgrade deletes."""
        chart = store.get(rel.location, tree if rel.location.kind == "git" else None)
        request = {"op": "render", "chart": str(chart.path), "release": rel.obj, "upgrade": True,
                   "release_name": release_name(key, rel.obj), "objects": list(rel.values),
                   "unreadable": [{"kind": k, "namespace": ns, "name": n} for k, ns, n in rel.unreadable]}
        cache_key = _digest([self.helper.identity, chart.digest, {k: v for k, v in request.items() if k != "chart"}])
        answer = self._kept(cache_key)
        if answer is None:
            try:
                answer = _kept_only(self.helper.ask(request), release_namespace(key, rel.obj))
            except TookTooLong as slow:
                raise Unavailable(f"Helm's render of it from {rel.location.origin()} ran too long: {slow}",
                                  "render it with `helm template` to see why") from slow
            if not answer.get("error") and self.folder is not None:
                write_entry(self.folder / f"{cache_key}.sealed",
                            seal([(cache_key, json.dumps(answer, sort_keys=True).encode())]))
        if answer.get("error"):
            error = str(answer["error"])
            fix = ("make the value readable to the guard (a ConfigMap in the repository), or use it through a "
                   "valuesFrom targetPath" if error.startswith("not judged:") else
                   "render it with `helm template` to see why; the guard renders as helm-controller will")
            raise Unavailable(f"Helm could not render it from {rel.location.origin()}: {error[:400]}", fix)
        if answer.get("not_judged"):
            names = ", ".join(f"{k} {ns}/{n}" for k, ns, n in rel.unreadable)
            raise Unavailable(f"a value read from {names}, which the guard cannot read, decides "
                              f"{answer['not_judged']}", "make that value readable to the guard, or keep it out of "
                                                         "object names")
        namespace = release_namespace(key, rel.obj)
        objects: dict[ObjKey, dict[str, Any]] = {}
        for obj in answer.get("objects") or []:
            if not isinstance(obj, dict):
                continue
            found = ObjKey.of(obj)
            if not found.namespace and found.kind not in CLUSTER_SCOPED:
                found = found._replace(namespace=namespace)
            objects[found] = obj
        return Rendered(objects, str(answer.get("chart") or ""), str(answer.get("version") or ""),
                        rel.location.origin())

    def _kept(self, key: str) -> dict[str, Any] | None:
        if self.folder is None:
            return None
        content, rejected = open_sealed(self.folder / f"{key}.sealed", key)
        self.rejected += rejected
        if content is None:
            return None
        try:
            answer = json.loads(content)
        except ValueError:
            self.rejected += 1
            return None
        return answer if isinstance(answer, dict) else None
