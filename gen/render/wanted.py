"""What the values ask a Corefile to say, built straight from them (no template involved).

The platform's stock Corefile with its root forward to /etc/resolv.conf replaced by the forward
pair (README.md: why two stanzas) and the cluster domain put in token by token; one `<zone>:53` server block per
zone; per coredns-custom key, the server block or directives it must hold. Each part remembers
the values key it stems from, so gen.render.structure can report a difference at that value's line.
"""

from __future__ import annotations

import functools
from typing import Any, NamedTuple, Sequence

from gen.corefile import CorefileError, Directive, is_root_forward, parse_corefile, parse_directives
from gen.corefile.facts import UPSTREAM_KEY
from gen.spec import Upstream, Values, Zone

Path = tuple[Any, ...]  # a values key path, e.g. ("upstream", "resolvers", 1)


class Want(NamedTuple):
    """A directive the values ask for, with the values key each part of it stems from."""

    name: str
    args: tuple[str, ...]
    block: tuple[Want, ...] | None
    origin: Path
    arg_origins: tuple[Path, ...] = ()  # per argument, where arguments come from different values


class WantBlock(NamedTuple):
    keys: tuple[str, ...]
    directives: tuple[Want, ...]
    origin: Path


def _forward_pair(to: Sequence[str], to_path: Path | tuple[Path, ...], fallback: Sequence[str], fallback_path: Path,
                  fallback_on: Sequence[str], on_path: Path, policy: str, options: tuple[Want, ...], origin: Path) -> list[Want]:
    """The forward pair (one plain stanza without a fallback), as directives."""
    args = (".", *to, *fallback)
    # (to_path: where the list is, or, when its items come from different keys, each item's key)
    to_origins = to_path if to_path and isinstance(to_path[0], tuple) else tuple((*to_path, i) for i in range(len(to)))
    arg_origins = (origin, *to_origins, *((*fallback_path, i) for i in range(len(fallback))))
    inner = [Want("policy", (policy,), None, origin), *options]
    if not fallback:
        return [Want("forward", args[:len(to) + 1], tuple(inner), origin, arg_origins)]
    inner.append(Want("next", tuple(fallback_on), None, on_path, tuple((*on_path, i) for i in range(len(fallback_on)))))
    return [Want("forward", args, tuple(inner), origin, arg_origins),
            Want("forward", (".", *fallback), None, fallback_path, (origin, *((*fallback_path, i) for i in range(len(fallback)))))]


@functools.lru_cache(maxsize=1024)  # a fleet repeats the same few lines
def _lines(lines: tuple[str, ...], origin: Path) -> tuple[Want, ...]:
    """The directives a zone's extra lines ask for (gen.render.injection refused lines that are no
    whole directives; should any reach here, they ask for nothing, and the proof says so)."""
    if not lines:
        return ()
    try:
        directives = parse_directives("\n".join(lines) + "\n", filename="zone lines")
    except CorefileError:
        return (Want("(lines that are no whole directives)", (), None, origin),)
    return tuple(from_directive(d, (*origin, d.line - 1)) for d in directives)


def _options(options: tuple[str, ...], origin: Path) -> tuple[Want, ...]:
    """Forward option lines (gen.spec.forward_option_lines) as directives of the stanza."""
    return tuple(Want(o.split()[0], tuple(o.split()[1:]), None, origin) for o in options)


def _zone_block(zone: Zone, i: int, port: int = 53) -> WantBlock:
    here: Path = ("zones", i)
    body = [Want("errors", (), None, here)]
    if zone.cache:
        body.append(Want("cache", (str(zone.cache),), None, (*here, "cache")))
    body += _lines(zone.lines, (*here, "lines"))
    body += _forward_pair(zone.upstreams, (*here, "upstreams"), zone.fallback, (*here, "fallback"), zone.fallback_on,
                          (*here, "fallbackOn"), zone.policy, _options(zone.options, (*here, "forward")), here)
    return WantBlock((f"{zone.zone}:{port}",), tuple(body), (*here, "zone"))


def _want(d: Directive, domain: str) -> Want:
    """A stock directive as the platform writes it for the values' cluster domain; an argument
    that is that domain stems from `clusterDomain`."""
    block = None if d.block is None else tuple(_want(x, domain) for x in d.block)
    return Want(d.name, tuple(d.args), block, (), tuple(("clusterDomain",) if a == domain else () for a in d.args))


