"""Talos: the repo owns kube-system/coredns, a verbatim copy of Talos's own Corefile.

Talos creates its bootstrap manifests once (re-synced only by `talosctl upgrade-k8s`), so after
bootstrap nobody but Flux maintains the Corefile: deleting it from git deletes cluster DNS
config and Talos does not recreate it. Hence `prune: disabled`, and hence we start from the
exact text Talos generates for that release and change only the `forward` (README.md: why two stanzas).
"""

from __future__ import annotations

import functools
import re
from importlib import resources
from typing import Any, Mapping

from gen.errors import Problem
from gen.platforms import newer
from gen.platforms import releases as releases_table
from gen.platforms.base import COREDNS_CONFIGMAP, COREDNS_DEPLOYMENT, At, ImportPoint, ObjectRef
from gen.rendered import Obj
from gen.platforms.stock_edit import with_forward_pair
from gen.spec import Values
from gen.versions import Version, parse_version

NAME = "talos"
DEFAULT_RELEASE = "v1.13.9"
OWNS: tuple[ObjectRef, ...] = (COREDNS_CONFIGMAP,)
NEVER_TOUCH: tuple[ObjectRef, ...] = (COREDNS_DEPLOYMENT,)

# Talos tag -> (CoreDNS, Corefile of its minor): gen/platforms/releases.py, rebuilt by
# scripts/refresh-platform-data from siderolabs/talos's DefaultCoreDNSVersion at each tag.
TAGS = releases_table.TALOS
HEADS = releases_table.HEADS["talos"]

ORDER_HINT = "forward specific domains with a `zones:` entry instead"
SERVER_PORT = 53
NEXT_HINT = ("upgrade to Talos v1.9 or later (CoreDNS ≥ 1.12.0), or, if you pinned a newer CoreDNS image with "
             "cluster.coreDNS.image, set `corednsVersion:` to that tag (≥ 1.11.4)")

def _tag(release: str) -> str:
    return release if release.startswith("v") else "v" + release


def _order(release: str) -> tuple[int, ...]:
    """Tag order: a release candidate before its release (v1.14.0-rc.1 < v1.14.0)."""
    rc = re.search(r"-rc\.(\d+)$", release)
    return (*parse_version(release), 0 if rc else 1, int(rc[1]) if rc else 0)


def _known() -> dict[tuple[int, int], str]:
    """Minor -> the vendored Corefile its tags render."""
    return dict(sorted({parse_version(tag)[:2]: corefile for tag, (_, corefile) in TAGS.items()}.items()))


KNOWN = _known()


def known_releases() -> str:
    return ", ".join(f"v{a}.{b}.x" for a, b in KNOWN)


def releases() -> tuple[Version, ...]:
    return tuple(Version(a, b, 0) for a, b in KNOWN)


def stand_in(release: str) -> str | None:
    """The tag itself when the tables hold it; a later patch takes the newest tag of its minor below
    it; a newer minor the newest tag, where a branch head carries it with the same Corefile."""
    if _tag(release) in TAGS:
        return release
    return newer.stand_in(_tag(release), TAGS, _order) or newer.newer_minor_base(_tag(release), TAGS, HEADS)


def newest_release() -> str:
    return max(TAGS, key=_order)


def coredns_for(release: str) -> Version | None:
    """CoreDNS that a Talos release deploys by default (a later patch: its stand-in's)."""
    known = stand_in(release)
    return TAGS[_tag(known)][0] if known else None


def kubernetes_version(values: Values) -> str | None:
    return None  # Talos does not pin Kubernetes; validate against the newest schemas


def check_version(values: Values) -> tuple[str, str] | None:
    if stand_in(values.platform_version) is None and parse_version(values.platform_version)[:2] not in KNOWN:
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
    """The Corefile of the release's minor (a newer minor: its stand-in's, gen/platforms/newer.py)."""
    return stock_corefile(parse_version(stand_in(release) or release), cluster_domain)


def import_points(release: Version) -> tuple[ImportPoint, ...]:
    return ()  # Talos's Corefile imports nothing; extra zones are appended to it


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
    """Talos's Corefile with the forward pair and the extra zones appended."""
    v = parse_version(values.platform_version)
    text = stock_of(values.platform_version, values.cluster_domain)
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
