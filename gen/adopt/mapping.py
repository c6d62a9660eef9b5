"""Say what the input holds as values: upstream, zones, overrides, clusterDomain, chart and
add-on values; name every part that no values key can say.

Only the shapes coredns-gen itself renders are read back as values: a zone is a server block
`<zone>:<port> { errors; cache N; forward . UPSTREAMS [{ policy P; next RCODES }]; [forward . FALLBACK] }`,
the upstream is the default block's root forward (or forward pair). Everything else in a zone
is an extra line (zones[].lines). Where the repository owns the whole Corefile (Talos, kubeadm,
EKS), everything else in the default block is said against the release's stock block, plugin by
plugin (defaultBlock), and a block no zone says is a servers[] entry as written; elsewhere the
proof (gen/adopt/prove.py) names what differs from the stock Corefile.
"""

from __future__ import annotations

import json
import re
import typing
from typing import Any, NamedTuple

from gen.adopt.differences import Difference
from gen.adopt.needs import Need, available, missing
from gen.corefile import Directive, ServerBlock, forward_zone, is_root_forward, normalize_zone, parse_corefile, parse_directives
from gen.corefile.facts import DEFAULT_PORT, FORWARD_DEFAULT_POLICY, UPSTREAM_KEY
from gen.platforms.base import Platform
from gen.platforms.stock_edit import STOCK_EDITED
from gen.spec import FORWARD_OPTIONS, Upstream
from gen.versions import Version

_NAME = re.compile(r"[a-z0-9]([-a-z0-9_]{0,40}[a-z0-9])?")  # an override name (values schema)
_VAR = "${"
DEFAULT_FALLBACK_ON = Upstream(()).fallback_on  # what values say when fallbackOn is left out


def shown(lines: tuple[str, ...] | list[str]) -> str:
    """Corefile lines on one line of a message."""
    return " ".join(lines)


def corefile_lines(text: str) -> list[str]:
    """Rendered Corefile text as CoreDNS's lexer sees its lines: broken at LF only. str.splitlines
    also breaks at CR, NEL, U+2028 and U+2029, which a quoted token may hold (`log . "a\u2028b"`
    was cut in two and named as two differences)."""
    lines = text.split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines


def lines_of(directives: list[Directive]) -> tuple[str, ...]:
    """The lines directives are written as (gen.corefile's rendering, indentation stripped)."""
    return tuple(line.strip(" ") for d in directives for line in corefile_lines(d.render(0)))


class Mapped(NamedTuple):
    data: dict[str, Any]  # values keys: upstream, zones, overrides, clusterDomain
    differences: list[Difference]
    placed: list[str] = []  # "coredns-custom key a.server -> zones: corp.example", key by key


class Stanza(NamedTuple):
    """A forward (pair) as values say it."""

    upstreams: list[str]
    fallback: list[str]
    fallback_on: list[str] | None
    policy: str | None
    options: list[Directive]  # options of the first forward no values key says
    rest: list[Directive]  # forwards after the pair


def stanza(forwards: list[Directive]) -> Stanza:
    """The forward pair (README.md: why two stanzas) read back: `forward . R… F… { policy P; next RCODES }` then
    `forward . F…` is upstreams R, fallback F; a single forward has no fallback."""
    first = forwards[0]
    policy: str | None = None
    fallback_on: list[str] | None = None
    options: list[Directive] = []
    for option in first.block or []:
        if option.name == "policy" and len(option.args) == 1 and option.block is None:
            policy = option.args[0]
        elif option.name == "next" and option.block is None and fallback_on is None:
            fallback_on = [a.upper() for a in option.args]
        else:
            options.append(option)
    upstreams, fallback, rest = list(first.args[1:]), [], forwards[1:]
    if fallback_on is not None and rest and rest[0].block is None and forward_zone(rest[0]) == forward_zone(first):
        fallback = list(rest[0].args[1:])
        if fallback and upstreams[-len(fallback):] == fallback and len(upstreams) > len(fallback):
            upstreams = upstreams[:-len(fallback)]
        rest = rest[1:]
    return Stanza(upstreams, fallback, fallback_on, policy, options, rest)


_DURATION = re.compile(r"^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$")  # (values schema $defs.duration)
_FLAGS = ("forceTcp", "preferUdp")


