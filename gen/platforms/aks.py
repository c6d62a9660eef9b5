"""AKS: only `kube-system/coredns-custom` is ours; Microsoft owns the main Corefile.

AKS imports `custom/*.override` *after* its own `forward . /etc/resolv.conf`, so a root
`forward .` override is ignored (or, before CoreDNS 1.9.4, rejected). Other writers (for example
a controller's `zoneroute.server`) share the ConfigMap, so Flux applies with `ssa: Merge`
(keeps fields it does not own) and never prunes it.
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
    SERVER_IMPORT,
    At,
    ImportPoint,
    ObjectRef,
)
from gen.platforms import releases as releases_table
from gen.platforms.minors import MinorTable
from gen.platforms.custom import check_override_names, configmap
from gen.rendered import Obj
from gen.spec import Values
from gen.versions import Version, parse_version

NAME = "aks"
DEFAULT_RELEASE = "1.34"
OWNS: tuple[ObjectRef, ...] = (CUSTOM_CONFIGMAP,)
NEVER_TOUCH: tuple[ObjectRef, ...] = (COREDNS_CONFIGMAP, COREDNS_DEPLOYMENT)

# AKS Kubernetes minor -> (CoreDNS, the Corefile AKS writes): gen/platforms/releases.py, rebuilt by
# scripts/refresh-platform-data from the supported-versions page and the AKS changelog.
ROWS = {parse_version(r)[:2]: row for r, row in releases_table.AKS.items()}
COREDNS: dict[tuple[int, int], Version] = {minor: v for minor, (v, _) in ROWS.items()}

ORDER_HINT = "forward specific domains with a `zones:` entry instead"
SERVER_PORT = 53
NEXT_HINT = "set `corednsVersion:` to the CoreDNS AKS runs (≥ 1.11.4, AKS 1.33 and later), or drop the zone's fallback"
ANNOTATIONS = {
    "kustomize.toolkit.fluxcd.io/ssa": "Merge",
    "kustomize.toolkit.fluxcd.io/prune": "disabled",
}


TABLE = MinorTable(COREDNS)

# The release facts are the table's (one implementation for every Kubernetes-minor platform).
known_releases = TABLE.known
releases = TABLE.releases
coredns_for = TABLE.coredns_for
stand_in = TABLE.stand_in
newest_release = TABLE.newest_release


def kubernetes_version(values: Values) -> str | None:
    return str(values.platform_version)


def check_version(values: Values) -> tuple[str, str] | None:
    return TABLE.unknown(values.platform_version, "AKS Kubernetes version", "use one of ")


def stock_of(release: str, cluster_domain: str) -> str | None:
    return stock_corefile(parse_version(release), cluster_domain)


def import_points(release: Version) -> tuple[ImportPoint, ...]:
    return (SERVER_IMPORT, OVERRIDE_IMPORT)


def check(values: Values, data: Mapping[str, Any], at: At) -> list[Problem]:
    problems = []
    if "upstream" in data:
        problems.append(at(["upstream"], "AKS owns the root forward; 'upstream' cannot change it",
                           "remove `upstream:`; forward specific domains with `zones:` instead", key="upstream"))
    for key in ("autoscaling", "alert"):
        if key in data:
            problems.append(at([key], f"'{key}' does not apply to AKS", "remove it (AKS manages the coredns Deployment and its autoscaler)", key=key))
    problems += check_override_names(values, at, reserved=set())
    return problems


def stock_corefile(release: Version, cluster_domain: str) -> str | None:
    """The AKS Corefile as a user quotes it (coredns/coredns#7090, the layout since AKS v20241025:
    two NXDOMAIN `template` blocks); Microsoft does not publish it. A minor outside the table
    takes the newest row's (the layout does not follow the Kubernetes minor)."""
    _, name = ROWS.get((release.major, release.minor), ROWS[max(ROWS)])
    text = resources.files("gen").joinpath(f"data/aks/{name}").read_text(encoding="utf-8")
    return text.replace("cluster.local", cluster_domain) if cluster_domain != "cluster.local" else text


def main_corefile(values: Values) -> str:
    return str(stock_corefile(parse_version(values.platform_version), values.cluster_domain))


def manifests(values: Values) -> list[tuple[str, Obj]]:
    return [("coredns-custom-configmap.yaml", configmap(values, ANNOTATIONS))]


def documents(values: Values) -> list[tuple[str, str]]:
    return []
