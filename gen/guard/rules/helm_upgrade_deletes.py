"""helm-controller's upgrade of a changed HelmRelease deletes what the new manifest no longer holds.

Helm's upgrade deletes every object of the old release's manifest that the new manifest does not
hold, unless the old object is annotated `helm.sh/resource-policy: keep`. The guard renders both
revisions of each HelmRelease whose inputs change (gen/guard/helm/release_upgrades.py: Helm's own library,
values merged as helm-controller merges them, postRenderers applied) and judges what the upgrade
deletes as it judges Flux's prunes: a ConfigMap or a HelmRelease is refused, and so is a Namespace
holding one (Kubernetes deletes what is in it, as namespace-pruned counts) or the CRD of
HelmReleases (every one is deleted, its release uninstalled), any other kind is a warning. A ConfigMap that moves out of the release into a Kustomization of the same cluster is
refused too: Helm deletes it whether kustomize-controller applied it before or not (one deletes
what the other applies). A HelmRelease suspended at head is a warning (the upgrade comes when it
is resumed); one kustomize-controller does not update (`reconcile: disabled`, `ssa: Ignore`, or
`ssa: IfNotPresent` at head) is not upgraded at all.

PASS: HelmRelease media/qbittorrent's values change an image tag: both manifests hold the same objects.
FAIL: its values drop `configMaps.config` -> error at the HelmRelease: ConfigMap media/qbittorrent-config
      is deleted by the upgrade.
"""

from __future__ import annotations

from collections.abc import Iterator

from gen.finding import Finding, Severity
from gen.guard.change import IMMORTAL, Change
from gen.guard.helm.release_upgrades import Upgrade
from gen.guard.model import HELM_GROUP, ObjKey

ID = "helm-upgrade-deletes"
SEVERITY = Severity.ERROR
_REFUSED = {("", "ConfigMap"), (HELM_GROUP, "HelmRelease")}
_SHOWN = 3
_CRD_GROUP = "apiextensions.k8s.io"


def check(change: Change) -> Iterator[Finding]:
    kustomized = _kustomize_applied(change)
    for upgrade in change.helm.upgrades:
        deleted = upgrade.deleted()
        if not deleted:
            continue
        file, line = change.locator.invariant_anchor(upgrade.ks, upgrade.key, "spec")
        chart = (f"chart {upgrade.base.chart} {upgrade.base.version}"
                 + (f" -> {upgrade.head.chart} {upgrade.head.version}"
                    if (upgrade.head.chart, upgrade.head.version) != (upgrade.base.chart, upgrade.base.version) else ""))
        paths = upgrade.values_paths
        why = f"its {', '.join(upgrade.changed)} changed" + (
            f" (values at {', '.join(paths[:_SHOWN])}{' …' if len(paths) > _SHOWN else ''})" if paths else "")
        for key, _ in deleted:
            inside = _held(change, upgrade, key)
            refused = (key.group, key.kind) in _REFUSED or bool(inside)
            moved = key in kustomized.get(upgrade.cluster, set())
            message = (f"helm-controller's upgrade of {upgrade.key.ref} ({chart}) "
                       f"{'will delete, once it is resumed (it is suspended),' if upgrade.suspended else 'deletes'} "
                       f"{key.ref}: the head render no longer holds it; {why}")
            if inside:
                message += ((". Kubernetes then deletes every object in it: " if key.kind == "Namespace" else
                            ". Kubernetes then deletes every HelmRelease, and helm-controller uninstalls each release: ")
                            + ", ".join(k.ref for k in inside[:_SHOWN])
                            + (f" (+{len(inside) - _SHOWN} more)" if len(inside) > _SHOWN else ""))
            if moved:
                message += (". A Kustomization of this cluster applies it at head, and Helm deletes it after or "
                            "before kustomize-controller applies it: both own it")
            yield Finding(
                ID, SEVERITY if refused and not upgrade.suspended else Severity.WARNING, file or ".", line,
                message + change.where(upgrade.ks),
                (f"keep {key.ref} in the release (its values or chart), or annotate it `helm.sh/resource-policy: keep` "
                 "in the release first (a chart value or a postRenderers patch) and move it in a later change; "
                 f"if its loss is intended, --allow {key.id}"),
                details={"object": key.id, "helmrelease": upgrade.key.id, "cluster": upgrade.cluster,
                         "kustomization": str(upgrade.ks), "chart": chart, "values": ", ".join(paths),
                         "moved_to_kustomization": "yes" if moved else ""})


def _held(change: Change, upgrade: Upgrade, key: ObjKey) -> list[ObjKey]:
    """What Kubernetes deletes with a Namespace the upgrade deletes (as namespace-pruned counts
    them): the ConfigMaps and HelmReleases the cluster's builds apply in it, and the ConfigMaps of
    the release's own base render there; with the CustomResourceDefinition of HelmReleases (a
    chart making Flux's CRDs in its templates), every HelmRelease of the cluster: each is deleted
    and its release uninstalled (helm-controller's finalizer). [] for any other kind."""
    if (key.group, key.kind, key.name) == (_CRD_GROUP, "CustomResourceDefinition", f"helmreleases.{HELM_GROUP}"):
        return sorted(k for root, objects in change.clusters("base").items() if root.cluster == upgrade.cluster
                      for k, (_, obj) in objects.items()
                      if k.kind == "HelmRelease" and k.group == HELM_GROUP and (obj.get("spec") or {}).get("suspend") is not True)
    if key.kind != "Namespace" or key.group or key.name in IMMORTAL:
        return []
    held = change.held_in_namespace(upgrade.cluster, key.name)
    rendered = [k for k in upgrade.base.objects if k.kind == "ConfigMap" and not k.group and k.namespace == key.name]
    return sorted(set(held) | set(rendered), key=lambda k: (k.kind != "ConfigMap", k))


def _kustomize_applied(change: Change) -> dict[str, set[ObjKey]]:
    """Per cluster, the ConfigMaps the head's Kustomizations apply."""
    out: dict[str, set[ObjKey]] = {}
    for root, objects in change.clusters("head").items():
        out.setdefault(root.cluster, set()).update(k for k in objects if k.kind == "ConfigMap" and not k.group)
    return out