Slot = tuple[tuple[str, ...], tuple["Want | tuple[Want, ...]", ...]]  # a stock block: keys, directives (a tuple: the root forward, its options)


@functools.lru_cache(maxsize=64)
def _stock(text: str, domain: str) -> tuple[Slot, ...]:
    """The stock Corefile's blocks (the platform's own text for `domain`: a platform decides what
    its cluster domain becomes, e.g. RKE2 charts up to 1.45.201 keep `cluster.local` beside it);
    the root forward to `/etc/resolv.conf` that the forward pair replaces is left as a slot: itself,
    then its options (Talos: max_concurrent)."""
    out = []
    for block in parse_corefile(text, filename="stock").server_blocks:
        body: list[Want | tuple[Want, ...]] = []
        for d in block.directives:
            if is_root_forward(d) and d.args[1:] == ["/etc/resolv.conf"]:
                body.append((_want(d, domain), *(_want(o, domain) for o in d.block or [])))
            else:
                body.append(_want(d, domain))
        out.append((tuple(block.keys), tuple(body)))
    return tuple(out)


def _primary_origins(up: Upstream) -> tuple[Path, ...]:
    return ((("upstream", "resolvConf"),) if up.resolv_conf else ()) + tuple(("upstream", "resolvers", i) for i in range(len(up.resolvers)))


def main_corefile(values: Values, stock: str) -> list[WantBlock]:
    """The Corefile of a `coredns` ConfigMap we own: stock (written for the values' cluster
    domain), forward pair, zones."""
    up = values.upstream
    block = values.default_block
    out = []
    for keys, slots in _stock(stock, values.cluster_domain):
        body: list[Want] = []
        default = any(not isinstance(slot, Want) for slot in slots)
        for slot in slots:
            if isinstance(slot, Want):
                if not (default and block is not None and slot.name in block.replaced):
                    body.append(slot)
                continue
            if block is not None:  # (gen/platforms/stock_edit.py with_default_block: before the root forward)
                body += _lines(block.cache, ("defaultBlock", "cache")) + _lines(block.lines, ("defaultBlock", "lines"))
            if up is None:  # no upstream asked: the platform's own forward stays
                body.append(slot[0])
            else:
                named = {o.split()[0] for o in up.options} | set(up.unset)  # (gen/platforms/stock_edit.py merged_options)
                kept = tuple(w for w in slot[1:] if w.name not in named)
                body += _forward_pair(up.primary, _primary_origins(up), up.fallback, ("upstream", "fallback"),
                                      up.fallback_on, ("upstream", "fallbackOn"), up.policy,
                                      kept + _options(up.options, ("upstream", "forward")), ("upstream",))
        out.append(WantBlock(keys, tuple(body), ()))
    servers = [WantBlock(tuple(f"{z}:53" for z in s.zones), _lines(s.lines, ("servers", i, "lines")), ("servers", i, "zones"))
               for i, s in enumerate(values.servers)]  # (templates/common/zone.server.j2 server_block)
    return out + [_zone_block(z, i) for i, z in enumerate(values.zones)] + servers


class Expected(NamedTuple):
    """One coredns-custom key the values ask for."""

    origin: Path
    want: list[WantBlock] | list[Want]  # server blocks or directive lines (an override's: built when needed)
    text: str | None = None  # a text that certainly means it (an override's own lines), compared first


def custom_keys(values: Values, port: int = 53) -> dict[str, Expected]:
    """Each coredns-custom key the values ask for (`port`: where the platform serves the pods)."""
    out: dict[str, Expected] = {}
    for i, zone in enumerate(values.zones):
        out[f"{zone.zone}.server"] = Expected(("zones", i, "zone"), [_zone_block(zone, i, port)])
    for i, o in enumerate(values.overrides):
        out[f"{o.name}.override"] = Expected(("overrides", i, "lines"), [], "\n".join(o.lines) + "\n")
    up = values.upstream
    if up is not None:
        first = _forward_pair(up.primary, _primary_origins(up), up.fallback, ("upstream", "fallback"), up.fallback_on,
                              ("upstream", "fallbackOn"), up.policy, _options(up.options, ("upstream", "forward")),
                              ("upstream",))[0]
        out[UPSTREAM_KEY] = Expected(("upstream",), [first])  # the platform's own forward is the second stanza
    return out


def from_directive(d: Directive, origin: Path) -> Want:
    return Want(d.name, tuple(d.args), None if d.block is None else tuple(from_directive(x, origin) for x in d.block), origin)
