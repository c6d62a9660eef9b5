"""The Corefile tree: server blocks, directives with nested blocks, snippets, top-level imports.

Nodes are plain mutable dataclasses so `verify` can rewrite a forward's upstreams or a listener
port and re-serialise with `render()`. Every node keeps the file, line and column where it was
written (mapped into the file the user gave, e.g. the line inside a ConfigMap YAML), so lint
findings and parse errors point at what a reviewer has to change. Comments are not kept: a
rendered Corefile is equivalent for CoreDNS, not byte-identical.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterator, Union

INDENT = "    "
_NEEDS_QUOTES = re.compile(r'[\s"#]')


def quote(token: str) -> str:
    """Quote a token when CoreDNS's lexer would otherwise split or drop it."""
    if token == "" or _NEEDS_QUOTES.search(token) or token in ("{", "}"):
        return '"' + token.replace('"', '\\"') + '"'
    return token


@dataclass
class Directive:
    """One line of a block: `name args… [{ sub-directives }]` (a plugin, or an option of one)."""

    name: str
    args: list[str]
    line: int
    col: int | None = None
    file: str = ""
    block: list[Directive] | None = None  # None: no braces; []: empty braces
    end_line: int | None = None  # line of the closing brace, when there is a block

    def options(self, name: str) -> list[Directive]:
        """Sub-directives called `name` (e.g. every `next` inside a `forward { … }`)."""
        return [d for d in self.block or [] if d.name == name]

    def option(self, name: str) -> Directive | None:
        found = self.options(name)
        return found[0] if found else None

    def render(self, depth: int = 1) -> str:
        head = INDENT * depth + " ".join(quote(t) for t in [self.name, *self.args])
        if self.block is None:
            return head + "\n"
        body = "".join(d.render(depth + 1) for d in self.block)
        return head + " {\n" + body + INDENT * depth + "}\n"


@dataclass(frozen=True)
class ServerKey:
    """One address of a server block: `[scheme://]zone[:port]`."""

    text: str
    scheme: str
    zone: str
    port: str | None

    @classmethod
    def parse(cls, text: str) -> ServerKey:
        scheme, rest = "dns", text
        if "://" in text:
            scheme, rest = text.split("://", 1)
        zone, port = rest, None
        if rest.startswith("["):  # [::1]:53 style is not a zone CoreDNS serves, keep it intact
            close = rest.find("]")
            if close != -1 and rest[close + 1:close + 2] == ":":
                zone, port = rest[:close + 1], rest[close + 2:]
        elif rest.count(":") == 1:
            zone, port = rest.split(":")
        return cls(text=text, scheme=scheme.lower(), zone=zone or ".", port=port or None)

    def with_port(self, port: int | str) -> str:
        prefix = "" if "://" not in self.text else f"{self.scheme}://"
        return f"{prefix}{self.zone}:{port}"


@dataclass
class ServerBlock:
    """`keys { directives }`: one CoreDNS server (or several sharing a config, one per key)."""

    keys: list[str]
    directives: list[Directive]
    line: int
    col: int | None = None
    file: str = ""
    end_line: int | None = None
    unclosed: bool = False  # its `}` is missing: CoreDNS took a nested block's `}` at the text's end for it

    @property
    def addresses(self) -> list[ServerKey]:
        return [ServerKey.parse(k) for k in self.keys]

    def find(self, name: str) -> list[Directive]:
        """Top-level directives called `name`, in file order."""
        return [d for d in self.directives if d.name == name]

    def has(self, name: str) -> bool:
        return any(d.name == name for d in self.directives)

    def ports(self, default: int = 53) -> list[int | str]:
        """The ports the block listens on (the `-dns.port` default where a key names none)."""
        out: list[int | str] = []
        for key in self.addresses:
            port: int | str = default if key.port is None else key.port
            if isinstance(port, str) and port.isdigit():
                port = int(port)
            out.append(port)
        return out

    def render(self) -> str:
        body = "".join(d.render(1) for d in self.directives)
        return " ".join(quote(k) for k in self.keys) + " {\n" + body + "}\n"


