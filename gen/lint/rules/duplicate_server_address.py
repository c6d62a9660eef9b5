"""Two server blocks may not serve the same zone on the same port: CoreDNS refuses the file.

CoreDNS registers each `transport://zone.:port` once and fails with "cannot serve
dns://.:53 - it is already defined" (core/dnsserver/register.go). The usual way in is a
`coredns-custom` `*.server` key with `.:53 { … }` beside the platform's default block. Zones
compare case-sensitively with a trailing dot added; blocks with `view` (filtered) or disjoint
`bind` addresses may share an address and are left alone.

PASS: `.:53 { … }` and `corp.example:53 { … }`
FAIL: `.:53 { … }` twice (or a `.server` key holding `.:53 { … }`) -> error at the second block.
"""

from __future__ import annotations

from typing import Iterator

from gen.corefile import ServerBlock
from gen.finding import Finding, Severity
from gen.lint.context import LintContext, at

ID = "duplicate-server-address"
SEVERITY = Severity.ERROR
REFUSES = True  # an error finding means CoreDNS refuses to load the Corefile
DEFAULT_PORTS = {"dns": "53", "tls": "853", "quic": "853", "grpc": "443", "https": "443", "https3": "443"}


def _hosts(block: ServerBlock) -> set[str]:
    return {a for d in block.find("bind") for a in d.args} or {"*"}


def check(ctx: LintContext) -> Iterator[Finding]:
    for unit in ctx.units:
        if unit.in_main:
            continue
        seen: dict[tuple[str, str, str], tuple[ServerBlock, set[str]]] = {}
        for block in unit.effective.server_blocks:
            if block.has("view"):
                continue
            hosts = _hosts(block)
            for key in block.addresses:
                zone = key.zone if key.zone.endswith(".") else key.zone + "."
                addr = (key.scheme, zone, key.port or DEFAULT_PORTS.get(key.scheme, "53"))
                if addr in seen and (seen[addr][1] & hosts or "*" in seen[addr][1] | hosts):
                    first = seen[addr][0]
                    where = "" if first.file == block.file else f" of {first.file}"
                    text = f"{addr[0]}://{addr[1]}:{addr[2]}"
                    yield at(ID, SEVERITY, block, f"`{key.text}` is already served by the block at line {first.line}"
                             f"{where}; CoreDNS refuses the file (cannot serve {text} - it is already defined)",
                             "merge the two blocks, or serve a narrower zone (e.g. `corp.example:53 { … }`)")
                    continue
                seen.setdefault(addr, (block, hosts))
