"""Upstream address checks: a malformed IP or port must fail at the values file, not in CoreDNS.

Accepted: `IPv4`, `IPv4:port`, `IPv6`, `[IPv6]:port`; fallbacks may also be an absolute path to a
resolv.conf-style file (CoreDNS `forward` accepts both: plugin/forward/README.md). Each is first lexed with our
Corefile lexer and must be exactly one bare token: `ipaddress` accepts any text after an IPv6
`%zone`, spaces and `#` included, which would add upstreams or comment the line out.
"""

from __future__ import annotations

import functools
import ipaddress
import re
from typing import Any, Iterator

from gen import fluxvars
from gen.corefile.lexer import one_token_problem
from gen.errors import Problem, quote
from gen.schema_errors import key_path, locate

_SAFE_PATH = re.compile(r"/[A-Za-z0-9._/-]+")  # fullmatch: `$` would let a trailing newline through
EXAMPLE = "e.g. 10.0.0.10 or 10.0.0.10:5353"


@functools.lru_cache(maxsize=4096)  # a fleet names the same few resolvers in every file
def split_address(text: str) -> tuple[str, int | None]:
    """Return (ip, port); raise ValueError with a user-facing reason."""
    host, port = text, None
    if "://" in text:  # (forward's tls:// and dns:// prefixes: the port check read `//1.1.1.1` as a port)
        scheme = text.split("://", 1)[0]
        raise ValueError(f"{quote(text)} names a transport ({quote(scheme + '://')}): values list plain DNS upstreams; "
                         "DNS over TLS needs forward's tls options, which no values key says")
    if "%" in text:
        zone_id = text[text.index("%"):].split("]")[0]
        raise ValueError(f"{quote(text)} has an IPv6 zone id ({quote(zone_id, 40)}), which names a network interface "
                         "of one machine, not an address every CoreDNS pod can reach")
    if text.startswith("["):
        if "]" not in text:
            raise ValueError("has an unclosed '['")
        host, rest = text[1:].split("]", 1)
        if not rest:
            # forward's HostPortOrFile reads `[IPv6]` with no port as a file name before CoreDNS 1.14.2
            raise ValueError(f"{quote(text)} has brackets but no port, which CoreDNS before 1.14.2 refuses "
                             "(not an IP address or file)")
        if not rest.startswith(":"):
            raise ValueError("has text after ']'")
        port = _port(rest[1:])
    elif text.count(":") == 1:
        host, p = text.split(":")
        port = _port(p)
    try:
        ipaddress.ip_address(host)
    except ValueError:
        raise ValueError(f"{quote(host)} is not an IP address") from None
    return host, port


def _port(text: str) -> int:
    if not (text.isascii() and text.isdigit()):  # "٥٣" is digits too, and int() takes it
        raise ValueError(f"port {quote(text)} is not a number")
    port = int(text)
    if not 1 <= port <= 65535:
        raise ValueError(f"port {port} is out of range")
    return port


def check_addresses(data: Any, shown: str, reported: set[str] | frozenset[str] = frozenset()) -> Iterator[Problem]:
    """Each upstream as CoreDNS will read it; one with a Flux variable with the variable as a
    placeholder address, as its default and as postBuild.substitute fills it (gen.fluxvars), keys
    in `reported` skipped."""
    inline = fluxvars.inline_values(data)
    lists: list[tuple[list[Any], bool]] = []
    lists.append((["upstream", "resolvers"], False))
    lists.append((["upstream", "fallback"], True))
    zones = data.get("zones")
    for i, _ in enumerate(zones if isinstance(zones, list) else []):
        lists.append((["zones", i, "upstreams"], False))
        lists.append((["zones", i, "fallback"], True))
    for path, files_ok in lists:
        node: Any = data
        for part in path:
            try:
                node = node[part]
            except (KeyError, IndexError, TypeError):
                node = None
                break
        if not isinstance(node, list):
            continue  # the schema reports the wrong type
        for i, item in enumerate(node):
            if not isinstance(item, str) or key_path([*path, i]) in reported:
                continue
            for text in fluxvars.forms(item, "address", inline):
                found = _address_problem(text, files_ok)
                if found is not None:
                    line, col = locate(data, [*path, i])
                    shown_as = found[0] if text == item else f"{found[0]} (as {quote(item)} reads with its Flux variable filled)"
                    yield Problem(shown_as, file=shown, line=line, col=col, key=key_path([*path, i]), hint=found[1])
                    break


def _address_problem(text: str, files_ok: bool) -> tuple[str, str] | None:
    """(problem, fix) for an upstream CoreDNS would not read as one address (or, `files_ok`, a file)."""
    if files_ok and text.startswith("/"):
        if not _SAFE_PATH.fullmatch(text):
            return f"{quote(text)} is not a plain file path", "use an absolute path such as /etc/resolv.conf"
        return None
    try:
        reason = one_token_problem(text)
        if reason is not None:
            raise ValueError(f"{quote(text)} {reason}")
        split_address(text)
    except ValueError as err:
        fix = "use 1–65535, " + EXAMPLE if "out of range" in str(err) else "write an IP address or IP:port, " + EXAMPLE
        if "zone id" in str(err):
            fix = "drop the '%…' part and give the global or unique-local IPv6 address, e.g. fd00::53"
        elif "brackets but no port" in str(err):
            fix = f"add the port, `{text}:53`, or drop the brackets, `{text[1:-1]}`"
        if files_ok:
            fix += ", or a file such as /etc/resolv.conf"
        return str(err), fix
    return None