def forward_values(options: list[Directive]) -> tuple[dict[str, Any], list[Directive]]:
    """Forward options as the values' `forward:` mapping (gen.spec.FORWARD_OPTIONS), and the
    options no key of it says (another option, or a value its schema refuses)."""
    keys = {name: key for key, name in FORWARD_OPTIONS}
    out: dict[str, Any] = {}
    rest: list[Directive] = []
    for option in options:
        key = keys.get(option.name)
        args = option.args
        if key is None or option.block is not None or key in out:
            rest.append(option)
        elif key in _FLAGS and not args:
            out[key] = True
        elif key in ("maxFails", "maxConcurrent") and len(args) == 1 and args[0].isdigit() and \
                int(args[0]) <= 1000000 and (key == "maxFails" or int(args[0]) >= 1):
            out[key] = int(args[0])
        elif key in ("expire", "healthCheck") and len(args) == 1 and _DURATION.match(args[0]):
            out[key] = args[0]
        else:
            rest.append(option)
    return out, rest


NULLABLE_OPTIONS = {"max_concurrent": "maxConcurrent"}  # stock forward options values may leave out (values schema)
POLICIES = ("sequential", "round_robin", "random")  # (values schema: upstream.policy, zones[].policy)


def policy_of(policy: str | None, upstreams: int) -> tuple[str, str | None]:
    """The values' policy of a forward (CoreDNS picks at random unless told; one upstream has
    nothing to pick), or why values cannot say it."""
    if policy is None:
        return ("sequential" if upstreams == 1 else FORWARD_DEFAULT_POLICY), None
    if policy not in POLICIES:
        return policy, f"values say a forward policy as one of {', '.join(POLICIES)}"
    return policy, None


def _needs_var(texts: list[str]) -> bool:
    return any(_VAR in t for t in texts)


def zone_of(block: ServerBlock, port: int, where: str) -> tuple[dict[str, Any] | None, list[Difference]]:
    """The zone a server block says, with the differences its render would have (None: no zone
    can say it; the differences say why)."""
    head = " ".join(block.keys)
    where = f"{where} server block {head}"
    everything = lines_of(block.directives)
    if len(block.keys) != 1:
        return None, [Difference(where, head, "a zone has one address; a block serving several is not a values zone",
                                 lines=everything)]
    key = block.addresses[0]
    zone = normalize_zone(key.zone) if _VAR not in key.zone else key.zone.rstrip(".") + "."  # (a variable's name keeps its case)
    if key.scheme != "dns" or (key.port or DEFAULT_PORT) != str(port) or zone is None or zone == ".":
        return None, [Difference(where, head, f"a zone is served as `<zone>:{port}` over plain DNS; this block is not one",
                                 lines=everything)]
    forwards = [d for d in block.directives if d.name == "forward"]
    if not forwards or forward_zone(forwards[0]) != ".":
        return None, [Difference(where, head, "a zone forwards `.` to its upstreams; this block does not",
                                 lines=everything)]
    found = stanza(forwards)
    name = zone.rstrip(".")
    diffs: list[Difference] = []
    for texts, what in (([name], "zone name"), (found.upstreams + found.fallback, "upstreams")):
        if _needs_var(texts) and not available("${VAR}"):
            return None, [Difference(where, f"{what} {' '.join(texts)}", missing("${VAR}"), "${VAR}", everything)]
    out: dict[str, Any] = {"zone": name, "upstreams": found.upstreams}
    if found.fallback:
        out["fallback"] = found.fallback
    if found.fallback_on is not None and found.fallback and found.fallback_on != list(DEFAULT_FALLBACK_ON):
        out["fallbackOn"] = found.fallback_on
    # unless told, CoreDNS's forward picks at random; one upstream has nothing to pick
    policy = found.policy or ("sequential" if len(found.upstreams) == 1 else FORWARD_DEFAULT_POLICY)
    if policy != "sequential":  # (the values default)
        out["policy"] = policy
    cache = [d for d in block.directives if d.name == "cache"]
    extra: list[Directive] = [*found.rest]
    if len(cache) == 1 and cache[0].block is None and len(cache[0].args) == 1 and cache[0].args[0].isdigit():
        if int(cache[0].args[0]) != 30:  # (the values default)
            out["cache"] = int(cache[0].args[0])
    else:
        out["cache"] = 0
        extra += cache
    extra += [d for d in block.directives if d.name not in ("forward", "cache", "errors")]
    extra += [d for d in block.directives if d.name == "errors" and (d.args or d.block is not None)]
    said, unsaid = forward_values(found.options)
    if said:
        out["forward"] = said
    if unsaid:
        diffs.append(Difference(where, "forward options " + shown(lines_of(unsaid)),
                                "a zone's forward takes `policy`, `next` and zones[].forward (max_fails, expire, health_check, "
                                "max_concurrent, force_tcp, prefer_udp) from values", lines=lines_of(unsaid)))
    if extra:
        lines = list(lines_of(extra))
        need: Need = "zones[].lines"
        if available(need) and (not _needs_var(lines) or available("${VAR}")):
            out["lines"] = [line.rstrip(" ") for d in extra for line in corefile_lines(d.render(0))]  # (nested lines indented)
        else:
            diffs.append(Difference(where, shown(lines), missing(need), need, tuple(lines)))
    return out, diffs