@dataclass
class Snippet:
    """`(name) { … }`: directives spliced wherever `import name` appears."""

    name: str
    directives: list[Directive]
    line: int
    file: str = ""
    col: int | None = None

    def render(self) -> str:
        body = "".join(d.render(1) for d in self.directives)
        return f"({self.name}) {{\n{body}}}\n"


Item = Union[ServerBlock, Snippet, Directive]  # a top-level Directive is always an `import`


@dataclass
class Corefile:
    """A whole Corefile: its top-level items in file order, plus typed views of them."""

    filename: str
    items: list[Item] = field(default_factory=list)

    @property
    def server_blocks(self) -> list[ServerBlock]:
        return [i for i in self.items if isinstance(i, ServerBlock)]

    @property
    def snippets(self) -> dict[str, Snippet]:
        return {i.name: i for i in self.items if isinstance(i, Snippet)}

    @property
    def imports(self) -> list[Directive]:
        """Top-level `import` lines (outside every server block)."""
        return [i for i in self.items if isinstance(i, Directive)]

    def render(self) -> str:
        parts: list[str] = []
        for item in self.items:
            if isinstance(item, Directive):
                parts.append(item.render(0))
            else:
                parts.append(item.render())
        return "".join(parts)

    def walk(self) -> Iterator[tuple[ServerBlock, Directive]]:
        """Every (server block, top-level directive) pair."""
        for block in self.server_blocks:
            for d in block.directives:
                yield block, d


def walk_directives(directives: list[Directive]) -> Iterator[Directive]:
    """Every directive and, depth first, every directive nested in its block."""
    for d in directives:
        yield d
        yield from walk_directives(d.block or [])


def forwards(block: ServerBlock) -> list[Directive]:
    """The block's `forward` directives in the order CoreDNS chains them."""
    return block.find("forward")


def forward_from(d: Directive) -> str:
    """The FROM zone of a forward (`.` for the root forward)."""
    return d.args[0] if d.args else ""


def forward_upstreams(d: Directive) -> list[str]:
    """The TO entries of a forward (IPs, IP:port, `tls://…`, or a resolv.conf-style file)."""
    return list(d.args[1:])


# Transport prefixes CoreDNS strips from a zone (plugin/pkg/parse/transport.go), in its order.
_TRANSPORTS = ("tls://", "dns://", "quic://", "grpc://", "https3://", "https://", "unix://")
_GO_INT = re.compile(r"[+-]?[0-9]+")  # what Go's strconv.Atoi accepts


def normalize_zone(text: str) -> str | None:
    """The zone CoreDNS makes of a forward's FROM (plugin.Host.NormalizeExact): transport prefix
    and a numeric `:port` dropped, lower case, fully qualified; None where CoreDNS refuses it.

    One rule for lint, guard and render alike: `forward .:53`, `forward dns://.` and
    `forward tls://.:853` are all the root forward to CoreDNS, whatever the spelling.
    """
    for prefix in _TRANSPORTS:
        if text.startswith(prefix):
            text = text[len(prefix):]
            break
    colon = text.rfind(":")
    if colon == len(text) - 1:
        return None  # "expecting data after last colon"
    if colon != -1 and _GO_INT.fullmatch(text[colon + 1:]) and abs(int(text[colon + 1:])) < 2**63:
        text = text[:colon]
    if not text or len(text) > 255 or ".." in text or (text.startswith(".") and text != "."):
        return None  # "specified zone is too long" / "zone is not a valid domain name"
    return text.lower() if text.endswith(".") else text.lower() + "."


def forward_zone(d: Directive) -> str | None:
    """The normalised FROM zone of a forward (`.` for the root forward, whatever its spelling)."""
    return normalize_zone(forward_from(d))


def is_root_forward(d: Directive) -> bool:
    return d.name == "forward" and forward_zone(d) == "."
