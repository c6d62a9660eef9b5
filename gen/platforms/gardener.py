"""Gardener shoots: only `kube-system/coredns-custom` is ours; Gardener owns the Corefile and Deployment.

As on AKS, keys ending `.server` (top-level server blocks) and `.override` (lines in the default
block) are imported from coredns-custom, mounted at /etc/coredns/custom. The differences
Gardener documents (gardener/gardener docs/usage/networking/custom-dns-config.md):

- CoreDNS listens on 8053, not 53 (`.:8053`; the kube-dns Service maps 53 to it), so a
  `.server` block must bind `zone:8053` to answer the pods' ordinary queries;
- `import custom/*.override` comes *before* Gardener's `forward . /etc/resolv.conf` (AKS:
  after), so `upstream:` works as on k3s: an override forward with `next` into Gardener's own;
- with NodeLocalDNS before Gardener v1.128, non-cluster queries bypass CoreDNS unless the Shoot
  sets `spec.systemComponents.nodeLocalDNS.disableForwardToUpstreamDNS: true`; from v1.128
  node-local-dns imports `custom/*.override` itself (nodelocaldns/resources.go at v1.128.0);
- upstreams must listen on 53 (the shoot's network policies), other ports need extra policies.
Gardener's resource manager reconciles the coredns ConfigMap and Deployment, so the repo merges
its keys into coredns-custom with `ssa: Merge` and never prunes it.
"""

from __future__ import annotations

from importlib import resources
from typing import Any, Mapping

from gen.errors import Problem
from gen.platforms.base import (
    COREDNS_CONFIGMAP,
    COREDNS_DEPLOYMENT,
    CUSTOM_CONFIGMAP,
    OVERRIDE_IMPORT,
    PLATFORM_ANNOTATION,
    SERVER_IMPORT,
    At,
    ImportPoint,
    ObjectRef,
)
from gen.platforms.minors import MinorTable
from gen.corefile.facts import UPSTREAM_NAME
from gen.platforms.custom import check_override_names, configmap, upstream_override
from gen.rendered import Obj
from gen.spec import Values
from gen.versions import Version, parse_version

NAME = "gardener"
DEFAULT_RELEASE = "1.34"
OWNS: tuple[ObjectRef, ...] = (CUSTOM_CONFIGMAP,)
NEVER_TOUCH: tuple[ObjectRef, ...] = (COREDNS_CONFIGMAP, COREDNS_DEPLOYMENT)
ORDER_HINT = "forward specific domains with a `zones:` entry instead"
NEXT_HINT = "set `corednsVersion:` to the CoreDNS your Gardener deploys (≥ 1.11.4), or drop the fallback"
SERVER_PORT = 8053  # Gardener's CoreDNS binds 8053 (custom-dns-config.md)
ANNOTATIONS = {"kustomize.toolkit.fluxcd.io/ssa": "Merge", "kustomize.toolkit.fluxcd.io/prune": "disabled", PLATFORM_ANNOTATION: NAME}
# The shoot's Kubernetes minor releases accepted (for the schemas). The CoreDNS image follows
# the Gardener release, not the shoot's Kubernetes (imagevector/containers.yaml has no
# targetVersion for coredns; v1.14.7 at gardener/gardener@0024ecf6), and Gardener's own release
# is not in the values: `corednsVersion:` is required.
KUBERNETES = ((1, 31), (1, 32), (1, 33), (1, 34), (1, 35), (1, 36))
_STOCK = "data/gardener/gardener-coredns-b312835d.Corefile"


TABLE = MinorTable({minor: None for minor in KUBERNETES})  # CoreDNS follows the Gardener release; see KUBERNETES

# The release facts are the table's (one implementation for every Kubernetes-minor platform).
known_releases = TABLE.known
releases = TABLE.releases
coredns_for = TABLE.coredns_for
stand_in = TABLE.stand_in
newest_release = TABLE.newest_release


def kubernetes_version(values: Values) -> str | None:
    return str(values.platform_version)


def check_version(values: Values) -> tuple[str, str] | None:
    return TABLE.unknown(values.platform_version, "Kubernetes version for a Gardener shoot",
                         "use the shoot's spec.kubernetes.version, one of ")


def stock_corefile(release: Version, cluster_domain: str) -> str | None:
    """The Corefile Gardener's coredns component writes (since v1.97 with its search-path
    `rewrite stop` block), for `cluster_domain`: the component puts the domain in as text and,
    inside the rewrite regexes, quoted as Go's regexp.QuoteMeta does (`.` as `\\.`)."""
    text = resources.files("gen").joinpath(_STOCK).read_text(encoding="utf-8")
    if cluster_domain != "cluster.local":
        text = text.replace(r"cluster\.local", cluster_domain.replace(".", r"\.")).replace("cluster.local", cluster_domain)
    return text


def stock_of(release: str, cluster_domain: str) -> str | None:
    return stock_corefile(parse_version(release), cluster_domain)


def import_points(release: Version) -> tuple[ImportPoint, ...]:
    return (SERVER_IMPORT, OVERRIDE_IMPORT)


def check(values: Values, data: Mapping[str, Any], at: At) -> list[Problem]:
    problems = []
    if "corednsVersion" not in data:
        problems.append(at([], "missing key 'corednsVersion'", "add the CoreDNS tag your Gardener deploys: "
                           "`kubectl -n kube-system get deploy coredns -o jsonpath='{..image}'` (e.g. 1.14.7)",
                           key="corednsVersion"))
    if values.upstream is not None and values.upstream.fallback != ("/etc/resolv.conf",):
        problems.append(at(["upstream", "fallback"], "on Gardener the fallback is Gardener's own `forward . /etc/resolv.conf`",
                           "remove `fallback:` (Gardener's forward is the second stanza)"))
    for key in ("autoscaling", "alert"):
        if key in data:
            problems.append(at([key], f"'{key}' does not apply to Gardener",
                               "remove it (Gardener manages the coredns Deployment and its autoscaling)", key=key))
    problems += check_override_names(values, at, reserved={UPSTREAM_NAME} if values.upstream else set())
    return problems


def main_corefile(values: Values) -> str:
    return str(stock_corefile(parse_version(values.platform_version), values.cluster_domain))


def manifests(values: Values) -> list[tuple[str, Obj]]:
    return [("coredns-custom-configmap.yaml", configmap(values, ANNOTATIONS, upstream_override(values), port=SERVER_PORT))]


def documents(values: Values) -> list[tuple[str, str]]:
    return []
