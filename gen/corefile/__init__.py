"""Corefiles as CoreDNS's own Caddyfile lexer and parser read them (through coredns-gen-corefile),
arranged into a tree with positions on every node.

Public API:
    parse_corefile(text, *, filename, line_offset=0, col_offset=0) -> Corefile
    parse_directives(text, *, filename, …) -> list[Directive]   (an *.override body)
    expand_imports(corefile, resolver) -> Corefile               (snippets + VirtualFS files)
    forwards(block), forward_from(d), forward_zone(d), forward_upstreams(d), is_root_forward(d)
    Corefile.render() / ServerBlock.render() / Directive.render() to re-serialise after edits.
    CorefileError (a GenError, exit 2) for malformed input, with file:line:col.
"""

from gen.corefile.imports import Source, VirtualFS, expand_imports, is_server_import
from gen.corefile.lexer import CorefileError, Token, tokenize
from gen.corefile.tree import (
    Corefile,
    Directive,
    ServerBlock,
    ServerKey,
    Snippet,
    forward_from,
    forward_zone,
    forward_upstreams,
    forwards,
    is_root_forward,
    normalize_zone,
    quote,
    walk_directives,
)
from gen.corefile.parser import expand_env, has_placeholder, parse_corefile, parse_directives

__all__ = [
    "Corefile", "CorefileError", "Directive", "ServerBlock", "ServerKey", "Snippet", "Source", "Token",
    "VirtualFS", "expand_env", "expand_imports", "forward_from", "forward_upstreams", "forward_zone", "forwards",
    "has_placeholder", "is_root_forward", "is_server_import", "normalize_zone", "parse_corefile", "parse_directives",
    "quote", "tokenize", "walk_directives",
]