def _stanza_options(options: list[Directive], stock_options: tuple[str, ...], where: str) -> tuple[dict[str, Any], list[Difference]]:
    """The root forward's options as upstream.forward: those beyond the stock ones, a stock one
    left out as null where values can say it (NULLABLE_OPTIONS); what no key says, named."""
    said, unsaid = forward_values([o for o in options if o.render(0).strip() not in stock_options])
    diffs: list[Difference] = []
    present = {o.name for o in options}
    for option in stock_options:
        name = option.split()[0]
        if name in present:
            continue
        if name in NULLABLE_OPTIONS:
            said[NULLABLE_OPTIONS[name]] = None
        else:
            diffs.append(Difference(where, f"no `{option}`", "the stock forward's option stays in the render: no values key "
                                    "leaves it out", lines=()))
    if unsaid:
        diffs.append(Difference(where, "forward options " + shown(lines_of(unsaid)),
                                "the root forward takes the stock Corefile's options and upstream.forward (max_fails, expire, "
                                "health_check, max_concurrent, force_tcp, prefer_udp) from values", lines=lines_of(unsaid)))
    return {key: said[key] for key, _ in FORWARD_OPTIONS if key in said}, diffs


def upstream_of(block: ServerBlock, where: str, stock_options: tuple[str, ...], required: bool) -> tuple[dict[str, Any] | None, list[Difference]]:
    """The upstream the default block's root forward says (None: the platform's own forward
    to /etc/resolv.conf stays)."""
    roots = [d for d in block.directives if is_root_forward(d)]
    where = f"{where} default server block"
    if not roots:
        return None, [Difference(where, "no root `forward .`", "coredns-gen keeps the platform's root forward or writes its own",
                                 lines=())]
    if len(roots) == 1 and roots[0].args[1:] == ["/etc/resolv.conf"]:
        # (one upstream: its policy picks nothing, and CoreDNS reads it the same without)
        options = [o for o in roots[0].block or [] if o.name != "policy"]
        if required and not available("upstream.resolvConf"):
            return None, [Difference(where, shown(lines_of(roots)), missing("upstream.resolvConf"), "upstream.resolvConf",
                                     lines_of(roots))]
        if sorted(lines_of(options)) == sorted(stock_options):
            return ({"resolvConf": True} if required else None), []
        kept: dict[str, Any] = {"resolvConf": True}
        said, unsaid = _stanza_options(options, stock_options, where)
        if said:
            kept["forward"] = said
        return kept, unsaid
    found = stanza(roots)
    diffs: list[Difference] = []
    if _needs_var(found.upstreams + found.fallback) and not available("${VAR}"):
        return None, [Difference(where, shown(lines_of(roots)), missing("${VAR}"), "${VAR}", lines_of(roots))]
    out: dict[str, Any] = {"resolvers": found.upstreams}
    if found.fallback:
        out["fallback"] = found.fallback
        if found.fallback_on is not None and found.fallback_on != list(DEFAULT_FALLBACK_ON):
            out["fallbackOn"] = found.fallback_on
    else:
        out["fallback"] = []  # (one plain stanza: the values default would add /etc/resolv.conf behind it)
    policy, why = policy_of(found.policy, len(found.upstreams) + len(found.fallback))
    if why:
        diffs.append(Difference(where, f"policy {found.policy}", why))
    elif policy != "sequential":
        out["policy"] = policy
    said, found_diffs = _stanza_options(found.options, stock_options, where)
    diffs += found_diffs
    if said:
        out["forward"] = said
    if found.rest:
        diffs.append(Difference(where, shown(lines_of(found.rest)), "a third root forward is not a values key",
                                lines=lines_of(found.rest)))
    return out, diffs


