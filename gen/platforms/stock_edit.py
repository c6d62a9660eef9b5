"""Edit a platform's own Corefile one way: its resolv.conf forward becomes the pair (README.md: why two stanzas).

Talos and EKS both ship a Corefile whose default block ends in `forward . /etc/resolv.conf`
(Talos v1.9+ with options in a block: `max_concurrent 1000`). Only that directive changes:
options the platform set there stay on the first stanza, so the replacement never loosens the
platform's own limits; extra zones are appended as server blocks of their own.
"""

from __future__ import annotations

import functools
import re
from typing import NamedTuple

from gen.spec import DefaultBlock, Values
from gen.templating import render_macro

# The platforms whose Corefile is their stock text edited here (talos.py, kubeadm.py, eks.py call
# with_forward_pair): there `defaultBlock` has a stock default block to change.
STOCK_EDITED = ("talos", "kubeadm", "eks")

# The platform's default forward: one line, or a block with options.
_FORWARD = re.compile(r"^(?P<indent>[ \t]+)forward \. /etc/resolv\.conf(?: \{\n(?P<body>(?:.*\n)*?)(?P=indent)\})?\n", re.M)


class _Forward(NamedTuple):
    """Where the stock forward is, its indent, its options' extra indent (None: no block) and options."""

    start: int
    end: int
    indent: str
    step: str | None
    options: tuple[str, ...]


@functools.lru_cache(maxsize=64)  # a few stock texts, each edited for every cluster of its release
def _forward(text: str) -> _Forward | None:
    match = _FORWARD.search(text)
    if match is None:
        return None
    indent, body = match["indent"], match["body"] or ""
    step = re.match(r"[ \t]*", body.splitlines()[0])[0][len(indent):] if body else None  # type: ignore[index]
    return _Forward(match.start(), match.end(), indent, step, tuple(line.strip() for line in body.splitlines() if line.strip()))


def merged_options(stock: tuple[str, ...], ours: tuple[str, ...], unset: tuple[str, ...] = ()) -> list[str]:
    """The stock forward's options, each replaced by the values' option of the same name (or left
    out, when the values set it to null), then the values' other options (a platform's own limit
    stays unless the values name that option)."""
    named = {o.split()[0] for o in ours} | set(unset)
    return [o for o in stock if o.split()[0] not in named] + list(ours)


class _Directive(NamedTuple):
    """A top-level directive of the stock default block: its text span and plugin name."""

    start: int
    end: int
    name: str
    root_forward: bool


def _default_directives(text: str) -> list[_Directive]:
    """The top-level directives of the first server block of a vendored stock Corefile (the
    default `.:53` one: every file under gen/data starts with it), found by brace depth: these
    texts are ours, with one directive or brace per line and no quoted braces."""
    out: list[_Directive] = []
    depth, offset, start, first = 0, 0, 0, [""]
    for line in text.splitlines(keepends=True):
        words = line.split()
        if depth == 1 and words and words[0] != "}":
            start, first = offset, words
        depth += line.count("{") - line.count("}")
        offset += len(line)
        if depth == 1 and first[0]:
            out.append(_Directive(start, offset, first[0], first[:2] == ["forward", "."]))
            first = [""]
        if depth == 0 and out:
            break
    return out


def default_plugins(text: str) -> tuple[str, ...]:
    """The plugins of a stock Corefile's default block, in order."""
    return tuple(d.name for d in _default_directives(text))


def with_default_block(text: str, block: DefaultBlock, indent: str, step: str) -> str:
    """`text` with its default block changed as `defaultBlock` says: the stock plugins it names
    (omit, lines, cache) taken out, its cache and lines put in before the root forward (a
    `forward <zone>` must come before the `forward .` that would take its queries)."""
    directives = _default_directives(text)
    root = next((d for d in directives if d.root_forward), None)
    if root is None:
        raise RuntimeError("no root forward in the stock default block")
    added = "".join(f"{indent}{line.replace('  ', step, 1) if line.startswith('  ') else line}\n" for line in block.cache)
    added += "".join(f"{indent}{line}\n" for line in block.lines)
    for d in sorted(directives, key=lambda d: d.start, reverse=True):
        if d is root:
            text = text[: d.start] + added + text[d.start:]
        elif d.name in block.replaced:
            text = text[: d.start] + text[d.end:]
    return text


def with_forward_pair(text: str, values: Values, origin: str, step: str) -> str:
    """`text` with the forward pair (when `values.upstream` is set) and the extra zones.

    `step` indents the stanza options when the stock forward has no block to copy it from.
    Raises RuntimeError when the stock text has no resolv.conf forward (a bad re-vendor).
    """
    match = _forward(text)
    if match is None:
        raise RuntimeError(f"no `forward . /etc/resolv.conf` in the {origin} Corefile")
    indent = match.indent
    step = step if match.step is None else match.step
    if values.default_block is not None:
        text = with_default_block(text, values.default_block, indent, step)
        match = _forward(text)
        assert match is not None  # (the root forward is kept in place)
    if values.upstream is not None:
        u = values.upstream
        stanzas = render_macro("common/forward.j2", "forward_stanzas", to=list(u.primary), fallback=list(u.fallback),
                               fallback_on=list(u.fallback_on), policy=u.policy,
                               options=merged_options(match.options, u.options, u.unset), indent=indent, step=step)
        text = text[: match.start] + stanzas + text[match.end:]
    for zone in values.zones:
        text += "\n" + render_macro("common/zone.server.j2", "zone_server", zone=zone, indent=indent, step=step)
    for server in values.servers:
        text += "\n" + render_macro("common/zone.server.j2", "server_block", server=server, indent=indent)
    return text
