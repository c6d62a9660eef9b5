"""Wiring point 7: CoreDNS listens on port 53.

Fragments name their listeners `zone:53`; they join an existing port-53 server only if the
main Corefile has one and the process was not started with another `-dns.port`.

The root zone must stay on 53 too: with `.:5353 { … }` beside `corp.example:53 { … }` a
port-53 listener exists (fragments join it), but it answers only corp.example, so the pods'
queries for every other name go unanswered.

PASS: `.:53 { … }`, container args `-conf /etc/coredns/Corefile`.
FAIL: `.:5353 { … }`, or args `-dns.port 1053` -> error at that line; `.:5353 { … }` while
`corp.example:53 { … }` listens on 53 -> error at the root block.
"""

from __future__ import annotations

from typing import Iterator

from gen.finding import Finding, Severity
from gen.lint.context import LintContext
from gen.lint.wiring import dns_port_flag, line, wirings

ID = "wiring-port-53"
SEVERITY = Severity.ERROR
REFUSES = False  # about the cluster wiring, not the Corefile syntax


def check(ctx: LintContext) -> Iterator[Finding]:
    for w in wirings(ctx):
        default = 53
        flag = dns_port_flag(w.container) if w.container is not None else None
        if flag is not None and flag != "53":
            key = "args" if "args" in w.container else "command"
            yield Finding(ID, SEVERITY, w.file, line(w.container, key),
                          f"CoreDNS runs with -dns.port {flag}; the contract needs port 53",
                          "remove -dns.port from the container args")
            default = int(flag) if flag.isdigit() else 0
        if w.main_corefile is None:
            continue
        blocks = w.main_corefile.server_blocks
        ports = [p for b in blocks for p in b.ports(default=default)]
        if any(isinstance(p, str) for p in ports):
            continue  # a `{$PORT}` placeholder: only the running CoreDNS knows
        if blocks and 53 not in ports:
            first = blocks[0]
            yield Finding(ID, SEVERITY, first.file, first.line,
                          f"no server block of the main Corefile listens on 53 ({' '.join(first.keys)})",
                          "listen on 53, e.g. `.:53 {`")
            continue
        root = [(b, k) for b in blocks for k in b.addresses if k.zone == "." and k.scheme == "dns"]
        if root and not any((default if k.port is None else k.port) in (53, "53") for _, k in root):
            block, address = root[0]
            on_53 = sorted({k.text for b in blocks for k in b.addresses if (default if k.port is None else k.port) in (53, "53")})
            yield Finding(ID, SEVERITY, block.file, block.line,
                          f"the root zone listens on {address.text}, not on 53, while {', '.join(on_53)} still listens on 53: "
                          "port 53 answers only those zones, so the pods' other queries go unanswered",
                          "move the root block back to 53, e.g. `.:53 {`")