def _default(blocks: list[ServerBlock], port: int) -> ServerBlock | None:
    for block in blocks:
        if any(normalize_zone(k.zone) == "." and (k.port or DEFAULT_PORT) == str(port) for k in block.addresses):
            return block
    return None


def main_corefile(text: str, platform: Platform, release: Version, where: str, *, upstream_required: bool) -> Mapped:
    """Values from a whole Corefile the repository owns (Talos, kubeadm, RKE2's chart, EKS's add-on)."""
    corefile = parse_corefile(text, filename=where)
    blocks = corefile.server_blocks
    port = platform.SERVER_PORT
    default = _default(blocks, port)
    data: dict[str, Any] = {}
    diffs: list[Difference] = []
    if default is None:
        return Mapped(data, [Difference(where, "no default `.:53` server block", "coredns-gen renders the platform's default block")])
    kubernetes = default.find("kubernetes")
    if kubernetes and kubernetes[0].args and kubernetes[0].args[0].rstrip(".").lower() != "cluster.local":
        data["clusterDomain"] = kubernetes[0].args[0].rstrip(".").lower()
    stock = platform.stock_corefile(release, data.get("clusterDomain", "cluster.local")) or ""
    stock_options: tuple[str, ...] = ()
    stock_default = _default(parse_corefile(stock, filename="stock").server_blocks, port) if stock else None
    if stock_default is not None:
        own = [d for d in stock_default.directives if is_root_forward(d)]
        stock_options = lines_of(own[0].block or []) if own else ()
    upstream, found = upstream_of(default, where, stock_options, upstream_required)
    diffs += found
    if upstream is not None:
        data["upstream"] = upstream
    diffs += _imports(corefile.imports + [d for b in blocks for d in b.directives if d.name == "import"],
                      set(corefile.snippets), platform, release, where)
    inline: list[dict[str, Any]] = []
    if platform.NAME in STOCK_EDITED and stock_default is not None:
        block, found = default_block_of(default, stock_default, where)
        if block:
            data["defaultBlock"] = block
    else:
        inline, found = _inline_zones(default, port, where)
    diffs += found
    zones, found = _zones([b for b in blocks if b is not default], port, where,
                          servers=platform.NAME in STOCK_EDITED and stock_default is not None)
    diffs += found
    said = inline + [z for z in zones if "zone" in z]
    if said:
        data["zones"] = said
    servers = [z for z in zones if "zones" in z]
    if servers:
        data["servers"] = servers
    return Mapped(data, diffs)


def cache_values(d: Directive) -> dict[str, Any] | None:
    """A `cache` directive as defaultBlock.cache (gen.spec.cache_lines writes it back), or None
    when that key cannot say it (zones after the TTL, no TTL, an option twice or unknown)."""
    if len(d.args) != 1 or not d.args[0].isdigit() or int(d.args[0]) < 1:
        return None
    out: dict[str, Any] = {"ttl": int(d.args[0])}
    disable: dict[str, list[str]] = {}
    for o in d.block or []:
        a = o.args
        ints = all(x.isdigit() for x in a)
        if o.block is not None or (o.name in out and o.name != "disable"):
            return None
        if o.name in ("success", "denial") and 1 <= len(a) <= 3 and ints and (len(a) < 2 or int(a[1]) >= 1):
            out[o.name] = dict(zip(("capacity", "ttl", "minTtl"), (int(x) for x in a), strict=False))
        elif o.name == "prefetch" and 1 <= len(a) <= 3 and a[0].isdigit() and int(a[0]) >= 1 and \
                (len(a) < 2 or _DURATION.match(a[1])) and (len(a) < 3 or re.fullmatch(r"(100|[1-9]?[0-9])%", a[2])):
            out["prefetch"] = {"amount": int(a[0]), **({"duration": a[1]} if len(a) > 1 else {}),
                               **({"percentage": int(a[2][:-1])} if len(a) > 2 else {})}
        elif o.name == "serve_stale" and "serveStale" not in out and len(a) <= 2 and (not a or _DURATION.match(a[0])) and \
                (len(a) < 2 or a[1] in ("immediate", "verify")):
            out["serveStale"] = dict(zip(("duration", "refresh"), a, strict=False))
        elif o.name == "servfail" and "servfail" not in out and len(a) == 1 and _DURATION.match(a[0]):
            out["servfail"] = a[0]
        elif o.name == "disable" and a and a[0] in ("success", "denial") and a[0] not in disable and \
                all(_ZONE.fullmatch(z) for z in a[1:]):
            disable[a[0]] = list(a[1:])
        elif o.name == "keepttl" and not a and "keepttl" not in out:
            out["keepttl"] = True
        else:
            return None
    if disable:
        out["disable"] = disable
    return out


