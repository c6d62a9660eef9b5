"""The platform registry: each served platform is a module satisfying `base.Platform`.

`PLATFORMS` lists those we render for; `REFUSED` those we know and decline, with the reason and
what to do instead (asked for by name, they are refused rather than called unknown).
"""

from __future__ import annotations

from gen.errors import Problem, UsageError
from gen.platforms import aks, eks, gardener, k3s, kubeadm, newer, releases, rke2, talos
from gen.platforms.base import ObjectRef, Platform, Refused
from gen.versions import parse_version

PLATFORMS: dict[str, Platform] = {"talos": talos, "k3s": k3s, "aks": aks, "rke2": rke2, "eks": eks, "kubeadm": kubeadm,
                                 "gardener": gardener}
REFUSED: dict[str, Refused] = {
    "gke": Refused(
        "gke",
        "GKE clusters resolve with kube-dns or Cloud DNS, not CoreDNS: there is no Corefile and no coredns-custom to configure",
        "on kube-dns, forward a domain with the `stubDomains` and `upstreamNameservers` of ConfigMap "
        "kube-system/kube-dns; on Cloud DNS, create a private response policy or forwarding zone in Cloud DNS "
        "(gcloud dns managed-zones create --forwarding-targets=...)",
    ),
}


def dns_objects() -> frozenset[ObjectRef]:
    """Every object a platform's cluster DNS is made of: what each platform owns or leaves to the
    repository, and what coredns-gen renders (the guard's `scope: dns`)."""
    found = {ref for p in PLATFORMS.values() for ref in (*p.OWNS, *p.NEVER_TOUCH)}
    return frozenset(found | {k3s.ALERT})


def names() -> str:
    return ", ".join(PLATFORMS)


def get(name: str) -> Platform:
    """Raises KeyError for a name that is not served (callers checked it or report it)."""
    return PLATFORMS[name]


def refusal(name: str, key: str) -> Problem | None:
    """The problem to report when `name` is not a platform we render for (None when it is)."""
    if name in PLATFORMS:
        return None
    refused = REFUSED.get(name)
    if refused is not None:
        return Problem(f"{name} is not supported: {refused.reason}", key=key, hint=refused.instead)
    return Problem(f"unknown platform {name!r}", key=key, hint=f"use one of {names()}")


def require(name: str, key: str) -> Platform:
    """The platform, or a UsageError that says why not (refused or unknown)."""
    problem = refusal(name, key)
    if problem is not None:
        raise UsageError(problem)
    return PLATFORMS[name]


def default_coredns_version(platform: str, platform_version: str) -> str | None:
    try:
        found = get(platform).coredns_for(platform_version)
    except (KeyError, ValueError):
        return None
    return str(found) if found else None


def assumed(platform: str, release: str, pinned: bool) -> str | None:
    """The warning for a release that takes a known release's facts (None: it is known, or not
    served); `pinned` when the values set `corednsVersion:` (only the layout is assumed then)."""
    chosen = PLATFORMS.get(platform)
    if chosen is None:
        return None
    try:
        stood_in = chosen.stand_in(release)
        newest_minor = max(chosen.releases())[:2] if chosen.releases() else None
        via = newer.carrier(release, releases.HEADS.get(platform, ())) if newest_minor and parse_version(release)[:2] > newest_minor else None
    except ValueError:  # not a version: check_version reports it
        return None
    if stood_in is None or stood_in == release:
        return None
    return newer.assumption(platform, release, stood_in, None if pinned else chosen.coredns_for(release), via)


def beyond_tables(platform: str, release: str, pinned: bool = False) -> tuple[str, str] | None:
    """(problem, hint) for a release the tables and the branch heads read beside them do not cover
    (gen/platforms/newer.py); `pinned` when the values set `corednsVersion:`."""
    chosen = PLATFORMS[platform]
    try:
        stood_in = chosen.stand_in(release)
        return newer.beyond(platform, release, chosen.releases(), chosen.newest_release(), releases.HEADS.get(platform, ()),
                            stood_in, chosen.coredns_for(release) if stood_in else None, pinned)
    except ValueError:  # not a version: check_version reports it
        return None
