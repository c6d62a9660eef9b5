"""The structural proof: each rendered Corefile means what the values asked for, as CoreDNS reads it.

After rendering, the Corefile of a rendered `coredns` ConfigMap and every `coredns-custom`
fragment are parsed back with our own Corefile parser (the one `lint` uses), and their structure
(server blocks, their keys, the directives, their arguments and nested blocks) is compared with a
structure built straight from the values, without the templates: the platform's stock Corefile
with its root forward replaced by the forward pair and the cluster domain put in token by token,
one server block per zone, one fragment per override holding exactly the directives its lines
parse to. Whatever a value could smuggle past the value checks (gen.injection) shows here as a
difference, reported as bad input at that value's line. Comments are not structure.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Iterator, NamedTuple, Sequence

from gen.corefile import CorefileError, Directive, ServerBlock, is_root_forward, parse_corefile, parse_directives, quote
from gen.corefile.lexer import Position, tokenize
from gen.rendered import RenderedFile, configmap_data
from gen.spec import Values, Zone

Path = tuple[Any, ...]  # a values key path, e.g. ("upstream", "resolvers", 1)
STOCK_DOMAIN = "cluster.local"  # the domain the vendored stock Corefiles are written with


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


class Difference(NamedTuple):
    origin: Path
    what: str  # how the rendered text differs, for the message


def _read(got: str, want: str) -> str:
    return f"CoreDNS would read `{got}` where the values ask for `{want}`"


def _mismatch(origin: Path, want: str, got: str) -> Difference:
    return Difference(origin, _read(got, want))


def _forward_pair(to: Sequence[str], to_path: Path, fallback: Sequence[str], fallback_path: Path,
                  fallback_on: Sequence[str], on_path: Path, policy: str, options: tuple[Want, ...], origin: Path) -> list[Want]:
    """The forward pair of seed 000 (one plain stanza without a fallback), as directives."""
    args = (".", *to, *fallback)
    arg_origins = (origin, *((*to_path, i) for i in range(len(to))), *((*fallback_path, i) for i in range(len(fallback))))
    inner = [Want("policy", (policy,), None, origin), *options]
    if not fallback:
        return [Want("forward", args[:len(to) + 1], tuple(inner), origin, arg_origins)]
    inner.append(Want("next", tuple(fallback_on), None, on_path, tuple((*on_path, i) for i in range(len(fallback_on)))))
    return [Want("forward", args, tuple(inner), origin, arg_origins),
            Want("forward", (".", *fallback), None, fallback_path, (origin, *((*fallback_path, i) for i in range(len(fallback)))))]


def _zone_block(zone: Zone, i: int) -> WantBlock:
    here: Path = ("zones", i)
    body = [Want("errors", (), None, here)]
    if zone.cache:
        body.append(Want("cache", (str(zone.cache),), None, (*here, "cache")))
    body += _forward_pair(zone.upstreams, (*here, "upstreams"), zone.fallback, (*here, "fallback"), zone.fallback_on,
                          (*here, "fallbackOn"), zone.policy, (), here)
    return WantBlock((f"{zone.zone}:53",), tuple(body), (*here, "zone"))


def _want(d: Directive, domain: str) -> Want:
    """A stock directive, the cluster domain put in where the stock file names its own."""
    args = tuple(domain if a == STOCK_DOMAIN else a for a in d.args)
    block = None if d.block is None else tuple(_want(x, domain) for x in d.block)
    return Want(d.name, args, block, (), tuple(("clusterDomain",) if a == STOCK_DOMAIN else () for a in d.args))


Slot = tuple[tuple[str, ...], tuple["Want | tuple[Want, ...]", ...]]  # a stock block: keys, directives (a tuple: the root forward, its options)


@functools.lru_cache(maxsize=64)
def _stock(text: str, domain: str) -> tuple[Slot, ...]:
    """The stock Corefile's blocks with the domain put in; the root forward to `/etc/resolv.conf`
    that the forward pair replaces is left as a slot: itself, then its options (Talos: max_concurrent)."""
    out = []
    for block in parse_corefile(text, filename="stock").server_blocks:
        body: list[Want | tuple[Want, ...]] = []
        for d in block.directives:
            if is_root_forward(d) and d.args[1:] == ["/etc/resolv.conf"]:
                body.append((_want(d, domain), *(_want(o, domain) for o in d.block or [])))
            else:
                body.append(_want(d, domain))
        out.append((tuple(domain if k == STOCK_DOMAIN else k for k in block.keys), tuple(body)))
    return tuple(out)


def main_corefile(values: Values, stock: str) -> list[WantBlock]:
    """The Corefile of a `coredns` ConfigMap we own: stock, forward pair, zones."""
    up = values.upstream
    out = []
    for keys, slots in _stock(stock, values.cluster_domain):
        body: list[Want] = []
        for slot in slots:
            if isinstance(slot, Want):
                body.append(slot)
            elif up is None:  # no upstream asked: the platform's own forward stays
                body.append(slot[0])
            else:
                body += _forward_pair(up.resolvers, ("upstream", "resolvers"), up.fallback, ("upstream", "fallback"),
                                      up.fallback_on, ("upstream", "fallbackOn"), "sequential", slot[1:], ("upstream",))
        out.append(WantBlock(keys, tuple(body), ()))
    return out + [_zone_block(z, i) for i, z in enumerate(values.zones)]


class Expected(NamedTuple):
    """One coredns-custom key the values ask for."""

    origin: Path
    want: list[WantBlock] | list[Want]  # server blocks or directive lines (an override's: built when needed)
    text: str | None = None  # a text that certainly means it (an override's own lines), compared first


@functools.lru_cache(maxsize=1024)  # a fleet repeats the same few overrides
def _override(lines: tuple[str, ...], i: int) -> tuple[Want, ...] | Difference:
    """The directives an override's lines ask for (a Difference: they are no whole directives)."""
    origin: Path = ("overrides", i, "lines")
    try:
        directives = parse_directives("\n".join(lines) + "\n", filename="override")  # gen.injection vetted them
    except CorefileError as err:  # lines that are no directives ask for nothing CoreDNS could do
        problem = err.problems[0]
        return Difference((*origin, (problem.line or 1) - 1), f"the lines are no whole directives: {problem.problem}")
    return tuple(_from(d, (*origin, d.line - 1)) for d in directives)


