"""A `rewrite` rule whose arguments CoreDNS's rewrite setup refuses (too many, too few, a bad type).

The checks follow coredns/coredns plugin/rewrite `newRule`, `newNameRule` and `parseAnswerRules`
(v1.13.1, read, not copied): an optional `continue`/`stop`, a rule type; `class` and `type` take
exactly two arguments; `name` takes FROM TO, or a match type (exact, prefix, suffix, substring,
regex) and FROM TO, then only `answer name|value FROM TO` / `answer auto` groups. `edns0`, `ttl`,
`cname` and `rcode` rules and a rule with both arguments and a block are not judged here.

PASS: `rewrite name regex (.*)\\.corp\\.example {1}.svc.cluster.local answer auto`
FAIL: `rewrite name exact a.example b.example c.example` -> error (exceeded the number of arguments).
"""

from __future__ import annotations

from typing import Iterator

from gen.corefile import Directive
from gen.finding import Finding, Severity
from gen.lint.context import LintContext, at

ID = "rewrite-arguments"
SEVERITY = Severity.ERROR
REFUSES = True  # an error finding means CoreDNS refuses to load the Corefile
MATCH_TYPES = ("exact", "prefix", "suffix", "substring", "regex")
NOT_JUDGED = ("edns0", "ttl", "cname", "rcode")


def _answers(name: str, args: list[str]) -> str | None:
    if len(args) < 2:
        return f"invalid arguments for {name} rule"
    i, last, names, auto = 0, "", 0, False
    while i < len(args):
        if last == "" and args[i] != "answer":
            return f"exceeded the number of arguments for a non-answer rule argument for {name} rule"
        if args[i] == "answer":
            i += 1
        if i == len(args):
            return f"type missing for answer rule for {name} rule"
        last = args[i]
        i += 1
        if last == "auto":
            auto = True
        elif last in ("name", "value"):
            if len(args) - i < 2:
                return f"{last} answer rule for {name} rule: 2 arguments required"
            i += 2
            names += last == "name"
        else:
            return f"invalid type {last!r} for answer rule for {name} rule"
    if auto and names:
        return "auto name answer rule cannot be combined with explicit name anwer rules"
    return None


def _name(args: list[str]) -> str | None:
    if len(args) < 2:
        return "too few arguments for a name rule"
    if len(args) == 2:
        return None
    match = args[0].lower()
    if len(args) > 3:
        found = _answers(match, args[3:])
        if found:
            return found
    if match not in MATCH_TYPES:
        return f"name rule supports only exact, prefix, suffix, substring, and regex name matching, received: {match}"
    return None


def problem(tokens: list[str]) -> str | None:
    """CoreDNS's error for one rewrite rule's tokens, or None when it would accept them."""
    if not tokens:
        return "no rule type specified for rewrite"
    first = tokens[0].lower()
    if first in ("continue", "stop"):
        if len(tokens) < 2:
            return f"{first} rule must begin with a rule type"
        kind, rest, count = tokens[1].lower(), tokens[2:], len(tokens) - 1
    else:
        kind, rest, count = first, tokens[1:], len(tokens)
    if kind == "answer":
        return "response rewrites must begin with a name rule"
    if kind in ("class", "type"):
        return None if count == 3 else f"{kind} rules must have exactly two arguments"
    if kind == "name":
        return _name(rest)
    if kind in NOT_JUDGED:
        return None
    return f"invalid rule type {tokens[0]!r}"


def _tokens(d: Directive) -> list[str] | None:
    if d.block and len(d.args) >= 2:
        return None  # CoreDNS reads such a block differently; not judged
    tokens = list(d.args)
    for sub in d.block or []:
        tokens += [sub.name, *sub.args]
    return tokens


def check(ctx: LintContext) -> Iterator[Finding]:
    for _unit, block in ctx.blocks():
        for d in block.find("rewrite"):
            tokens = _tokens(d)
            found = problem(tokens) if tokens is not None else None
            if found:
                yield at(ID, SEVERITY, d, f"CoreDNS refuses this rewrite rule: {found}",
                         "see coredns.io/plugins/rewrite for the rule's arguments")
