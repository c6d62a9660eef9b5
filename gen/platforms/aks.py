"""AKS: only `kube-system/coredns-custom` is ours; Microsoft owns the main Corefile.

AKS imports `custom/*.override` *after* its own `forward . /etc/resolv.conf`, so a root
`forward .` override is ignored (or, before CoreDNS 1.9.4, rejected). Other writers (for example
a controller's `zoneroute.server`) share the ConfigMap, so Flux applies with `ssa: Merge`
(keeps fields it does not own) and never prunes it.
"""

from __future__ import annotations

from importlib import resources
from typing import Any, Callable

from gen.errors import Problem
from gen.platforms.custom import check_override_names, configmap, root_forward_overrides
from gen.versions import AKS_COREDNS, Version, aks_coredns, parse_version

NEXT_HINT = "set `corednsVersion:` to the CoreDNS AKS runs (≥ 1.11.4, AKS 1.33 and later), or drop the zone's fallback"
ANNOTATIONS = {
    "kustomize.toolkit.fluxcd.io/ssa": "Merge",
    "kustomize.toolkit.fluxcd.io/prune": "disabled",
}


def default_coredns(version: Version) -> Version | None:
    return aks_coredns(version)


def kubernetes_version(values: Any) -> str | None:
    return str(values.platform_version)


def check_version(values: Any) -> tuple[str, str] | None:
    v = parse_version(values.platform_version)
    if (v.major, v.minor) not in AKS_COREDNS:
        known = ", ".join(f"{a}.{b}" for a, b in sorted(AKS_COREDNS))
        return (f"unknown AKS Kubernetes version {values.platform_version}", f"use one of {known}")
    return None


def check(values: Any, data: Any, at: Callable[..., Problem]) -> list[Problem]:
    problems = []
    if "upstream" in data:
        problems.append(at(["upstream"], "AKS owns the root forward; 'upstream' cannot change it",
                           "remove `upstream:`; forward specific domains with `zones:` instead", key="upstream"))
    for key in ("autoscaling", "alert"):
        if key in data:
            problems.append(at([key], f"'{key}' does not apply to AKS", "remove it (AKS manages the coredns Deployment and its autoscaler)", key=key))
    for i, j in root_forward_overrides(values):
        problems.append(at(["overrides", i, "lines", j], "a root `forward .` in an override is ignored or rejected on AKS "
                           "(AKS imports overrides after its own forward)",
                           "forward specific domains with a `zones:` entry instead"))
    problems += check_override_names(values, at, reserved=set())
    return problems


def base_corefile(values: Any) -> str:
    """The AKS Corefile users report (Azure/AKS#3786); Microsoft does not publish it."""
    return resources.files("gen").joinpath("data/aks/aks-user-reported-Azure-AKS-3786.Corefile").read_text(encoding="utf-8")


def manifests(values: Any) -> list[tuple[str, dict[str, Any]]]:
    return [("coredns-custom-configmap.yaml", configmap(values, ANNOTATIONS))]
