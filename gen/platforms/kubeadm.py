"""kubeadm and kind: the repo owns kube-system/coredns and wires coredns-custom into it (docs/lint.md).

kubeadm writes the coredns ConfigMap and Deployment once at `kubeadm init` and rewrites them
only in `kubeadm upgrade`, whose CoreDNS phase migrates the Corefile to the new CoreDNS
(coredns/corefile-migration) and re-creates the Deployment. So between upgrades nobody but Flux
maintains them: the render keeps kubeadm's own Corefile for the Kubernetes release, replaces its
forward with the forward pair, appends the extra zones as server blocks (as on Talos) and adds the
top-level `import custom/*.server`; coredns-custom is rendered empty for other writers (ZoneRoute). The Deployment
gets only what the contract needs, applied as a partial object (server-side apply merges the
volume and the mount by name and mount path, as `kubectl patch --type strategic` does): the
whole-ConfigMap volume (`optional: true`, never `subPath`) and the read-only mount at
/etc/coredns/custom. `reload` stays in the block, so a changed key loads without a restart.
"""

from __future__ import annotations

import functools
import re
from importlib import resources
from typing import Any, Mapping

from gen.errors import Problem
from gen.platforms.base import (
    COREDNS_CONFIGMAP,
    CUSTOM_CONFIGMAP,
    SERVER_IMPORT,
    At,
    ImportPoint,
    PLATFORM_ANNOTATION,
    ObjectRef,
)
from gen.platforms import releases as releases_table
from gen.platforms.minors import MinorTable
from gen.platforms.custom import check_override_names, configmap
from gen.platforms.stock_edit import with_forward_pair
from gen.rendered import Obj
from gen.spec import Values
from gen.versions import Version, parse_version

NAME = "kubeadm"
DEFAULT_RELEASE = "v1.35.0"
OWNS: tuple[ObjectRef, ...] = (COREDNS_CONFIGMAP, CUSTOM_CONFIGMAP)
NEVER_TOUCH: tuple[ObjectRef, ...] = ()  # the Deployment gets a partial apply (volume and mount), never a copy
ORDER_HINT = "forward specific domains with a `zones:` entry instead"
SERVER_PORT = 53
NEXT_HINT = ("set `corednsVersion:` to the CoreDNS image you run (kubeadm ClusterConfiguration `dns.imageTag`, "
             "≥ 1.11.4), or upgrade to Kubernetes 1.33 or later")
VERSION_ANNOTATION = "coredns-gen.io/kubernetes-version"  # the guard warns when its minor changes in a change
CUSTOM_VOLUME = "custom-config-volume"
CUSTOM_MOUNT = "/etc/coredns/custom"

# Kubernetes minor ("v1.35") or exact patch ("v1.31.0") -> (CoreDNS kubeadm deploys, the Corefile it
# writes): gen/platforms/releases.py, rebuilt by scripts/refresh-platform-data from the recorded
# sources (constants.go CoreDNSVersion as CHANGELOGs and coredns/deployment state it).
ROWS = releases_table.KUBEADM
COREDNS: dict[tuple[int, int], Version] = {parse_version(r)[:2]: v for r, (v, _) in ROWS.items() if r.count(".") == 1}
PATCHES: dict[Version, tuple[Version, str]] = {parse_version(r): row for r, row in ROWS.items() if r.count(".") == 2}
_STOCK = {parse_version(r)[:2]: name for r, (_, name) in ROWS.items() if r.count(".") == 1}


TABLE = MinorTable(COREDNS, "v", ".x")

# The release facts are the table's (one implementation for every Kubernetes-minor platform).
known_releases = TABLE.known
releases = TABLE.releases
stand_in = TABLE.stand_in
newest_release = TABLE.newest_release


def coredns_for(release: str) -> Version | None:
    """The patch's own row where one exists (v1.31.0 kept CoreDNS 1.11.1), else its minor's."""
    row = PATCHES.get(parse_version(release))
    return row[0] if row else TABLE.coredns_for(release)


def kubernetes_version(values: Values) -> str | None:
    return str(values.platform_version)


