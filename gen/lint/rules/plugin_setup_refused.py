"""Every plugin's options must be accepted by the plugin's own setup, or CoreDNS refuses the Corefile.

A plugin reads its options in its setup function, and an error there ends the start-up
(`plugin/cache: … Wrong argument count`, `plugin/forward: 'quic' is not supported as a
destination protocol in forward`). This rule runs those functions themselves: coredns-gen-helper
links them from the coredns/coredns module (gen/lint/option_releases.py SETUP_LINKED) and runs each on
the directive's tokens, every occurrence of a plugin in a server block at once, as CoreDNS does
(gen/corefile/setups.py). Only plugins whose setup reads nothing but its tokens are linked
(tools/helper/setup); a plugin that reads files, interfaces, credentials or the cluster API
(`kubernetes`, `tls`, `bind`, …), a `forward`/`grpc`/`etcd` whose `tls` option names files, a
directive with a placeholder and a custom build's plugin are not judged here (`lint --load`);
`file` and `etcd` are judged with stand-ins for their zone file and endpoints (tools/helper/setup).
Each server block's keys are read by CoreDNS's own InspectServerBlocks the same way, before any
plugin (`.example.org:53`, an empty label, is refused at start-up).

A refusal another refusing rule already explains inside the same directive (forward's unknown
option, an upstream HostPortOrFile refuses, a second `cache`) is said once, by that rule
(`unexplained`, which lint runs on every rule's findings).

The verdict is the linked release's: at that release a refusal is an error. Another release's
setup may read the same options differently (a newer option, a dropped one), so there the
refusal is said (info), not judged: `lint --load` with that release decides.

PASS: `.:53 { cache 30 { prefetch 10 1m 10% } health { lameduck 5s } forward . tls://1.1.1.1 }`
FAIL (CoreDNS 1.13.1): `forward . quic://1.1.1.1`, `cache 30 { bogus }` or `reload 1s` -> error at the plugin;
`.example.org:53 { … }` -> error at the server block.
"""

from __future__ import annotations

import re
from typing import Iterator

from gen import fluxvars
from gen.corefile import ServerBlock, has_placeholder, quote
from gen.corefile.tree import Directive, walk_directives
from gen.corefile.setups import SetupAsk, judge
from gen.finding import Finding, Severity
from gen.lint.context import LintContext, at
from gen.lint.option_releases import SETUP_LINKED

ID = "plugin-setup-refused"
SEVERITY = Severity.ERROR
REFUSES = True  # an error finding means CoreDNS refuses to load the Corefile
FILE_TLS = frozenset({"forward", "grpc", "etcd"})  # their `tls CERT KEY CA` option reads files: not judged
_AT_LINE = re.compile(r"\bCorefile:(\d+) - ")


def _unjudgeable(d: Directive) -> bool:
    tokens = [t for x in [d, *walk_directives(d.block or [])] for t in (x.name, *x.args)]
    if any(has_placeholder(t) or fluxvars.has_variables(t) for t in tokens):
        return True
    return d.name in FILE_TLS and any(o.name == "tls" and o.args for o in d.block or [])


def _render(d: Directive, lines: list[Directive]) -> str:
    """`d` as CoreDNS's lexer reads it; lines[i] is the node written at rendered line i+1."""
    lines.append(d)
    head = " ".join(quote(t) for t in [d.name, *d.args])
    if d.block is None:
        return head + "\n"
    body = "".join(_render(o, lines) for o in d.block)
    lines.append(d)
    return head + " {\n" + body + "}\n"


def _asks(ctx: LintContext) -> Iterator[tuple[ServerBlock, list[Directive], SetupAsk, list[Directive]]]:
    for _unit, block in ctx.blocks():
        if not any(has_placeholder(k) or fluxvars.has_variables(k) for k in block.keys):
            yield block, [], SetupAsk("", "", tuple(block.keys)), []  # the keys alone: no plugin
        by_name: dict[str, list[Directive]] = {}
        for d in block.directives:
            if d.name not in ctx.plugins:
                by_name.setdefault(d.name, []).append(d)
        for name, found in by_name.items():
            if any(_unjudgeable(d) for d in found):
                continue
            lines: list[Directive] = []
            text = "".join(_render(d, lines) for d in found)
            yield block, found, SetupAsk(name, text, tuple(block.keys)), lines


def _spans(found: list[Directive]) -> str:
    return ",".join(f"{d.line}-{d.end_line or d.line}" for d in found)


def unexplained(findings: set[Finding], refusing: set[str]) -> set[Finding]:
    """`findings` without this rule's findings that another refusing rule's error inside the same
    directives (same file, a line of their spans) already says."""
    def said(f: Finding) -> bool:
        spans = [tuple(int(n) for n in s.split("-")) for s in f.details.get("spans", "").split(",") if s]
        return any(o.rule != ID and o.rule in refusing and o.severity is Severity.ERROR and o.file == f.file
                   and any(lo <= o.line <= hi for lo, hi in spans) for o in findings)
    return {f for f in findings if f.rule != ID or not said(f)}


def check(ctx: LintContext) -> Iterator[Finding]:
    asked = list(_asks(ctx))
    if not asked:
        return
    for (block, found, ask, lines), judged in zip(asked, judge([a for _b, _d, a, _l in asked]), strict=True):
        if judged.verdict != "refused":
            continue
        if not found:
            finding = at(ID, SEVERITY if ctx.version == SETUP_LINKED else Severity.INFO, block,
                         f"CoreDNS refuses the server block's keys {', '.join(block.keys)}: {judged.error}",
                         "write each key as [SCHEME://]ZONE[:PORT], ZONE a domain name without empty labels "
                         "(`example.org:53`, not `.example.org:53`)")
            finding.details.update(plugin="", spans=f"{block.line}-{block.line}")
            yield finding
            continue
        node, error = found[0], judged.error
        m = _AT_LINE.search(error)
        if m and 1 <= int(m[1]) <= len(lines):
            node = lines[int(m[1]) - 1]
        error = _AT_LINE.sub("", error)
        if ctx.version == SETUP_LINKED:
            finding = at(ID, SEVERITY, node, f"CoreDNS refuses `{ask.plugin}` here: {error}",
                         f"correct the `{ask.plugin}` options (coredns.io/plugins/{ask.plugin})")
        else:
            finding = at(ID, Severity.INFO, node, f"`{ask.plugin}` was not judged for {ctx.where()}: the setup of "
                         f"CoreDNS {SETUP_LINKED}, which lint runs, refuses it: {error}",
                         f"run `coredns-gen lint --load` with CoreDNS {ctx.version}")
        finding.details.update(plugin=ask.plugin, spans=_spans(found))
        yield finding