_ZONE = re.compile(r"([A-Za-z0-9_]([-A-Za-z0-9_]*[A-Za-z0-9])?)(\.[A-Za-z0-9_]([-A-Za-z0-9_]*[A-Za-z0-9])?)*\.?|\.")  # (values schema $defs.cacheZone)
_KEPT = ("kubernetes", "health", "ready")  # stock plugins defaultBlock.omit refuses (gen/checks.py): restated under lines instead


def default_block_of(default: ServerBlock, stock: ServerBlock, where: str) -> tuple[dict[str, Any], list[Difference]]:
    """The input's default block against the platform's stock one, plugin by plugin, as
    defaultBlock (gen/platforms/stock_edit.py applies it back): a stock plugin missing is
    `omit`, one written otherwise (or one the stock lacks, a `forward <zone>` too) `lines`, a
    cache other than the stock one `cache` where its typed keys say it. The root forward is
    upstream's."""
    mine = [d for d in default.directives if not is_root_forward(d) and d.name != "import"]  # (imports: _imports names them)
    theirs = [d for d in stock.directives if not is_root_forward(d)]

    def written(directives: list[Directive], name: str) -> list[str]:
        return [d.render(0) for d in directives if d.name == name]

    out: dict[str, Any] = {}
    omit: list[str] = []
    replaced: set[str] = set()
    diffs: list[Difference] = []
    for name in dict.fromkeys(d.name for d in theirs):
        if not written(mine, name):
            if name in _KEPT:
                why = "the cluster's Services and Pods do not resolve" if name == "kubernetes" else \
                    f"the coredns pods fail the probe that asks {name}"
                diffs.append(Difference(f"{where} default server block", f"no `{name}` plugin",
                                        f"coredns-gen keeps the stock `{name}` plugin (without it {why}; defaultBlock.omit "
                                        f"refuses it): if this Corefile is the cluster's, add your `{name}` lines to it "
                                        "first; the render adds the stock ones"))
            else:
                omit.append(name)
        elif written(mine, name) != written(theirs, name):
            replaced.add(name)
    caches = [d for d in mine if d.name == "cache"]
    if "cache" in replaced and len(caches) == 1 and (typed := cache_values(caches[0])) is not None:
        out["cache"] = typed
        replaced.discard("cache")
    stock_names = {d.name for d in theirs}
    extra = [d for d in mine if d.name in replaced or d.name not in stock_names]
    if omit:
        out["omit"] = omit
    if extra:
        out["lines"] = [line.rstrip(" ") for d in extra for line in corefile_lines(d.render(0))]
    return out, diffs


