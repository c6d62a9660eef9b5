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
from gen.platforms.stock_edit import STOCK_EDITED, default_plugins
from gen.spec import RESOLV_CONF, Values, plugin_names
from gen.versions import NEXT_MIN, parse_version


def uses_next(values: Values) -> bool:
    """Whether the render emits a forward `next` (and so two forwards in one block): only with a
    fallback (templates/common/forward.j2; a kept resolv.conf or `fallback: []` has none)."""
    return bool(values.upstream and values.upstream.fallback) or any(z.fallback for z in values.zones)


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
    problems += _default_block(values, platform, at)
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
    release = parse_version(values.platform_version)
    if not up.fallback and not up.resolv_conf and platform.import_points(release) and COREDNS_CONFIGMAP not in platform.OWNS:
        return [at(["upstream", "fallback"], f"on {values.platform} `upstream` is an override in front of the platform's own "
                   "`forward . /etc/resolv.conf`, which `next` hands failures to: there is always that fallback",
                   "remove `fallback: []` (the resolvers then fall back to /etc/resolv.conf)")]
    if not up.resolv_conf:
        return []
    if platform.import_points(release) and COREDNS_CONFIGMAP not in platform.OWNS:
        return [at(["upstream", "resolvConf"], f"{values.platform}'s own Corefile already forwards to /etc/resolv.conf; "
                   "`upstream` is rendered as an override in front of it, so keeping resolv.conf there adds nothing",
                   "remove `resolvConf` (omit `upstream` to keep the platform's forward as it is)")]
    if RESOLV_CONF in up.fallback:
        return [at(["upstream", "fallback", up.fallback.index(RESOLV_CONF)], "/etc/resolv.conf is already the primary "
                   "(`resolvConf: true`); listed as the fallback too, the same servers would be tried twice",
                   "list other fallback resolvers, or none")]
    return []


# The plugins the coredns Deployment's probes ask (Talos's, kubeadm's and EKS's: liveness on
# /health :8080, readiness on /ready :8181; gen/guard/rules/managed_corefile_kept.py).
PROBED = {"health": "liveness", "ready": "readiness"}


def _default_block(values: Values, platform: Platform, at: At) -> list[Problem]:
    """`defaultBlock` names plugins the stock default block has, keeps the root forward and the
    kubernetes plugin, and says the cache once; `servers` (where the Corefile is ours) serve each
    zone once."""
    problems: list[Problem] = []
    if values.servers and values.platform not in STOCK_EDITED:
        problems.append(at(["servers"], f"'servers' does not apply to {values.platform}: coredns-gen adds server blocks "
                           f"as written only where the repository owns the whole Corefile ({', '.join(STOCK_EDITED)})",
                           "use zones[] with lines (its server block forwards to upstreams)"))
    taken = {z.zone.lower().rstrip("."): f"zones[{i}]" for i, z in enumerate(values.zones)}
    for i, server in enumerate(values.servers):
        for j, zone in enumerate(server.zones):
            if zone in taken:
                problems.append(at(["servers", i, "zones", j], f"zone {zone} is served twice (also {taken[zone]}): CoreDNS "
                                   "refuses a Corefile with the same server block key twice", "merge the two entries"))
            taken.setdefault(zone, f"servers[{i}]")
    block = values.default_block
    if block is None:
        return problems
    if values.platform not in STOCK_EDITED:
        how = "use overrides[] (lines the platform imports into its default block)" if \
            platform.import_points(parse_version(values.platform_version)) else "remove it"
        return problems + [at(["defaultBlock"], f"'defaultBlock' does not apply to {values.platform}: coredns-gen edits "
                              f"the stock default block only where the repository owns the whole Corefile "
                              f"({', '.join(STOCK_EDITED)})", how)]
    stock = platform.stock_of(values.platform_version, values.cluster_domain) or ""
    plugins = default_plugins(stock)
    for i, name in enumerate(block.omit):
        if name == "forward":
            problems.append(at(["defaultBlock", "omit", i], "the root forward is not omitted: it is what `upstream` says",
                               "remove `forward` here; set `upstream` (resolvers, policy, forward options) instead"))
        elif name == "kubernetes":
            problems.append(at(["defaultBlock", "omit", i], "without the kubernetes plugin the cluster's Services and Pods "
                               "would no longer resolve", "remove it here; to change the plugin, write your own "
                               "`kubernetes …` lines under defaultBlock.lines (they replace the stock one)"))
        elif name in PROBED:
            problems.append(at(["defaultBlock", "omit", i], f"the coredns Deployment's {PROBED[name]} probe asks the {name} "
                               "plugin: without it the pods would fail that probe", f"remove it here; to change the "
                               f"plugin, write your own `{name} …` line under defaultBlock.lines (it replaces the stock one)"))
        elif name not in plugins:
            problems.append(at(["defaultBlock", "omit", i], f"{values.platform}'s stock default block has no {name} plugin",
                               f"name one of {', '.join(sorted(set(plugins) - {'forward'}))}"))
    names = plugin_names(block.lines)
    if block.cache and "cache" in names:
        problems.append(at(["defaultBlock", "lines"], "a cache directive here and defaultBlock.cache both say the cache",
                           "keep one: defaultBlock.cache (typed) or the `cache …` lines"))
    for j, line in enumerate(block.lines):
        words = line.split("#", 1)[0].split()
        if words[:2] == ["forward", "."]:
            problems.append(at(["defaultBlock", "lines", j], "a root `forward .` here would take every query before "
                               "(or after) the one `upstream` renders", "say the resolvers with `upstream` (resolvers, "
                               "fallback, policy, forward options); a `forward <zone> …` line is fine here"))
    return problems


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
