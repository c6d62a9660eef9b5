"""The structural proof: each rendered Corefile means what the values asked for, as CoreDNS reads it.

After rendering, every whole Corefile we own (Talos's `coredns` ConfigMap, what EKS and RKE2
load from our values) and every `coredns-custom` key are read back by CoreDNS's own Caddyfile
parser (gen.corefile, through the helper; an override as CoreDNS imports it, inside a block), and their structure (server blocks, their keys, the directives, their
arguments and nested blocks) is compared with what the values ask for (gen.render.wanted, built without
the templates). Whatever a value could smuggle past the value checks (gen.render.injection) shows here
as a difference, reported as bad input at that value's line. Comments and layout are not
structure. A quick comparison of the text's tokens comes first (it decides nearly every render,
at C speed when the text has no quotes, by a split proven equal to CoreDNS's lexer); only a text whose tokens differ is parsed and compared
tree by tree, which also tells where.
"""

from __future__ import annotations

import functools
import re
from typing import Iterator, NamedTuple, Sequence

from gen.corefile import CorefileError, Directive, ServerBlock, parse_corefile, parse_directives, quote
from gen.corefile.lexer import Position, tokenize
from gen.rendered import RenderedFile, configmap_data
from gen.spec import Values
from gen.render.wanted import Expected, Path, Want, WantBlock, custom_keys, from_directive, main_corefile


class Difference(NamedTuple):
    origin: Path
    what: str  # how the rendered text differs, for the message


def _read(got: str, want: str) -> str:
    return f"CoreDNS would read `{got}` where the values ask for `{want}`"


def _mismatch(origin: Path, want: str, got: str) -> Difference:
    return Difference(origin, _read(got, want))


@functools.lru_cache(maxsize=1024)  # a fleet repeats the same few overrides
def _override(lines: tuple[str, ...], i: int, where: str = "overrides") -> tuple[Want, ...] | Difference:
    """The directives an override's (or a zone's) lines ask for (a Difference: they are no whole directives)."""
    origin: Path = (where, i, "lines")
    try:
        directives = parse_directives("\n".join(lines) + "\n", filename="override")  # gen.render.injection vetted them
    except CorefileError as err:  # lines that are no directives ask for nothing CoreDNS could do
        problem = err.problems[0]
        return Difference((*origin, (problem.line or 1) - 1), f"the lines are no whole directives: {problem.problem}")
    return tuple(from_directive(d, (*origin, d.line - 1)) for d in directives)


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
    said = problem.problem.removeprefix("CoreDNS refuses it: ")
    return Difference(origin, f"CoreDNS would refuse it: {said} (line {problem.line} of the rendered text)")


def file_of(files: Sequence[RenderedFile], name: str) -> str:
    for f in files:
        if any(o.get("kind") == "ConfigMap" and (o.get("metadata") or {}).get("name") == name for o in f.objects):
            return f.path
    return ""


_RENDERED = Position("rendered")
_NOT_A_BRACE = {"{": "\x00{", "}": "\x00}"}  # a value `{` is a word, never the brace a bare `{` is


# The stock Corefile's directives are the same objects in every file of a release (gen.render.wanted
# caches them): remember the lines of those with a block by identity, as hashing a nested tuple
# costs what computing its lines does (a directive without a block is cheaper to redo than to
# look up). An entry holds its directive, so its id cannot be reused meanwhile.
_LINES: dict[int, tuple[Want, tuple[tuple[str, ...], ...]]] = {}


def _words(d: Want) -> tuple[str, ...]:
    args = d.args
    return (d.name, *args) if "{" not in args and "}" not in args else (d.name, *(_NOT_A_BRACE.get(a, a) for a in args))


def _directive_lines(d: Want) -> tuple[tuple[str, ...], ...]:
    if d.block is None:
        return (_words(d),)
    hit = _LINES.get(id(d))
    if hit is not None and hit[0] is d:
        return hit[1]
    lines = ((*_words(d), "{"), *[line for x in d.block for line in _directive_lines(x)], ("}",))
    if len(_LINES) > 4096:
        _LINES.clear()
    _LINES[id(d)] = (d, lines)
    return lines


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


# Where a plain `str.split` and CoreDNS's lexer part ways: a quote (quoted tokens, `\\` pairs),
# `\r` (CoreDNS drops it, even inside a word), the separators \x1c-\x1f (whitespace to Python,
# not to Go's unicode.IsSpace), a byte order mark, and a `#` inside a word (CoreDNS comments out
# only the rest of that word, then reads on). Without them the lexer's tokens are each line's
# words before any `#` (tests/corefile/test_coredns_parser.py proves it against CoreDNS's lexer
# on random and adversarial text).
_SPLIT_DIFFERS = re.compile('["\r\x1c-\x1f\ufeff]|(?<=\\S)#')


def _same_tokens(text: str, want: Sequence[WantBlock] | Sequence[Want]) -> bool:
    """The quick proof: `text` lexes to exactly the tokens the wanted structure is written as
    (their texts, which are braces, which start a line), so CoreDNS's parser, which sees nothing
    else, builds that structure. Text free of the characters above is split at C speed;
    any other text is lexed by CoreDNS's own lexer."""
    if _SPLIT_DIFFERS.search(text) is None:
        return fast_lines(text) == _lines(want)
    try:
        tokens = tokenize(text, _RENDERED)
    except CorefileError:
        return False
    got: list[list[str]] = []
    end = 0
    for tok in tokens:
        if tok.raw_line > end or not got:
            got.append([])
        got[-1].append(tok.text)
        end = tok.raw_end
    return [tuple(line) for line in got] == _lines(want)


def fast_lines(text: str) -> list[tuple[str, ...]]:
    """The words of each line that has any, before a `#`: CoreDNS's tokens, line by line, for a
    text `_SPLIT_DIFFERS` does not match."""
    words = (line.split("#", 1)[0].split() for line in text.split("\n"))
    return [tuple(w) for w in words if w]


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


def differences(values: Values, files: list[RenderedFile], owned: Owned | None, port: int = 53) -> Iterator[tuple[Difference, str]]:
    """(difference, what was rendered) for each rendered Corefile text that is not what was asked."""
    for i, zone in enumerate(values.zones):  # lines that are no whole directives ask for nothing to compare with
        asked = _override(zone.lines, i, "zones") if zone.lines else ()
        if isinstance(asked, Difference):
            yield asked, f"server block of zone {zone.zone}"
            return
    if owned is not None:
        found = _judge(owned.text, main_corefile(values, owned.stock), (), blocks=True, name="Corefile")
        if found:
            yield found, owned.label
    custom = configmap_data(files, "coredns-custom")
    if not custom:
        return
    wanted = custom_keys(values, port)
    for key in sorted(set(custom) | set(wanted)):
        found = _custom_key(values, key, wanted.get(key), custom.get(key))
        if found:
            yield found, f"coredns-custom key {key} ({file_of(files, 'coredns-custom')})"


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