def custom_keys(values: Values) -> dict[str, Expected]:
    """Each coredns-custom key the values ask for."""
    out: dict[str, Expected] = {}
    for i, zone in enumerate(values.zones):
        out[f"{zone.zone}.server"] = Expected(("zones", i, "zone"), [_zone_block(zone, i)])
    for i, o in enumerate(values.overrides):
        out[f"{o.name}.override"] = Expected(("overrides", i, "lines"), [], "\n".join(o.lines) + "\n")
    up = values.upstream
    if up is not None:
        first = _forward_pair(up.resolvers, ("upstream", "resolvers"), up.fallback, ("upstream", "fallback"), up.fallback_on,
                              ("upstream", "fallbackOn"), "sequential", (), ("upstream",))[0]
        out["upstream.override"] = Expected(("upstream",), [first])  # the platform's own forward is the second stanza
    return out


def _from(d: Directive, origin: Path) -> Want:
    return Want(d.name, tuple(d.args), None if d.block is None else tuple(_from(x, origin) for x in d.block), origin)


def _head(name: str, args: Sequence[str], has_block: bool) -> str:
    text = " ".join(quote(t) for t in [name, *args]) + (" {" if has_block else "")
    return text if len(text) <= 80 else text[:79] + "…"


def _directives(want: Sequence[Want], got: Sequence[Directive], parent: Path) -> Difference | None:
    for k in range(max(len(want), len(got))):
        if k >= len(want):
            g = got[k]
            return _mismatch(want[-1].origin if want else parent, "nothing more", _head(g.name, g.args, g.block is not None))
        w = want[k]
        if k >= len(got):
            return _mismatch(w.origin, _head(w.name, w.args, w.block is not None), "nothing")
        g = got[k]
        if (w.name, w.args, w.block is None) != (g.name, tuple(g.args), g.block is None):
            origin = w.origin
            bad = [a for a in range(min(len(w.args), len(g.args))) if w.args[a] != g.args[a]]
            at = bad[0] if bad else min(len(w.args), len(g.args))
            if w.name == g.name and w.arg_origins:  # (an argument too many: the value just before it grew)
                origin = w.arg_origins[min(at, len(w.arg_origins) - 1)] or origin
            return _mismatch(origin, _head(w.name, w.args, w.block is not None), _head(g.name, g.args, g.block is not None))
        if w.block is not None and g.block is not None:
            found = _directives(w.block, g.block, w.origin)
            if found:
                return found
    return None