def check_version(values: Values) -> tuple[str, str] | None:
    return TABLE.unknown(values.platform_version, "Kubernetes version for kubeadm",
                         "use the Kubernetes release kubeadm installed, one of ")


@functools.lru_cache(maxsize=None)
def _stock(name: str) -> str:
    return resources.files("gen").joinpath(f"data/kubeadm/{name}").read_text(encoding="utf-8")


def stock_corefile(release: Version, cluster_domain: str) -> str | None:
    """The Corefile `kubeadm init` writes for that release (`{{ .DNSDomain }}` = cluster_domain)."""
    minor = (release.major, release.minor)
    if minor not in COREDNS:
        return None
    row = PATCHES.get(release)
    text = _stock(row[1] if row else _STOCK[minor])
    if cluster_domain != "cluster.local":
        text = re.sub(r"(?<=[ \t])cluster\.local(?=\s)", cluster_domain, text)
    return text


def stock_of(release: str, cluster_domain: str) -> str | None:
    return stock_corefile(parse_version(release), cluster_domain)


def import_points(release: Version) -> tuple[ImportPoint, ...]:
    return (SERVER_IMPORT,)


def check(values: Values, data: Mapping[str, Any], at: At) -> list[Problem]:
    problems = []
    for key, why in (("overrides", "kubeadm's Corefile imports only custom/*.server; forward a zone with `zones:`"),
                     ("autoscaling", "kubeadm deploys coredns with 2 replicas; the repo only adds the custom mount"),
                     ("alert", "the replica alert is for k3s, whose Deployment starts at 1 replica")):
        if key in data:
            problems.append(at([key], f"'{key}' does not apply to kubeadm", f"remove it ({why})", key=key))
    problems += check_override_names(values, at, reserved=set())
    return problems


def main_corefile(values: Values) -> str:
    """kubeadm's Corefile, forward replaced when `upstream:` is set, then the top-level import."""
    v = parse_version(values.platform_version)
    text = stock_corefile(v, values.cluster_domain)
    if text is None:  # check_version refused it already
        raise RuntimeError(f"no vendored kubeadm Corefile for Kubernetes {v.major}.{v.minor}")
    # zones are server blocks of the Corefile we own (as on Talos); coredns-custom stays for others
    text = with_forward_pair(text, values, f"kubeadm {v.major}.{v.minor}", "   ")
    return text + f"import {SERVER_IMPORT.pattern}\n"


def _deployment_patch() -> Obj:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": "coredns",
            "namespace": "kube-system",
            # Merge: Flux applies only these fields and keeps kubeadm's; never pruned, since
            # deleting the file must not delete cluster DNS.
            "annotations": {"kustomize.toolkit.fluxcd.io/prune": "disabled", "kustomize.toolkit.fluxcd.io/ssa": "Merge",
                            PLATFORM_ANNOTATION: NAME},
        },
        "spec": {
            "selector": {"matchLabels": {"k8s-app": "kube-dns"}},  # kubeadm's own (immutable) selector
            "template": {"spec": {
                "containers": [{"name": "coredns", "volumeMounts": [
                    {"name": CUSTOM_VOLUME, "mountPath": CUSTOM_MOUNT, "readOnly": True}]}],
                "volumes": [{"name": CUSTOM_VOLUME, "configMap": {"name": "coredns-custom", "optional": True}}],
            }},
        },
    }


def manifests(values: Values) -> list[tuple[str, Obj]]:
    main: Obj = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": "coredns",
            "namespace": "kube-system",
            "annotations": {"kustomize.toolkit.fluxcd.io/prune": "disabled", VERSION_ANNOTATION: values.platform_version},
        },
        "data": {"Corefile": main_corefile(values)},
    }
    # Empty and merged: it exists for the contract (point 1) and for other writers' `*.server` keys.
    custom = configmap(values._replace(zones=()), {"kustomize.toolkit.fluxcd.io/ssa": "Merge",
                                                    "kustomize.toolkit.fluxcd.io/prune": "disabled"})
    return [("coredns-configmap.yaml", main), ("coredns-custom-configmap.yaml", custom),
            ("coredns-deployment-patch.yaml", _deployment_patch())]


def documents(values: Values) -> list[tuple[str, str]]:
    return []
