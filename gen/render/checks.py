"""Cross-field checks of one cluster's values: the release, the `next` gate, zones, then the
platform's own checks and Flux's. Each problem points at the key a user must change."""

from __future__ import annotations

from typing import Any, Mapping

from gen import fluxvars
from gen.render import flux_objects
from gen.corefile.facts import fqdn, kubernetes_zones, shadowed
from gen.errors import Problem
from gen.platforms import PLATFORMS, REFUSED, beyond_tables, get
from gen.platforms.base import COREDNS_CONFIGMAP, At, Platform
from gen.platforms.custom import root_forward_overrides
from gen.platforms.stock import overrides_after_root_forward
from gen.schema_errors import key_path, locate
from gen.spec import RESOLV_CONF, Values
from gen.versions import NEXT_MIN, parse_version


def uses_next(values: Values) -> bool:
    """Whether the render emits a forward `next` (and so two forwards in one block)."""
    return bool(values.upstream) or any(z.fallback for z in values.zones)


def refused_platform(data: Mapping[str, Any], shown: str) -> Problem | None:
    """`platform: gke` and the like: refused with the reason, not called unknown."""
    name = data.get("platform")
    refused = REFUSED.get(name) if isinstance(name, str) else None
    if refused is None:
        return None
    line, col = locate(data, ["platform"])
    return Problem(f"{refused.name} is not supported: {refused.reason}", file=shown, line=line, col=col,
                   key="platform", hint=refused.instead)


def check_values(values: Values, data: Mapping[str, Any]) -> list[Problem]:
    shown = values.source
    platform = get(values.platform)
    problems: list[Problem] = []

    def at(path: list[Any], problem: str, hint: str, key: str | None = None) -> Problem:  # satisfies base.At
        line, col = locate(data, path)
        return Problem(problem, file=shown, line=line, col=col, key=key or key_path(path), hint=hint)

    version_problem = (beyond_tables(values.platform, values.platform_version, pinned="corednsVersion" in data)
                       or platform.check_version(values))
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
    inline = {k: v.replace("\n", "") for k, v in values.flux.substitute or ()}
    for i, zone in enumerate(values.zones):
        if zone.zone in seen:
            problems.append(at(["zones", i, "zone"], f"zone {zone.zone} is listed twice (also zones[{seen[zone.zone]}])",
                               "merge the two entries"))
        seen.setdefault(zone.zone, i)
        # a zone with Flux variables: as its defaults and postBuild.substitute fill it (gen.fluxvars)
        for name in fluxvars.forms(zone.zone, "zone", inline):
            taken = shadowed(name.lower(), kubernetes_zones(values.cluster_domain))
            if taken is None:
                continue
            inside = fqdn(name.lower()) != taken and taken.endswith("." + fqdn(name.lower()))
            read = "" if name == zone.zone else f" (read as {name})"
            problems.append(at(["zones", i, "zone"], f"zone {zone.zone}{read} would shadow the cluster's own records: "
                               f"{'it contains' if inside else 'it is within'} {taken}, which the kubernetes plugin serves, "
                               "and CoreDNS would send those queries to this zone's upstreams",
                               f"pick a zone outside {values.cluster_domain}, in-addr.arpa and ip6.arpa "
                               "(neither equal to, within, nor containing them)"))
            break
        if zone.zone.startswith("(") and zone.zone.endswith(")"):
            problems.append(at(["zones", i, "zone"], f"zone {zone.zone} would be a snippet definition to CoreDNS, not a server block",
                               "use a domain name, e.g. corp.example.com"))
    problems += _upstream(values, platform, at)
    for name in PLATFORMS:  # a platform's own block (`rke2:`) means nothing elsewhere
        if name in data and name != values.platform:
            problems.append(at([name], f"'{name}' applies only to platform {name}", f"remove it, or set `platform: {name}`", key=name))
    problems += platform.check(values, data, at)
    problems += _root_forward_overrides(values, platform, at)
    problems += flux_objects.check(values, data, at)
    return problems


def _upstream(values: Values, platform: Platform, at: At) -> list[Problem]:
    """`upstream` names a primary: resolvers, or the node's resolv.conf kept (only where the
    render replaces the platform's own resolv.conf forward, never twice in one forward)."""
    up = values.upstream
    if up is None:
        return []
    if not up.resolvers and not up.resolv_conf:
        return [at(["upstream"], "upstream has no primary: neither `resolvers` nor `resolvConf: true`",
                   "list your DNS servers under `resolvers`, or set `resolvConf: true` to keep the node's /etc/resolv.conf",
                   key="upstream.resolvers")]
    if not up.resolv_conf:
        return []
    release = parse_version(values.platform_version)
    if platform.import_points(release) and COREDNS_CONFIGMAP not in platform.OWNS:
        return [at(["upstream", "resolvConf"], f"{values.platform}'s own Corefile already forwards to /etc/resolv.conf; "
                   "`upstream` is rendered as an override in front of it, so keeping resolv.conf there adds nothing",
                   "remove `resolvConf` (omit `upstream` to keep the platform's forward as it is)")]
    if RESOLV_CONF in up.fallback:
        return [at(["upstream", "fallback", up.fallback.index(RESOLV_CONF)], "/etc/resolv.conf is already the primary "
                   "(`resolvConf: true`); listed as the fallback too, the same servers would be tried twice",
                   "list other fallback resolvers, or none")]
    return []


def _root_forward_overrides(values: Values, platform: Platform, at: At) -> list[Problem]:
    """A root `forward .` in an override, judged where the platform's Corefile imports it."""
    found = root_forward_overrides(values)
    if not found or not any(p.inside for p in platform.import_points(parse_version(values.platform_version))):
        return []  # no override import at all: the platform refuses `overrides:` itself
    after = overrides_after_root_forward(platform, parse_version(values.platform_version))
    where = f"{values.platform} {values.platform_version}"
    problems = []
    for i, j in found:
        if after is None:
            problems.append(at(["overrides", i, "lines", j], f"{where}: whether *.override comes before its own forward is unverified",
                               "forward specific domains with a `zones:` entry instead"))
        elif after:
            problems.append(at(["overrides", i, "lines", j], f"{where} imports *.override after its own forward, so this "
                               "forward is never reached", platform.ORDER_HINT))
        elif values.upstream is not None:
            problems.append(at(["overrides", i, "lines", j], "a root `forward .` override next to `upstream:` adds a second forward",
                               "keep one: `upstream:` renders the forward for you"))
    return problems
