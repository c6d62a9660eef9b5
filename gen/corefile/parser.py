"""Parse Corefile text into the tree of gen.corefile.model, refusing what CoreDNS refuses.

The grammar follows coredns/caddy's caddyfile parser (the one CoreDNS links):
- a server block is one or more keys (space or comma separated; a trailing comma continues
  onto the next line) then `{`, directives, `}`; a file holding a single block may omit the braces;
- a directive runs to the end of its line; a `{` on that line opens a nested block that ends
  at the matching `}` (nested blocks may sit on one line, a server block's `}` may not);
- `(name) { … }` defines a snippet; `import PATTERN` (exactly one argument) at the start of a
  line splices a snippet or files, at top level or inside any block;
- `{$VAR}` / `{%VAR%}` placeholders are kept verbatim (CoreDNS substitutes them at load time);
  `expand_env` substitutes them when a caller wants CoreDNS's view.
"""

from __future__ import annotations

import os
import re
from typing import Mapping

from gen.corefile.lexer import CorefileError, Position, Token, tokenize
from gen.corefile.model import Corefile, Directive, ServerBlock, Snippet
from gen.errors import Problem

_ENV = re.compile(r"\{\$([^}]+)\}|\{%([^%]+)%\}")


def expand_env(text: str, env: Mapping[str, str] | None = None) -> str:
    """Substitute `{$VAR}` and `{%VAR%}` as CoreDNS does (unset variables become empty)."""
    source = os.environ if env is None else env
    return _ENV.sub(lambda m: source.get(m.group(1) or m.group(2), ""), text)


def has_placeholder(text: str) -> bool:
    return bool(_ENV.search(text))


