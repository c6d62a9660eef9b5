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

from gen.spec import Values
from gen.templating import render_macro

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


def merged_options(stock: tuple[str, ...], ours: tuple[str, ...]) -> list[str]:
    """The stock forward's options, each replaced by the values' option of the same name, then the
    values' other options (a platform's own limit stays unless the values set that option)."""
    named = {o.split()[0] for o in ours}
    return [o for o in stock if o.split()[0] not in named] + list(ours)


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
    if values.upstream is not None:
        u = values.upstream
        stanzas = render_macro("common/forward.j2", "forward_stanzas", to=list(u.primary), fallback=list(u.fallback),
                               fallback_on=list(u.fallback_on), policy="sequential", options=merged_options(match.options, u.options),
                               indent=indent, step=step)
        text = text[: match.start] + stanzas + text[match.end:]
    for zone in values.zones:
        text += "\n" + render_macro("common/zone.server.j2", "zone_server", zone=zone, indent=indent, step=step)
    return text