def _inline_zones(default: ServerBlock, port: int, where: str) -> tuple[list[dict[str, Any]], list[Difference]]:
    """`forward <zone> …` inside the default block, said as zones[] (the values' one way to send a
    zone elsewhere), with its forward's options and the block's cache TTL. Named as a difference,
    never passed as the same: the zone gets a server block of its own, so the default block's
    other plugins (log, loadbalance, prometheus, its cache options…) no longer see its queries."""
    zones: list[dict[str, Any]] = []
    diffs: list[Difference] = []
    cache = [d for d in default.directives if d.name == "cache"]
    ttl = cache[0].args[0] if len(cache) == 1 and len(cache[0].args) == 1 and cache[0].args[0].isdigit() else None
    others = sorted({d.name for d in default.directives} - {"forward", "cache", "errors", "kubernetes", "health", "ready",
                                                                "reload", "loop"})
    for d in default.directives:
        if d.name != "forward" or is_root_forward(d) or len(d.args) < 2:
            continue
        name = forward_zone(d)
        if name is None or name == ".":
            continue
        moved = Directive("forward", [".", *d.args[1:]], d.line, block=d.block)
        block = ServerBlock([f"{name}:{port}"], [Directive("errors", [], d.line), *(
            [Directive("cache", [ttl], d.line)] if ttl else []), moved], d.line)
        zone, found = zone_of(block, port, where)
        if zone is None:
            diffs += found
            continue
        zones.append(zone)
        diffs += found
        lost = f" ({', '.join(others)} no longer apply to it)" if others else ""
        diffs.append(Difference(f"{where} default server block", shown(lines_of([d])),
                                f"values say a zone as zones[] (written: zone {zone['zone']}), rendered as its own server "
                                f"block {zone['zone']}:{port}{lost}: check that nothing in the default block should still act "
                                f"on its queries, then import with --allow-loss",
                                lines=lines_of([d]), adds=(f"{name}:{port}",)))
    return zones, diffs


def _imports(imports: list[Directive], snippets: set[str], platform: Platform, release: Version, where: str) -> list[Difference]:
    """File imports the render would not keep: keys the cluster holds outside the input would
    no longer be read (the proof cannot see them: an import matching no input key reads nothing)."""
    kept = {p.pattern for p in platform.import_points(release)}
    return [Difference(f"{where} import", shown(lines_of([d])),
                       f"the render imports {', '.join(sorted(kept)) or 'no file'}: files this matches in the cluster would no longer be read",
                       lines=lines_of([d]))
            for d in imports if d.args and d.args[0] not in snippets and d.args[0] not in kept]


def server_of(block: ServerBlock, port: int) -> dict[str, Any] | None:
    """A server block as servers[] (its zones, its lines as written), or None when that key
    cannot say it: a key on another port or scheme, the default zone, a Flux variable."""
    zones: list[str] = []
    for key in block.addresses:
        zone = normalize_zone(key.zone) if _VAR not in key.zone else None
        if key.scheme != "dns" or (key.port or DEFAULT_PORT) != str(port) or zone in (None, "."):
            return None
        zones.append(str(zone).rstrip("."))
    if not block.directives or len(set(zones)) != len(zones):
        return None
    return {"zones": zones, "lines": [line.rstrip(" ") for d in block.directives for line in corefile_lines(d.render(0))]}


def _zones(blocks: list[ServerBlock], port: int, where: str, *, servers: bool = False) -> tuple[list[dict[str, Any]], list[Difference]]:
    """zones[] entries, and (`servers`: where the Corefile is ours) servers[] entries (with
    `zones`) for the blocks no zone says without a difference."""
    zones: list[dict[str, Any]] = []
    diffs: list[Difference] = []
    for block in blocks:
        zone, found = zone_of(block, port, where)
        server = server_of(block, port) if servers and (zone is None or found) else None
        if server is not None:  # (said as written: nothing lost)
            zones.append(server)
            continue
        diffs += found
        if zone is not None:
            zones.append(zone)
    return zones, diffs


def _upstream_key(text: str, key: str, where: str, platform: Platform, release: Version) -> tuple[dict[str, Any], list[Difference]]:
    """coredns-gen's own upstream override read back: `forward . RESOLVERS FALLBACK { policy
    sequential; next RCODES }`, the first stanza of the pair (the platform's own forward is the
    second). Where the resolvers end and the fallback begins does not change what is rendered:
    the fallback is the tail the platform's own forward names, else the last upstream."""
    roots = [d for d in parse_directives(text, filename=key) if is_root_forward(d)]
    if not roots:
        return {}, [Difference(where, key, "holds no root forward: not coredns-gen's upstream")]
    first = roots[0]
    args = list(first.args[1:])
    stock = parse_corefile(platform.stock_corefile(release, "cluster.local") or "", filename="stock")
    own = [list(d.args[1:]) for b in stock.server_blocks for d in b.directives if is_root_forward(d)]
    tail = own[0] if own and len(args) > len(own[0]) and args[-len(own[0]):] == own[0] else args[-1:]
    out: dict[str, Any] = {"resolvers": args[: len(args) - len(tail)] or args}
    if tail != ["/etc/resolv.conf"] and len(args) > 1:
        out["fallback"] = tail
    found = stanza(roots)
    if found.fallback_on is not None and found.fallback_on != list(DEFAULT_FALLBACK_ON):
        out["fallbackOn"] = found.fallback_on
    said, unsaid = forward_values(found.options)
    if said:
        out["forward"] = said
    diffs = []
    policy, why = policy_of(found.policy, len(args))
    if policy != "sequential" and why is None:
        out["policy"] = policy
    if unsaid or found.rest or why:
        extra = [*unsaid, *found.rest]
        diffs.append(Difference(where, shown(lines_of(extra)) or f"policy {found.policy}",
                                "coredns-gen's upstream override holds only the resolvers, upstream.policy, upstream.forward's "
                                "options and `next`",
                                lines=lines_of(extra)))
    return out, diffs


