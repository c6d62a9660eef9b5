"""Values that reach a Corefile must lex as exactly the tokens they stand for.

A value is written into Corefile text as it is, so whatever CoreDNS's lexer would make of it is
what CoreDNS runs: a space in an upstream adds a second upstream, a `#` comments the rest of the
line out, a `}` after a comment sign is no brace while one before it ends the default server
block. So each value is lexed with our own Corefile lexer (the one `lint` uses) and compared
with what it is meant to be: a zone, a cluster domain and an upstream are one bare token; an
override is a sequence of whole directive lines whose braces balance as the lexer sees them.
Limits CoreDNS enforces when it loads the file (name lengths, 15 upstreams per forward) are
checked here too, so they fail at the value's line instead of in the cluster.
(Addresses are lexed in gen.render.addresses, where their syntax is checked.)
"""

from __future__ import annotations

import functools
from typing import Any, Iterator, Sequence

from gen import fluxvars
from gen.corefile.lexer import CorefileError, Position, one_token_problem, tokenize
from gen.corefile.tree import walk_directives
from gen.corefile.parser import parse_directives
from gen.errors import Problem, quote
from gen.schema_errors import key_path, locate

MAX_UPSTREAMS = 15  # `const max = 15` in plugin/forward/setup.go: "more than 15 TOs configured"
MAX_NAME = 253  # 255 octets on the wire: the longest name dns.IsDomainName accepts, in text
MAX_LABEL = 63


def _strings(node: Any) -> list[str] | None:
    return node if isinstance(node, list) and all(isinstance(x, str) for x in node) else None


def _get(data: Any, *path: Any) -> Any:
    for part in path:
        if isinstance(data, dict) and isinstance(part, str):
            data = data.get(part)
        elif isinstance(data, list) and isinstance(part, int) and part < len(data):
            data = data[part]
        else:
            return None
    return data


def name_problem(name: str) -> str | None:
    """Why a zone name is too long for DNS (CoreDNS refuses the server block or the forward)."""
    bare = name.rstrip(".")
    if len(bare) > MAX_NAME:
        return (f"is longer than a DNS name can be: at most {MAX_NAME} characters (255 octets on the wire); no query can "
                "reach a longer zone, and from 255 characters CoreDNS refuses the file (\"specified zone is too long\")")
    for label in bare.split("."):
        if len(label) > MAX_LABEL:
            return f"has a label of {len(label)} characters; DNS labels have at most {MAX_LABEL}"
    return None


@functools.lru_cache(maxsize=1024)  # a fleet repeats the same few overrides
def override_verdict(lines: tuple[str, ...]) -> tuple[tuple[int | None, str, str], ...]:
    return tuple(override_problems(lines))


def override_problems(lines: Sequence[str]) -> Iterator[tuple[int | None, str, str]]:
    """(line index or None for the whole list, problem, fix) for override lines (or a zone's extra
    lines) that would not stay inside their server block as the directives they read as."""
    text = "\n".join(lines)
    pos = Position("override")
    try:
        tokens = tokenize(text, pos)
    except CorefileError as err:
        yield (err.problems[0].line or 1) - 1, "opens a '\"' it never closes, which would swallow the rest of the Corefile", \
            'close the quoted text on the same line with `"`'
        return
    depth = 0
    commented = any("#" in line and ("{" in line or "}" in line) for line in lines)
    seen = " (as CoreDNS reads the lines: text after '#' is a comment)" if commented else ""
    for tok in tokens:
        if tok.raw_end != tok.raw_line:
            yield tok.raw_line - 1, "opens a quoted token that runs onto the next line", 'close the `"` on the same line'
            return
        depth += tok.is_open - tok.is_close
        if depth < 0:
            yield (tok.raw_line - 1, "closes a block it did not open" + seen + ", which would end the default server block "
                   "early (Corefile injection)", "remove the stray '}'")
            return
    if depth:
        yield None, f"leaves {depth} block(s) open{seen}", "close every '{' with a '}' line inside the same override"
        return
    try:
        directives = parse_directives(text, filename="override")
    except CorefileError as err:
        problem = err.problems[0]
        yield (problem.line or 1) - 1, problem.problem, problem.hint or "write one directive per line"
        return
    for d in walk_directives(directives):
        if d.name == "import":  # the override glob itself: "maximum file import depth exceeded"; *.server: blocks in a block
            yield (d.line - 1, f"`import {' '.join(d.args)}` inside an override splices files CoreDNS reads at load time, which "
                   "the render cannot prove (the override glob imports itself until CoreDNS gives up)",
                   "write the directives themselves in the override's lines")
        elif d.name.startswith("(") and d.name.endswith(")"):
            yield (d.line - 1, f"{d.name} looks like a snippet definition, which CoreDNS does not allow inside a server block "
                   "(it would read an unknown directive)", "write the directives themselves in the override's lines")


