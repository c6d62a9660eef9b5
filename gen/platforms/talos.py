"""Talos: the repo owns kube-system/coredns, a verbatim copy of Talos's own Corefile.

Talos creates its bootstrap manifests once (re-synced only by `talosctl upgrade-k8s`), so after
bootstrap nobody but Flux maintains the Corefile: deleting it from git deletes cluster DNS
config and Talos does not recreate it. Hence `prune: disabled`, and hence we start from the
exact text Talos generates for that release and change only the `forward` (seed 000).
"""

from __future__ import annotations

import functools
import re
from importlib import resources
from typing import Any, Mapping

from gen.errors import Problem
from gen.platforms.base import COREDNS_CONFIGMAP, COREDNS_DEPLOYMENT, At, ImportPoint, ObjectRef
from gen.rendered import Obj
from gen.platforms.stock_edit import with_forward_pair
from gen.spec import Values
from gen.versions import Version, parse_version

NAME = "talos"
SUMMARY = "the repo owns kube-system/coredns (Talos's own Corefile, forward replaced); Talos owns the Deployment"
DEFAULT_RELEASE = "v1.13.9"
OWNS: tuple[ObjectRef, ...] = (COREDNS_CONFIGMAP,)
NEVER_TOUCH: tuple[ObjectRef, ...] = (COREDNS_DEPLOYMENT,)

# Talos: (minor) -> list of (first patch, CoreDNS) in ascending order (FACTS.md §6:
# siderolabs/talos pkg/machinery/constants/constants.go `DefaultCoreDNSVersion` at each tag).
COREDNS: dict[tuple[int, int], list[tuple[int, Version]]] = {
    (1, 8): [(0, Version(1, 11, 3))],
    (1, 9): [(0, Version(1, 12, 0))],
    (1, 10): [(0, Version(1, 12, 1))],
    (1, 11): [(0, Version(1, 12, 2)), (1, Version(1, 12, 3)), (3, Version(1, 12, 4))],
    (1, 12): [(0, Version(1, 13, 2)), (8, Version(1, 14, 3)), (9, Version(1, 14, 2))],
    (1, 13): [(0, Version(1, 14, 2)), (7, Version(1, 14, 4)), (8, Version(1, 14, 6))],
}
# Newest patch FACTS.md covers per Talos minor; later patches are not guessed.
LAST_KNOWN_PATCH = {(1, 8): 4, (1, 9): 6, (1, 10): 9, (1, 11): 6, (1, 12): 11, (1, 13): 9}

ORDER_HINT = "forward specific domains with a `zones:` entry instead"
SERVER_PORT = 53
NEXT_HINT = ("upgrade to Talos v1.9 or later (CoreDNS ≥ 1.12.0), or, if you pinned a newer CoreDNS image with "
             "cluster.coreDNS.image, set `corednsVersion:` to that tag (≥ 1.11.4)")

def _known() -> dict[tuple[int, int], str]:
    files = resources.files("gen").joinpath("data/talos")
    out = {}
    for entry in files.iterdir():
        m = re.fullmatch(r"talos-(\d+)\.(\d+)\.Corefile", entry.name)
        if m:
            out[(int(m[1]), int(m[2]))] = entry.name
    return dict(sorted(out.items()))


KNOWN = _known()


def known_releases() -> str:
    return ", ".join(f"v{a}.{b}.x" for a, b in KNOWN)


def releases() -> tuple[Version, ...]:
    return tuple(Version(a, b, 0) for a, b in KNOWN)


def stand_in(release: str) -> str | None:
    """A patch after the newest one the tables cover takes that one's CoreDNS."""
    v = parse_version(release)
    minor = (v.major, v.minor)
    if minor not in COREDNS:
        return None
    return release if v.patch <= LAST_KNOWN_PATCH[minor] else f"v{v.major}.{v.minor}.{LAST_KNOWN_PATCH[minor]}"


