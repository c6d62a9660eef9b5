"""Every upstream of a `forward` must be an IP address (with an optional port) or a file CoreDNS can read.

forward's setup reads its TOs with plugin/pkg/parse.HostPortOrFile, and so does this rule: the
function itself, linked into coredns-gen-helper from the coredns/coredns module and asked about
every TO of a lint run in one round trip (gen/corefile/upstreams.py). Whatever is not an IP
address (after a transport prefix such as `tls://`, with an optional port) is taken for a
resolv.conf-style file, and one that is not there ends the start-up with "not an IP address or
file". So a host name (`tls://dns.example`, `quic://dns.example`), a placeholder left in
(`<my-dns-server>`) and, before CoreDNS 1.14.2, a bracketed IPv6 address without a port
(`tls://[2606:4700::1111]`) are refused. A bare word is judged as CoreDNS sees it from its
working directory: no such file. A TO it would read as a file named with a `/` is on the node or
in the pod: nothing here can see it, so it is left to `lint --load` and the cluster.

The helper links HostPortOrFile of one release (gen/lint/option_releases.py HOSTPORT_LINKED), whose
refusals every release from 1.6.9 to 1.14.1 shares (plugin/pkg/parse/host.go read at each tag;
net.ParseIP is the Go the helper is built with: releases built with Go before 1.17 also took
IPv4 octets with leading zeros). From 1.14.2 HostPortOrFile strips the brackets of an address
that has no port before reading it as an IP (HOSTPORT_TRIMS_BRACKETS): for those releases a
bracketed TO the linked function refuses is not judged here (info), and `lint --load` with that
release decides.

PASS: `forward . tls://1.1.1.1 [2606:4700::1111]:53 2606:4700::1001 /etc/resolv.conf`
FAIL: `forward . tls://dns.google` or (CoreDNS 1.13.1) `forward . tls://[2606:4700::1111]` -> error at the forward.
"""

from __future__ import annotations

from typing import Iterator

from gen import fluxvars
from gen.corefile import forward_upstreams, forwards, has_placeholder
from gen.corefile.tree import Directive
from gen.corefile.upstreams import Judged, judge
from gen.finding import Finding, Severity
from gen.lint.context import LintContext, at
from gen.lint.option_releases import HOSTPORT_LINKED, HOSTPORT_TRIMS_BRACKETS

ID = "forward-upstream-invalid"
SEVERITY = Severity.ERROR
REFUSES = True  # an error finding means CoreDNS refuses to load the Corefile


def _as_filled(to: str) -> list[str]:
    """`to` as CoreDNS may see it after Flux's postBuild: each `${NAME:=default}` by its default,
    and each variable by a placeholder address (gen/fluxvars.py judges values the same two ways)."""
    if not fluxvars.has_variables(to):
        return [to]
    placeholder = fluxvars.PLACEHOLDER["address"]
    return [fluxvars.VAR.sub(lambda m: m.group(2) if m.group(2) is not None else placeholder, to),
            fluxvars.VAR.sub(placeholder, to)]


def _bracketed(to: str) -> bool:
    return "[" in to or "]" in to


def check(ctx: LintContext) -> Iterator[Finding]:
    asked: list[tuple[Directive, str, list[str]]] = [
        (fwd, to, _as_filled(to)) for _unit, block in ctx.blocks() for fwd in forwards(block)
        for to in forward_upstreams(fwd) if not has_placeholder(to)]
    if not asked:
        return
    verdicts = judge([form for _fwd, _to, filled in asked for form in filled])
    trims = ctx.version >= HOSTPORT_TRIMS_BRACKETS
    for fwd, to, filled in asked:
        refusal: Judged | None = next((verdicts[f] for f in filled if verdicts[f].verdict == "refused"), None)
        if refusal is None:
            continue
        if trims and _bracketed(to):
            yield at(ID, Severity.INFO, fwd, f"upstream `{to}` was not judged: {ctx.where()} reads a bracketed "
                     f"address without a port differently from the CoreDNS {HOSTPORT_LINKED} HostPortOrFile lint runs",
                     f"run `coredns-gen lint --load` with CoreDNS {ctx.version}, or write the port: `{_with_port(to)}`")
            continue
        bracket = to.rstrip("]").endswith("]") or (to.split("://")[-1].startswith("[") and to.endswith("]"))
        hint = (f"add the port: `{_with_port(to)}`" if bracket else
                "write the upstream's IP address (CoreDNS does not resolve host names here; with "
                "`tls://` put the name in `tls_servername`)")
        yield at(ID, SEVERITY, fwd, f"CoreDNS refuses upstream `{to}`: {refusal.error} (plugin/forward)", hint)


def _with_port(to: str) -> str:
    return f"{to}:{853 if to.startswith('tls://') else 53}"
