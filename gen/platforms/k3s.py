"""k3s: k3s owns the coredns Deployment and ConfigMap and re-applies them on every restart.

So the repo never touches them. It adds objects k3s does not own: an HPA that holds the replica
floor through `/scale` (README.md, the k3s row), a PodDisruptionBudget so a drain cannot take both replicas,
`coredns-custom` (k3s mounts it optionally and imports its `*.server` / `*.override` keys), and
optionally a PrometheusRule for the gap an HPA leaves open (no alert at one replica).
"""

from __future__ import annotations

import functools
import re
from importlib import resources
from typing import Any, Mapping

from gen import yamlio
from gen.errors import Problem
from gen.platforms import newer
from gen.platforms import releases as releases_table
from gen.platforms.base import (
    COREDNS_CONFIGMAP,
    COREDNS_DEPLOYMENT,
    CUSTOM_CONFIGMAP,
    At,
    ImportPoint,
    ObjectRef,
)
from gen.corefile.facts import UPSTREAM_NAME
from gen.platforms.stock import imports_after_root_forward
from gen.platforms.custom import check_override_names, configmap, upstream_override
from gen.rendered import Obj
from gen.spec import Values
from gen.versions import Version, parse_version

NAME = "k3s"
DEFAULT_RELEASE = "v1.34.9+k3s1"
OWNS: tuple[ObjectRef, ...] = (CUSTOM_CONFIGMAP, ObjectRef("HorizontalPodAutoscaler", "kube-system", "coredns"),
                               ObjectRef("PodDisruptionBudget", "kube-system", "coredns"))
NEVER_TOUCH: tuple[ObjectRef, ...] = (COREDNS_CONFIGMAP, COREDNS_DEPLOYMENT)
ALERT = ObjectRef("PrometheusRule", "kube-system", "coredns-replicas")  # rendered with `alert.enabled`

# k3s release -> (CoreDNS, the vendored manifest with its Corefile): gen/platforms/releases.py,
# rebuilt by scripts/refresh-platform-data from manifests/coredns.yaml at each release's commit.
RELEASES = releases_table.K3S
HEADS = releases_table.HEADS["k3s"]
# Where the bundled Corefile imports coredns-custom (absolute paths: the vendored k3s manifests in gen/data/k3s/).
SERVER = ImportPoint("/etc/coredns/custom/*.server", ".server", False)
OVERRIDE = ImportPoint("/etc/coredns/custom/*.override", ".override", True)

OLD_ORDER = "k3s-v1.32.9+k3s1-coredns.yaml"  # the layout before k3s PR #12980 (releases before 1.32 have it too)
SERVER_PORT = 53
NEXT_HINT = "upgrade k3s to a release with CoreDNS ≥ 1.11.4, or set `corednsVersion:` to the CoreDNS it really runs"
ANNOTATIONS = {"kustomize.toolkit.fluxcd.io/prune": "disabled"}
ORDER_HINT = ("upgrade k3s to v1.32.10+, v1.33.6+, v1.34.2+ or v1.35+, which import *.override before their own forward "
              "(k3s PR #12980); until then forward specific domains with `zones:`")


def known_releases() -> str:
    """Per minor, the first and the last release the tables hold (every patch between is a row)."""
    spans = []
    for minor in sorted({parse_version(r)[:2] for r in RELEASES}):
        mine = sorted((r for r in RELEASES if parse_version(r)[:2] == minor), key=_order)
        spans.append(f"{mine[0]} … {mine[-1]}" if len(mine) > 1 else mine[0])
    return ", ".join(spans)


def releases() -> tuple[Version, ...]:
    return tuple(sorted({parse_version(r) for r in RELEASES}))


def _order(release: str) -> tuple[int, ...]:
    """Release order: the Kubernetes patch, then the k3s revision (+k3s2 is a later build)."""
    revision = re.search(r"\+k3s(\d+)$", release)
    return (*parse_version(release), int(revision[1]) if revision else 0)


def _v(release: str) -> str:
    return release if release.startswith("v") else "v" + release


def stand_in(release: str) -> str | None:
    """The release itself when the tables hold it; a later patch or k3s revision takes the
    newest release of its minor below it."""
    if _v(release) in RELEASES:
        return release
    return newer.stand_in(_v(release), RELEASES, _order) or newer.newer_minor_base(_v(release), RELEASES, HEADS)


def newest_release() -> str:
    return max(RELEASES, key=_order)


def coredns_for(release: str) -> Version | None:
    chosen = stand_in(release)
    return RELEASES[_v(chosen)][0] if chosen else None


@functools.lru_cache(maxsize=None)
def _imports_override_late(manifest: str) -> bool | None:
    """Whether the manifest's Corefile imports *.override after its own root forward (so an
    override's `forward .` is never reached: k3s issue #12979, fixed by PR #12980)."""
    return imports_after_root_forward(_stock(manifest), {OVERRIDE.pattern}, manifest)


def _manifest(release: str) -> str | None:
    """The vendored manifest whose Corefile `release` (as written) ships; None where no release
    of its minor at or below it is in the tables."""
    chosen = stand_in(release)
    if chosen is not None:
        return RELEASES[_v(chosen)][1]
    return OLD_ORDER if parse_version(release)[:2] < (1, 32) else None


def import_points(release: Version) -> tuple[ImportPoint, ...]:
    return (SERVER, OVERRIDE)


def kubernetes_version(values: Values) -> str | None:
    return str(values.platform_version)


def check_version(values: Values) -> tuple[str, str] | None:
    v = parse_version(values.platform_version)
    if v.major != 1 or not 25 <= v.minor <= 40 or "k3s" not in values.platform_version:
        return (f"unknown k3s version {values.platform_version}", "write the k3s release as `k3s --version` prints it, e.g. v1.34.9+k3s1")
    if _manifest(values.platform_version) is None:
        return (f"no k3s release of {v.major}.{v.minor} at or below {values.platform_version} is in coredns-gen's tables, "
                "so its Corefile is not known", f"use one of {known_releases()}")
    return None