def newest_release() -> str:
    a, b = max(LAST_KNOWN_PATCH)
    return f"v{a}.{b}.{LAST_KNOWN_PATCH[(a, b)]}"


def coredns_for(release: str) -> Version | None:
    """CoreDNS that a Talos release deploys by default (a later patch: the newest known one's)."""
    known = stand_in(release)
    if known is None:
        return None
    v = parse_version(known)
    table = COREDNS[(v.major, v.minor)]
    chosen = table[0][1]
    for first_patch, coredns in table:
        if v.patch >= first_patch:
            chosen = coredns
    return chosen


def kubernetes_version(values: Values) -> str | None:
    return None  # Talos does not pin Kubernetes; validate against the newest schemas


def check_version(values: Values) -> tuple[str, str] | None:
    v = parse_version(values.platform_version)
    if (v.major, v.minor) not in KNOWN:
        return (f"unknown Talos version {values.platform_version}",
                f"use one of {known_releases()} (the Corefile Talos generates is vendored per minor release)")
    return None


@functools.lru_cache(maxsize=None)
def _stock(minor: tuple[int, int]) -> str:
    return resources.files("gen").joinpath(f"data/talos/{KNOWN[minor]}").read_text(encoding="utf-8")


def stock_corefile(release: Version, cluster_domain: str) -> str | None:
    """Talos's generated Corefile for that minor release (only ClusterDomain is substituted)."""
    minor = (release.major, release.minor)
    if minor not in KNOWN:
        return None
    text = _stock(minor)
    if cluster_domain != "cluster.local":
        text = re.sub(r"(?<=[ \t])cluster\.local(?=\s)", cluster_domain, text)
    return text


def stock_of(release: str, cluster_domain: str) -> str | None:
    return stock_corefile(parse_version(release), cluster_domain)


def import_points(release: Version) -> tuple[ImportPoint, ...]:
    return ()  # Talos's Corefile imports nothing; extra zones are appended to it


def guard_invariants() -> tuple[str, ...]:
    return ("talos-corefile-kept", "next-needs-forward", "k3s-deployment-untouched")


def check(values: Values, data: Mapping[str, Any], at: At) -> list[Problem]:
    problems = []
    if values.upstream is None:
        problems.append(at([], "missing key 'upstream'", "add `upstream: {resolvers: [IP]}` with your DNS servers: Talos's own forward "
                           "is replaced by your resolvers with /etc/resolv.conf behind them", key="upstream"))
    for key, why in (("overrides", "Talos's Corefile has no coredns-custom import; put zones under `zones:`"),
                     ("autoscaling", "Talos deploys coredns with 2 replicas and the repo never touches the Deployment"),
                     ("alert", "the replica alert is for k3s, whose Deployment starts at 1 replica")):
        if key in data:
            problems.append(at([key], f"'{key}' does not apply to Talos", f"remove it ({why})", key=key))
    return problems


def corefile(values: Values) -> str:
    """Talos's Corefile with the forward pair of seed 000 and the extra zones appended."""
    v = parse_version(values.platform_version)
    text = stock_corefile(v, values.cluster_domain)
    if text is None:  # check_version refused it already
        raise RuntimeError(f"no vendored Corefile for Talos {v.major}.{v.minor}")
    return with_forward_pair(text, values, f"Talos {v.major}.{v.minor}", "   ")


def main_corefile(values: Values) -> str:
    return corefile(values)


def manifests(values: Values) -> list[tuple[str, Obj]]:
    configmap: Obj = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": "coredns",
            "namespace": "kube-system",
            # Flux must never delete this object, even when the file leaves git: Talos
            # would not put it back and the cluster would lose its DNS config.
            "annotations": {"kustomize.toolkit.fluxcd.io/prune": "disabled"},
        },
        "data": {"Corefile": corefile(values)},
    }
    return [("coredns-configmap.yaml", configmap)]


def documents(values: Values) -> list[tuple[str, str]]:
    return []