def custom_keys(keys: dict[str, str], platform: Platform, release: Version, *, overrides: bool) -> Mapped:
    """Values from coredns-custom keys: `*.server` blocks become zones, `*.override` overrides
    (where the platform imports them), coredns-gen's own upstream key the upstream."""
    imported = {p.suffix for p in platform.import_points(release)}
    zones: list[dict[str, Any]] = []
    listed: list[dict[str, Any]] = []
    placed: list[str] = []
    data: dict[str, Any] = {}
    diffs: list[Difference] = []
    for key, text in sorted(keys.items()):
        where = f"coredns-custom key {key}"
        suffix = "." + key.rsplit(".", 1)[1] if "." in key else ""
        if suffix not in imported:
            if text.strip():
                diffs.append(Difference(where, key, f"{platform.NAME} imports only {', '.join(sorted('*' + s for s in imported)) or 'no key'}: "
                                                    "CoreDNS never reads it, and the render has no such key"))
            continue
        if suffix == ".server":
            found_zones, found = _zones(parse_corefile(text, filename=key).server_blocks, platform.SERVER_PORT, where)
            zones += found_zones
            diffs += found
            named = [f"{z['zone']}.server" for z in found_zones]
            renamed = f" (rendered as key {', '.join(named)})" if named and named != [key] else ""
            if not found_zones and not found:
                placed.append(f"{where} -> nothing: it holds no server block (CoreDNS reads nothing from it; such a key "
                              "keeps CoreDNS from warning that `import …/*.server` matches no file), and the render writes "
                              "`.server` keys only for zones[], so CoreDNS logs that warning again: harmless")
                continue
            placed.append(f"{where} -> zones: {', '.join(z['zone'] for z in found_zones) or 'none'}{renamed}")
        elif key == UPSTREAM_KEY:
            data["upstream"], found = _upstream_key(text, key, where, platform, release)
            diffs += found
            placed.append(f"{where} -> upstream")
        elif not overrides:
            diffs.append(Difference(where, key, f"values overrides do not apply to {platform.NAME}"))
        else:
            name = key[: -len(suffix)]
            lines = text.split("\n")  # verbatim: comments and layout stay the user's
            if len(lines) > 1 and lines[-1] == "":
                lines.pop()
            if not _NAME.fullmatch(name):
                diffs.append(Difference(where, key, "an override's name is lower-case letters, digits, '-' and '_' "
                                                    "(up to 42): the render would name the key otherwise"))
                name = re.sub(r"[^a-z0-9_-]", "-", name.lower()).strip("-_")[:42] or "override"
            listed.append({"name": name, "lines": lines})
            placed.append(f"{where} -> overrides: {name}")
    if zones:
        data["zones"] = zones
    if listed:
        data["overrides"] = listed
    return Mapped(data, diffs, placed)


def _get(node: Any, *path: Any) -> Any:
    for key in path:
        if isinstance(node, dict) and key in node:
            node = node[key]
        elif isinstance(node, list) and isinstance(key, int) and key < len(node):
            node = node[key]
        else:
            return None
    return node


def autoscaling_of(hpa: dict[str, Any]) -> dict[str, Any]:
    """k3s: the coredns HPA's floor, ceiling, CPU target and scale-down window as `autoscaling`
    (what else it says the proof compares with the render's HPA)."""
    found = {"minReplicas": _get(hpa, "spec", "minReplicas"), "maxReplicas": _get(hpa, "spec", "maxReplicas"),
             "cpuUtilization": _get(hpa, "spec", "metrics", 0, "resource", "target", "averageUtilization"),
             "scaleDownWindowSeconds": _get(hpa, "spec", "behavior", "scaleDown", "stabilizationWindowSeconds")}
    return {k: v for k, v in found.items() if isinstance(v, int) and not isinstance(v, bool)}