def check(values: Values, data: Mapping[str, Any], at: At) -> list[Problem]:
    problems = []
    manifest = _manifest(values.platform_version)
    order = None if manifest is None else _imports_override_late(manifest)
    order_problem = {True: f"k3s {values.platform_version} imports *.override after its own forward, so this forward is never reached",
                     None: f"k3s {values.platform_version}'s override order is not in coredns-gen's tables"}
    if values.upstream is not None:
        if order is not False:
            problems.append(at(["upstream"], order_problem[order], ORDER_HINT, key="upstream"))
        if values.upstream.fallback != ("/etc/resolv.conf",):
            problems.append(at(["upstream", "fallback"], "on k3s the fallback is k3s's own `forward . /etc/resolv.conf`",
                               "remove `fallback:` (k3s's forward is the second stanza)"))
    if values.autoscaling.max_replicas < values.autoscaling.min_replicas:
        problems.append(at(["autoscaling", "maxReplicas"], f"maxReplicas {values.autoscaling.max_replicas} is below minReplicas "
                           f"{values.autoscaling.min_replicas}", "set maxReplicas ≥ minReplicas"))
    problems += check_override_names(values, at, reserved={UPSTREAM_NAME} if values.upstream else set())
    return problems


@functools.lru_cache(maxsize=None)
def _stock(name: str) -> str:
    text = resources.files("gen").joinpath(f"data/k3s/{name}").read_text(encoding="utf-8")
    # k3s substitutes `%{CLUSTER_DNS}%`-style tokens before applying; as bare YAML values they
    # are not valid YAML, so quote the ones that stand as a whole value.
    text = re.sub(r"(?<=[:-] )(%\{[A-Z_]+\}%)(?=\s*$)", r"'\1'", text, flags=re.M)
    for doc in yamlio.load_all_safe(text):
        if doc.get("kind") == "ConfigMap" and doc["metadata"]["name"] == "coredns":
            return str(doc["data"]["Corefile"])
    raise RuntimeError(f"no coredns ConfigMap in {name}")


def stock_corefile(release: Version, cluster_domain: str) -> str | None:
    """k3s's bundled Corefile for that release (its +k3s1 build); None where the tables hold
    no release of its minor at or below it."""
    return stock_of(f"v{release}+k3s1", cluster_domain)


def stock_of(release: str, cluster_domain: str) -> str | None:
    manifest = _manifest(release)
    return None if manifest is None else _stock(manifest).replace("%{CLUSTER_DOMAIN}%", cluster_domain)


def main_corefile(values: Values) -> str:
    """The bundled Corefile of the release (check_version and the checks refused the others)."""
    text = stock_of(values.platform_version, values.cluster_domain)
    if text is None:
        raise RuntimeError(f"no vendored k3s manifest for {values.platform_version}")
    return text


def _hpa(values: Values) -> Obj:
    a = values.autoscaling
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "coredns", "namespace": "kube-system"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "coredns"},
            "minReplicas": a.min_replicas,
            "maxReplicas": a.max_replicas,
            # A floor-holder, not an autoscaler: autoscaling/v2 needs one metric to be valid.
            "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": a.cpu_utilization}}}],
            "behavior": {
                "scaleDown": {"stabilizationWindowSeconds": a.scale_down_window_seconds},
                "scaleUp": {"stabilizationWindowSeconds": 0},
            },
        },
    }


def _pdb() -> Obj:
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": "coredns", "namespace": "kube-system"},
        "spec": {"minAvailable": 1, "selector": {"matchLabels": {"k8s-app": "kube-dns"}}},
    }


def _rule(values: Values) -> Obj:
    floor = values.autoscaling.min_replicas
    available = 'kube_deployment_status_replicas_available{namespace="kube-system",deployment="coredns"}'
    inert = ('kube_horizontalpodautoscaler_status_condition{namespace="kube-system",horizontalpodautoscaler="coredns",'
             'condition="ScalingActive",status="false"}')
    labels = {"severity": values.alert.severity}
    return {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "PrometheusRule",
        "metadata": {"name": ALERT.name, "namespace": ALERT.namespace, **({"labels": dict(values.alert.labels)} if values.alert.labels else {})},
        "spec": {"groups": [{"name": "coredns-availability", "rules": [
            {"alert": "CoreDNSReplicasBelowFloor", "expr": f"(max({available}) or on() vector(0)) < {floor}",
             "for": values.alert.for_, "labels": labels,
             "annotations": {"summary": f"CoreDNS has fewer than {floor} available replicas",
                             "description": "One node drain away from a cluster-wide DNS outage. Check `kubectl -n kube-system describe hpa coredns`."}},
            {"alert": "CoreDNSAutoscalerInactive", "expr": f"max({inert}) == 1",
             "for": values.alert.for_, "labels": labels,
             "annotations": {"summary": "The coredns HPA cannot read its metric and no longer holds the replica floor",
                             "description": "ScalingActive=False (FailedGetResourceMetric): check metrics-server."}},
        ]}]},
    }


def manifests(values: Values) -> list[tuple[str, Obj]]:
    out = [
        ("coredns-custom-configmap.yaml", configmap(values, ANNOTATIONS, upstream_override(values))),
        ("coredns-hpa.yaml", _hpa(values)),
        ("coredns-pdb.yaml", _pdb()),
    ]
    if values.alert.enabled:
        out.append(("coredns-prometheusrule.yaml", _rule(values)))
    return out


def documents(values: Values) -> list[tuple[str, str]]:
    return []