def _blocks(want: Sequence[WantBlock], got: Sequence[ServerBlock], parent: Path) -> Difference | None:
    for k in range(max(len(want), len(got))):
        if k >= len(want):
            return _mismatch(want[-1].origin if want else parent, "no more server blocks", _head(" ".join(got[k].keys), [], True))
        w = want[k]
        if k >= len(got):
            return _mismatch(w.origin, _head(" ".join(w.keys), [], True), "no such server block")
        if w.keys != tuple(got[k].keys):
            return _mismatch(w.origin, _head(" ".join(w.keys), [], True), _head(" ".join(got[k].keys), [], True))
        found = _directives(w.directives, got[k].directives, w.origin)
        if found:
            return found
    return None


Lexed = tuple[str, bool, bool]  # (text, is a brace, first token on its line)


def _lexed(items: Sequence[WantBlock] | Sequence[Want]) -> list[tuple[Lexed, Path]]:
    """The tokens the wanted structure is written as, each with the value it stems from."""
    out: list[tuple[Lexed, Path]] = []

    def directive(d: Want) -> None:
        out.append(((d.name, False, True), d.origin))
        out.extend(((a, False, False), d.arg_origins[k] if k < len(d.arg_origins) else d.origin) for k, a in enumerate(d.args))
        if d.block is not None:
            out.append((("{", True, False), d.origin))
            for x in d.block:
                directive(x)
            out.append((("}", True, True), d.origin))

    for item in items:
        if isinstance(item, WantBlock):
            out.extend(((k, False, n == 0), item.origin) for n, k in enumerate(item.keys))
            out.append((("{", True, False), item.origin))
            for d in item.directives:
                directive(d)
            out.append((("}", True, True), item.origin))
        else:
            directive(item)
    return out


def _unparsed(err: CorefileError, text: str, want: Sequence[WantBlock] | Sequence[Want], default: Path) -> Difference:
    """A rendered text our parser refuses: blame the value behind the first token that differs
    from the tokens the wanted structure is written as (a `#` in a value shows only where a
    brace is missing much later; the tokens show it where it is)."""
    problem = err.problems[0]
    origin = default
    try:
        tokens = tokenize(text, Position("rendered"))
    except CorefileError:  # an unterminated quote: no token to compare
        tokens = []
    got: list[Lexed | None] = [(t.text, t.is_open or t.is_close, k == 0 or t.raw_line != tokens[k - 1].raw_end)
                               for k, t in enumerate(tokens)]
    for (lexed, path), actual in zip(_lexed(want), [*got, None], strict=False):  # (a shorter text differs at its end)
        if lexed != actual:
            origin = path
            break
    return Difference(origin, f"CoreDNS would refuse it: {problem.problem} (line {problem.line} of the rendered text)")


def _file_of(files: Sequence[RenderedFile], name: str) -> str:
    for f in files:
        if any(o.get("kind") == "ConfigMap" and (o.get("metadata") or {}).get("name") == name for o in f.objects):
            return f.path
    return ""


_RENDERED = Position("rendered")
_NOT_A_BRACE = {"{": "\x00{", "}": "\x00}"}  # a value `{` is a word, never the brace a bare `{` is


@functools.lru_cache(maxsize=4096)  # the stock Corefile's directives recur in every file of a release
def _directive_lines(d: Want) -> tuple[tuple[str, ...], ...]:
    head = (d.name, *(_NOT_A_BRACE.get(a, a) for a in d.args))
    if d.block is None:
        return (head,)
    return ((*head, "{"), *(line for x in d.block for line in _directive_lines(x)), ("}",))