def alert_of(rule: dict[str, Any]) -> dict[str, Any]:
    """k3s: coredns-gen's PrometheusRule read back as `alert`."""
    out: dict[str, Any] = {"enabled": True}
    first = _get(rule, "spec", "groups", 0, "rules", 0)
    if isinstance(_get(first, "for"), str):
        out["for"] = first["for"]
    if isinstance(_get(first, "labels", "severity"), str):
        out["severity"] = first["labels"]["severity"]
    labels = _get(rule, "metadata", "labels")
    if isinstance(labels, dict) and labels:
        out["labels"] = {str(k): str(v) for k, v in labels.items()}
    return out


def _json(value: Any) -> str:
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= 80 else text[:79] + "…"


FLUX_KEYS = ("interval", "timeout", "retryInterval", "wait")  # said by values as they are


def flux_of(ks: dict[str, Any], output: str | None, where: str) -> tuple[dict[str, Any], list[Difference], list[str]]:
    """The Flux Kustomization that applies the input, as `flux:` (its name kept: the guard-safe
    switch of docs/migrate.md), with what no values key says named. Returns (flux, differences, notes)."""
    meta = ks.get("metadata") or {}
    spec = ks.get("spec") or {}
    where = f"Flux Kustomization {meta.get('namespace') or '-'}/{meta.get('name')} ({where})"
    out: dict[str, Any] = {"name": str(meta.get("name"))}
    if meta.get("namespace"):
        out["namespace"] = str(meta["namespace"])
    if output is not None:
        out["output"] = output
    out.update({k: spec[k] for k in FLUX_KEYS if k in spec})
    if isinstance(spec.get("dependsOn"), list):
        out["dependsOn"] = [{k: v for k, v in d.items() if k in ("name", "namespace")} for d in spec["dependsOn"] if isinstance(d, dict)]
    diffs: list[Difference] = []
    notes = [f"{where}: spec.path becomes the rendered overlay's folder"]

    def need(spec_key: str, need: Need, value: Any) -> None:
        if available(need):
            out[need.split(".", 1)[1]] = value
        else:
            diffs.append(Difference(f"{where} spec.{spec_key}", _json(spec[spec_key]), missing(need), need))

    source = spec.get("sourceRef") or {}
    kind, name, namespace = source.get("kind"), source.get("name"), source.get("namespace")
    if (kind, name) != ("GitRepository", "flux-system") or namespace not in (None, meta.get("namespace") or "flux-system"):
        if kind not in ("GitRepository", "OCIRepository") or not isinstance(name, str):
            diffs.append(Difference(f"{where} spec.sourceRef", _json(source), "flux.source names a GitRepository or an "
                                    "OCIRepository by kind and name"))
        elif namespace not in (None, meta.get("namespace") or "flux-system"):
            diffs.append(Difference(f"{where} spec.sourceRef", _json(source), "flux.source names a source in the "
                                    "Kustomization's own namespace (flux.namespace); this one is in another"))
        else:
            need("sourceRef", "flux.source", {"kind": kind, "name": name})
    if spec.get("prune") is False:
        need("prune", "flux.prune", False)
    target = spec.get("targetNamespace")
    if target is not None:
        need("targetNamespace", "flux.targetNamespace", target)
    for key, field in (("commonMetadata", "flux.commonMetadata"), ("postBuild", "flux.postBuild")):
        if key in spec:
            need(key, typing.cast(Need, field), spec[key])
    known = {"path", "sourceRef", "prune", "targetNamespace", "commonMetadata", "postBuild", "dependsOn", *FLUX_KEYS}
    for key in sorted(set(spec) - known):
        diffs.append(Difference(f"{where} spec.{key}", _json(spec[key]), "no values key says it"))
    if output is None:
        notes.append(f"{where}: its file holds other objects too, so the render writes the Kustomization to flux.output "
                     "(default clusters/<cluster>/coredns.yaml): delete this one from its file in the same commit")
    return out, diffs, notes