def check(data: Any, shown: str, reported: set[str]) -> Iterator[Problem]:
    """Every Corefile-bound value that the schema did not already refuse (its key in `reported`)."""

    def at(path: list[Any], problem: str, hint: str) -> Problem:
        line, col = locate(data, path)
        return Problem(problem, file=shown, line=line, col=col, key=key_path(path), hint=hint)

    inline = fluxvars.inline_values(data)
    names: list[list[Any]] = [["clusterDomain"]]
    forwards: list[tuple[list[Any], list[Any]]] = [(["upstream", "resolvers"], ["upstream", "fallback"])]
    zones = _get(data, "zones")
    for i in range(len(zones) if isinstance(zones, list) else 0):
        names.append(["zones", i, "zone"])
        forwards.append((["zones", i, "upstreams"], ["zones", i, "fallback"]))
    for path in names:
        value = _get(data, *path)
        if not isinstance(value, str) or key_path(path) in reported:
            continue
        for form in fluxvars.forms(value, "zone", inline):
            shown_as = quote(value) if form == value else f"{quote(value)} (read with its Flux variable as {quote(form)})"
            reason = one_token_problem(form)
            if reason:
                yield at(path, f"{shown_as} {reason}", "use dot-separated labels, e.g. corp.example.com")
                break
            if reason := name_problem(form):
                yield at(path, f"{shown_as} {reason}", f"shorten it: at most {MAX_NAME} characters, {MAX_LABEL} between dots")
                break
    for to_path, fallback_path in forwards:
        to, fallback = _strings(_get(data, *to_path)), _get(data, *fallback_path)
        kept = to_path[0] == "upstream" and _get(data, "upstream", "resolvConf") is True
        if to is None:
            if not kept:
                continue
            to = []
        if fallback_path[0] == "upstream" and fallback is None and not kept:
            fallback = ["/etc/resolv.conf"]  # the default fallback shares the first forward
        count = len(to) + kept + len(_strings(fallback) or [])
        if count > MAX_UPSTREAMS:
            yield at(to_path, f"the forward would list {count} upstreams ({len(to) + kept} here + {count - len(to) - kept} fallback); "
                     f"CoreDNS allows at most {MAX_UPSTREAMS} in one forward (\"more than {MAX_UPSTREAMS} TOs configured\")",
                     f"list at most {MAX_UPSTREAMS} together with the fallback, which shares this forward")
    overrides = _get(data, "overrides")
    blocks: list[list[Any]] = [["overrides", i] for i in range(len(overrides) if isinstance(overrides, list) else 0)]
    blocks += [["zones", i] for i in range(len(zones) if isinstance(zones, list) else 0)]
    blocks += [["defaultBlock"]] if isinstance(_get(data, "defaultBlock"), dict) else []
    servers = _get(data, "servers")
    blocks += [["servers", i] for i in range(len(servers) if isinstance(servers, list) else 0)]
    for where in blocks:
        lines = _strings(_get(data, *where, "lines"))
        if lines is None or any(key_path([*where, "lines", j]) in reported for j in range(len(lines))):
            continue
        for judged in _line_forms(lines, inline):
            found = override_verdict(judged)
            for j, problem, hint in found:
                yield at([*where, "lines"] + ([] if j is None else [j]), problem, hint)
            if found:
                break


def _line_forms(lines: list[str], inline: dict[str, str]) -> list[tuple[str, ...]]:
    """The lines as judged: as written, or with each Flux variable as a placeholder word, as its
    default, and as postBuild.substitute fills it."""
    if not any("${" in line for line in lines):
        return [tuple(lines)]
    out: list[tuple[str, ...]] = []
    for defaults, values in ((False, None), (True, None), (True, inline)):
        judged = tuple(fluxvars.substituted(line, "line", defaults=defaults, inline=values) for line in lines)
        if judged not in out:
            out.append(judged)
    return out
