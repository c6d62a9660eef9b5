"""Platform registry and the checks every platform shares (versions, the `next` gate).

Each platform module answers the same questions: which CoreDNS a release ships, what its
values may and may not say, which manifests it renders, and which Corefile CoreDNS loads.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from gen import flux
from gen.errors import Problem
from gen.platforms import aks, k3s, talos
from gen.schema_errors import key_path, locate
from gen.versions import NEXT_MIN, parse_version

PLATFORMS: dict[str, ModuleType] = {"talos": talos, "k3s": k3s, "aks": aks}


def get(name: str) -> ModuleType:
    return PLATFORMS[name]


def default_coredns_version(platform: str, platform_version: str) -> str | None:
    try:
        found = get(platform).default_coredns(parse_version(platform_version))
    except (KeyError, ValueError):
        return None
    return str(found) if found else None


def base_corefile(values: Any) -> str:
    """The main Corefile CoreDNS loads on this cluster (its imports pull in coredns-custom)."""
    return str(get(values.platform).base_corefile(values))


def uses_next(values: Any) -> bool:
    """Whether the render emits a forward `next` (and so two forwards in one block)."""
    return bool(values.upstream) or any(z.fallback for z in values.zones)


def check_values(values: Any, data: Any) -> list[Problem]:
    """Cross-field checks; each problem points at the key a user must change."""
    shown = values.source
    platform = get(values.platform)
    problems: list[Problem] = []

    def at(path: list[Any], problem: str, hint: str, key: str | None = None) -> Problem:
        line, col = locate(data, path)
        return Problem(problem, file=shown, line=line, col=col, key=key or key_path(path), hint=hint)

    version_problem = platform.check_version(values)
    if version_problem:
        problems.append(at(["platformVersion"], *version_problem))
        return problems  # everything below depends on knowing the release
    if not values.coredns_version:
        problems.append(at(["platformVersion"], f"no known CoreDNS version for {values.platform} {values.platform_version}",
                           "set `corednsVersion:` to the CoreDNS image tag the cluster runs, e.g. 1.14.6"))
        return problems
    coredns = parse_version(values.coredns_version)
    where = ["corednsVersion"] if "corednsVersion" in data else ["platformVersion"]
    origin = "" if "corednsVersion" in data else f" ({values.platform} {values.platform_version}'s default)"
    if uses_next(values) and coredns < NEXT_MIN:
        problems.append(at(
            where,
            f"CoreDNS {coredns}{origin} does not support forward `next` (added in {NEXT_MIN}); the fallback stanza "
            "would make CoreDNS refuse the whole Corefile",
            platform.NEXT_HINT,
        ))

    seen: dict[str, int] = {}
    for i, zone in enumerate(values.zones):
        if zone.zone in seen:
            problems.append(at(["zones", i, "zone"], f"zone {zone.zone} is listed twice (also zones[{seen[zone.zone]}])",
                               "merge the two entries"))
        seen.setdefault(zone.zone, i)
        if zone.zone == values.cluster_domain or zone.zone.endswith("." + values.cluster_domain) or zone.zone in {"in-addr.arpa", "ip6.arpa"}:
            problems.append(at(["zones", i, "zone"], f"zone {zone.zone} would shadow the cluster's own records",
                               f"pick a zone outside {values.cluster_domain}, in-addr.arpa and ip6.arpa"))
    problems += platform.check(values, data, at)
    problems += flux.check(values, data, at)
    return problems