def _lines(want: Sequence[WantBlock] | Sequence[Want]) -> list[tuple[str, ...]]:
    """The words of each line the wanted structure is written as (a brace that is a value marked)."""
    out: list[tuple[str, ...]] = []
    for item in want:
        if isinstance(item, WantBlock):
            out.append((*(_NOT_A_BRACE.get(k, k) for k in item.keys), "{"))
            for d in item.directives:
                out.extend(_directive_lines(d))
            out.append(("}",))
        else:
            out.extend(_directive_lines(item))
    return out


def _same_tokens(text: str, want: Sequence[WantBlock] | Sequence[Want]) -> bool:
    """The quick proof: `text` lexes to exactly the tokens the wanted structure is written as
    (their texts, which are braces, which start a line), so the parser builds that structure.
    Without a `"` in the text our lexer's tokens are each line's words before any `#`, split at
    whitespace as `str.isspace` sees it, which `str.split` computes at C speed."""
    if '"' not in text:
        words = (line.split("#", 1)[0].split() for line in text.split("\n"))
        return [tuple(w) for w in words if w] == _lines(want)
    try:
        tokens = tokenize(text, _RENDERED)
    except CorefileError:
        return False
    got: list[list[str]] = []
    end = 0
    for tok in tokens:
        if tok.raw_line != end:
            got.append([])
        got[-1].append(tok.text if not tok.quoted else _NOT_A_BRACE.get(tok.text, tok.text))
        end = tok.raw_end
    return [tuple(line) for line in got] == _lines(want)


def _judge(text: str, want: Sequence[WantBlock] | Sequence[Want], origin: Path, *, blocks: bool, name: str) -> Difference | None:
    if _same_tokens(text, want):
        return None
    try:  # the full proof: parse it back and compare the trees (written differently may still mean the same)
        if blocks:
            return _blocks([w for w in want if isinstance(w, WantBlock)], parse_corefile(text, filename=name).server_blocks, origin)
        return _directives([w for w in want if isinstance(w, Want)], parse_directives(text, filename=name), origin)
    except CorefileError as err:
        return _unparsed(err, text, want, origin)


class Owned(NamedTuple):
    """A whole Corefile the render owns: where it is, its text, and the stock it was made from."""

    label: str
    text: str
    stock: str


def owned_corefile(files: list[RenderedFile], owns: Callable[[], tuple[str, str, str] | None]) -> Owned | None:
    """The rendered `coredns` ConfigMap's Corefile (Talos) or, where the platform owns the whole
    Corefile in another form (EKS configurationValues, an RKE2 chart's values), what `owns`
    gives: (where, the Corefile CoreDNS loads, the stock Corefile for cluster.local)."""
    found = owns()
    if found is None:
        return None
    where, text, stock = found
    written = configmap_data(files, "coredns").get("Corefile")
    if written is not None:
        return Owned(f"Corefile of ConfigMap kube-system/coredns ({_file_of(files, 'coredns')})", written, stock)
    return Owned(where, text, stock)


def differences(values: Values, files: list[RenderedFile], owned: Owned | None) -> Iterator[tuple[Difference, str]]:
    """(difference, what was rendered) for each rendered Corefile text that is not what was asked."""
    if owned is not None:
        found = _judge(owned.text, main_corefile(values, owned.stock), (), blocks=True, name="Corefile")
        if found:
            yield found, owned.label
    custom = configmap_data(files, "coredns-custom")
    if not custom:
        return
    wanted = custom_keys(values)
    for key in sorted(set(custom) | set(wanted)):
        found = _custom_key(values, key, wanted.get(key), custom.get(key))
        if found:
            yield found, f"coredns-custom key {key} ({_file_of(files, 'coredns-custom')})"


def _custom_key(values: Values, key: str, expected: Expected | None, text: str | None) -> Difference | None:
    if expected is None or text is None:
        return _mismatch(() if expected is None else expected.origin, "no such key" if expected is None else "this key",
                         "nothing" if text is None else "it")
    want: Sequence[WantBlock] | Sequence[Want] | Difference = expected.want
    if expected.text is not None:  # an override: its lines must be whole directives
        want = _override(values.overrides[expected.origin[1]].lines, expected.origin[1])
    if isinstance(want, Difference) or text == expected.text:
        return want if isinstance(want, Difference) else None  # (the override's own lines, verbatim, parse the same)
    return _judge(text, want, expected.origin, blocks=key.endswith(".server"), name=key)