class _Parser:
    def __init__(self, tokens: list[Token], pos: Position) -> None:
        self.toks = tokens
        self.pos = pos
        self.i = 0

    # -- helpers ---------------------------------------------------------------------------
    def _err(self, tok: Token, problem: str, hint: str) -> CorefileError:
        return CorefileError(Problem(problem, file=self.pos.filename, line=tok.line, col=tok.col,
                                     key="corefile", hint=hint))

    def _same_line(self, prev: Token, tok: Token) -> bool:
        return tok.raw_line <= prev.raw_end

    def _peek(self) -> Token | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    # -- top level ---------------------------------------------------------------------------
    def corefile(self) -> Corefile:
        cf = Corefile(filename=self.pos.filename)
        seen: dict[str, Snippet] = {}
        while (tok := self._peek()) is not None:
            if tok.text == "import" and not tok.quoted:
                self.i += 1
                cf.items.append(self._directive_rest(tok, server_level=True))
                continue
            item = self._server_block()
            if isinstance(item, Snippet):
                if item.name in seen:
                    raise self._err(tok, f"snippet ({item.name}) is declared twice (first at line {seen[item.name].line})",
                                    "rename one of the snippets or delete the duplicate")
                seen[item.name] = item
            cf.items.append(item)
        return cf

    def _server_block(self) -> ServerBlock | Snippet:
        first = self.toks[self.i]
        keys: list[str] = []
        prev: Token | None = None
        expecting = False
        while (tok := self._peek()) is not None:
            if prev is not None and not expecting and not self._same_line(prev, tok):
                break
            if tok.is_open:
                if expecting:
                    raise self._err(tok, "expected another address after ','", "remove the trailing comma")
                break
            if tok.is_close:
                raise self._err(tok, "unexpected '}' with no matching '{'", "delete it or add the missing '{'")
            text = tok.text
            expecting = text.endswith(",")
            text = text.rstrip(",") if expecting else text
            if text:
                keys.append(text)
            prev = tok
            self.i += 1
        if not keys:
            raise self._err(first, "server block has no address",
                            "start the block with a zone and port, e.g. `.:53 {`")
        tok = self._peek()
        if expecting and tok is None:
            raise self._err(prev or first, "expected another address after ','", "remove the trailing comma")
        snippet = len(keys) == 1 and keys[0].startswith("(") and keys[0].endswith(")")
        if tok is None or not tok.is_open:
            if snippet:
                raise self._err(first, f"snippet {keys[0]} needs a '{{ … }}' body", "add `{` after the name")
            # A file with one server block may omit its braces: the rest of the file is its body.
            body = self._directives(None, server_level=True)
            return ServerBlock(keys, body, first.line, first.col, self.pos.filename)
        self.i += 1
        body, close = self._block(tok, server_level=not snippet)
        if snippet:
            return Snippet(keys[0][1:-1], body, first.line, self.pos.filename, first.col)
        return ServerBlock(keys, body, first.line, first.col, self.pos.filename, close.line)

    # -- blocks ------------------------------------------------------------------------------
    def _block(self, opener: Token, *, server_level: bool) -> tuple[list[Directive], Token]:
        body = self._directives(opener, server_level=server_level)
        close = self._peek()
        if close is None:
            raise self._err(opener, "'{' is never closed", "add the matching '}'")
        self.i += 1
        return body, close

    def _directives(self, opener: Token | None, *, server_level: bool) -> list[Directive]:
        out: list[Directive] = []
        while (tok := self._peek()) is not None:
            if tok.is_close:
                if opener is None:
                    raise self._err(tok, "unexpected '}' with no matching '{'", "delete it or add the missing '{'")
                return out
            if tok.is_open:
                raise self._err(tok, "'{' must follow a directive on the same line",
                                "move the '{' up to the end of the directive's line")
            self.i += 1
            out.append(self._directive_rest(tok, server_level=server_level))
        return out

    def _directive_rest(self, name: Token, *, server_level: bool) -> Directive:
        d = Directive(name.text, [], name.line, name.col, self.pos.filename)
        prev = name
        while (tok := self._peek()) is not None and self._same_line(prev, tok):
            if tok.is_open and d.block is None:
                self.i += 1
                d.block, close = self._block(tok, server_level=False)
                d.end_line = close.line
                prev = close
                continue
            if tok.is_close:
                if server_level:
                    raise self._err(tok, "unexpected '}' on the same line as a directive",
                                    "put the closing '}' on its own line")
                break  # closes the enclosing nested block
            if tok.is_open:
                raise self._err(tok, "a directive can have only one '{ … }' block", "merge the blocks")
            d.args.append(tok.text)
            prev = tok
            self.i += 1
        if d.name == "import":
            if len(d.args) != 1:
                what = "needs a file pattern or snippet name" if not d.args else "takes only one argument"
                raise self._err(name, f"import {what}", "write `import PATTERN` with exactly one glob or snippet name")
            if d.args[0] == "":
                raise self._err(name, "import requires a non-empty file path", "name a file, a glob or a snippet")
            if d.block is not None:
                raise self._err(name, "import cannot have a '{ … }' block", "remove the braces")
        return d


def _position(filename: str, line_offset: int, col_offset: int, fixed_line: int | None) -> Position:
    return Position(filename=filename, line_offset=line_offset, col_offset=col_offset, fixed_line=fixed_line)


def parse_corefile(text: str, *, filename: str, line_offset: int = 0, col_offset: int = 0,
                   fixed_line: int | None = None) -> Corefile:
    """Parse a whole Corefile (server blocks, snippets, top-level imports).

    `line_offset`/`col_offset` shift positions when the text sits inside another file (a
    ConfigMap's literal block); `fixed_line` pins every position to one line (a quoted YAML string).

    Raises:
        CorefileError: malformed input, with the file:line:col of the offending token.
    """
    pos = _position(filename, line_offset, col_offset, fixed_line)
    return _Parser(tokenize(text, pos), pos).corefile()


def parse_directives(text: str, *, filename: str, line_offset: int = 0, col_offset: int = 0,
                     fixed_line: int | None = None) -> list[Directive]:
    """Parse text that CoreDNS splices *inside* a server block (an `*.override` file, a snippet).

    Raises:
        CorefileError: malformed input, with file:line:col.
    """
    pos = _position(filename, line_offset, col_offset, fixed_line)
    parser = _Parser(tokenize(text, pos), pos)
    return parser._directives(None, server_level=True)
