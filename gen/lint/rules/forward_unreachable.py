"""A forward for a zone the forward before it already covers, with no `next`, never runs.

Forwards chain in file order; the first one answers every query for its zone and only hands on
through `next` (coredns/coredns plugin/forward/README.md). A second root `forward .` after one without `next` is dead config
— typically an AKS/k3s `.override` placed after the platform's own `forward . /etc/resolv.conf`.

PASS: `forward . 10.0.0.1 { next SERVFAIL }` then `forward . /etc/resolv.conf`
FAIL: `forward . 10.0.0.1` then `forward . /etc/resolv.conf` -> error at the second forward.
"""

from __future__ import annotations

from typing import Iterator

from gen.corefile import Directive, forward_from, forward_zone, forwards
from gen.finding import Finding, Severity
from gen.lint.context import LintContext, at
from gen.lint.option_releases import MULTIPLE_FORWARD

ID = "forward-unreachable"
SEVERITY = Severity.ERROR
REFUSES = False  # CoreDNS loads it; the config just does not do what it says


def _zone(d: Directive) -> str:
    return forward_zone(d) or forward_from(d)  # (a FROM CoreDNS refuses covers nothing else)


def _covers(outer: str, inner: str) -> bool:
    return outer == "." or inner == outer or inner.endswith("." + outer)


def check(ctx: LintContext) -> Iterator[Finding]:
    if ctx.version < MULTIPLE_FORWARD:
        return  # forward-multiple-unsupported refuses the block outright
    for _unit, block in ctx.blocks():
        fwds = forwards(block)
        for prev, fwd in zip(fwds, fwds[1:], strict=False):
            if prev.option("next") or prev.option("except") or not _covers(_zone(prev), _zone(fwd)):
                continue
            where = "" if prev.file == fwd.file else f" of {prev.file}"
            yield at(ID, SEVERITY, fwd, f"this `forward {forward_from(fwd)}` is never reached: the forward at "
                     f"line {prev.line}{where} answers every query for `{forward_from(prev)}` and has no `next`",
                     f"add `next SERVFAIL REFUSED` to the forward at line {prev.line}, or merge the upstreams")
