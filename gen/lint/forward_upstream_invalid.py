"""Every upstream of a `forward` must be an IP address (with an optional port) or a file CoreDNS can read.

forward's setup reads each TO with plugin/pkg/parse.HostPortOrFile: after a `dns://`/`tls://`
prefix it splits host and port as Go's net.SplitHostPort does and wants an IP address; anything
else is taken for a resolv.conf-style file, and a file that is not there ends the start-up with
"not an IP address or file". So a host name (`tls://dns.example`), a placeholder left in
(`<my-dns-server>`) and a bracketed IPv6 address without a port (`tls://[2606:4700::1111]`) are
refused. A TO naming a path (it has a `/`) is a file on the node or in the pod: nothing here can
see it, so it is left to `lint --load` and the cluster.

PASS: `forward . tls://1.1.1.1 [2606:4700::1111]:53 2606:4700::1001 /etc/resolv.conf`
FAIL: `forward . tls://dns.google` or `forward . tls://[2606:4700::1111]` -> error at the forward.
"""

from __future__ import annotations

import ipaddress
from typing import Iterator

from gen import fluxvars
from gen.corefile import forward_upstreams, forwards, has_placeholder
from gen.finding import Finding, Severity
from gen.lint.context import LintContext, at

ID = "forward-upstream-invalid"
SEVERITY = Severity.ERROR
REFUSES = True  # an error finding means CoreDNS refuses to load the Corefile
_SCHEMES = ("dns://", "tls://")  # the transports forward speaks in every release lint knows


def _ip(text: str) -> bool:
    """Go's net.ParseIP after parse.stripZone (an IPv6 zone `%eth0` dropped)."""
    text = text.split("%", 1)[0]
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def _split_host_port(text: str) -> str | None:
    """The host of Go's net.SplitHostPort(text), None where it returns an error."""
    colon = text.rfind(":")
    if colon < 0:
        return None  # missing port in address
    if text.startswith("["):
        end = text.find("]")
        if end < 0 or end + 1 != colon:
            return None  # missing ']' / missing port / too many colons
        host = text[1:end]
    else:
        host = text[:colon]
        if ":" in host:
            return None  # too many colons in address
    if any(c in text[colon + 1:] or c in host for c in "[]"):
        return None
    return host


def refused(to: str) -> bool:
    """Whether HostPortOrFile refuses `to` wherever CoreDNS runs (a path is never judged here)."""
    rest = to
    for scheme in _SCHEMES:
        if to.startswith(scheme):
            rest = to[len(scheme):]
            break
    else:
        if "://" in to:
            return False  # another transport: its own setup rules on it
    if not rest:
        return True  # "invalid address"
    host = _split_host_port(rest)
    address = rest if host is None else host
    if _ip(address):
        return False
    return "/" not in rest  # not an IP: a file, and a bare name is no file in CoreDNS's working directory


def _as_filled(to: str) -> list[str]:
    """`to` as CoreDNS may see it after Flux's postBuild: each `${NAME:=default}` by its default,
    and each variable by a placeholder address (gen/fluxvars.py judges values the same two ways)."""
    if not fluxvars.has_variables(to):
        return [to]
    placeholder = fluxvars.PLACEHOLDER["address"]
    return [fluxvars.VAR.sub(lambda m: m.group(2) if m.group(2) is not None else placeholder, to),
            fluxvars.VAR.sub(placeholder, to)]


def check(ctx: LintContext) -> Iterator[Finding]:
    for _unit, block in ctx.blocks():
        for fwd in forwards(block):
            for to in forward_upstreams(fwd):
                if has_placeholder(to) or not any(refused(filled) for filled in _as_filled(to)):
                    continue
                bracket = to.rstrip("]").endswith("]") or (to.split("://")[-1].startswith("[") and to.endswith("]"))
                hint = (f"add the port: `{to}:{853 if to.startswith('tls://') else 53}`" if bracket else
                        "write the upstream's IP address (CoreDNS does not resolve host names here; with "
                        "`tls://` put the name in `tls_servername`)")
                yield at(ID, SEVERITY, fwd, f"CoreDNS refuses upstream `{to}`: not an IP address or file "
                         "(plugin/forward)", hint)
