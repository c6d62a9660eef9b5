"""Parse Corefile text into the tree of gen.corefile.tree, refusing what CoreDNS refuses.

CoreDNS's own lexer and parser decide (gen.corefile.helper): the tokens are its lexer's, a text
its parser refuses is refused with its own message, and the tree built here is checked against
the server blocks and directive tokens its parser returned (a difference is a bug here, never a
verdict). The tree adds what CoreDNS's parser does not keep: directive order, nesting, snippets
and `import` lines where they were written. Its grammar follows coredns/caddy's caddyfile parser:
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

from gen.corefile.helper import INSIDE_KEY, Reading, read
from gen.corefile.lexer import CorefileError, Position, Token, tokenize
from gen.corefile.tree import Corefile, Directive, ServerBlock, Snippet
from gen.errors import Problem

_ENV = re.compile(r"\{\$([^}]+)\}|\{%([^%]+)%\}")


def expand_env(text: str, env: Mapping[str, str] | None = None) -> str:
    """Substitute `{$VAR}` and `{%VAR%}` as CoreDNS does (unset variables become empty)."""
    source = os.environ if env is None else env
    return _ENV.sub(lambda m: source.get(m.group(1) or m.group(2), ""), text)


def has_placeholder(text: str) -> bool:
    return bool(_ENV.search(text))


class _Parser:
    def __init__(self, tokens: list[Token], pos: Position, *, accepted: bool = False) -> None:
        self.toks = tokens
        self.pos = pos
        self.i = 0
        self.accepted = accepted  # CoreDNS's parser accepted this text (its verdict, not ours)
        self.left_open: Token | None = None  # the server block's `{` CoreDNS closed with a nested `}`

    # -- helpers ---------------------------------------------------------------------------
    def _err(self, tok: Token, problem: str, hint: str) -> CorefileError:
        return CorefileError(Problem(problem, file=self.pos.filename, line=tok.line, col=tok.col,
                                     key="corefile", hint=hint))

    def _glued(self, key: Token) -> CorefileError:
        """`example.com{`: CoreDNS's lexer splits words on spaces only, so the brace is part of
        the key; CoreDNS starts serving the zone `example.com{.`, which no query matches, with
        the rest of the file as that block's body (measured in 1.13.1 and 1.11.3)."""
        zone = key.text[:-1]
        col = None if key.col is None else key.col + len(key.text) - 1
        return CorefileError(Problem(
            f"the '{{' is glued to `{zone}`: CoreDNS reads `{key.text}` as the server block's key (a zone "
            f"no query matches) and opens no block", file=self.pos.filename, line=key.line, col=col,
            key="corefile", hint=f"put a space before the brace: `{zone} {{`"))

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
            if len(text) > 1 and text.endswith("{"):
                raise self._glued(tok)
            if text:  # (CoreDNS: one trailing comma continues the keys; `a.org,,` keeps `a.org,`; `,` is a key "")
                expecting = text.endswith(",")
                keys.append(text[:-1] if expecting else text)
            else:
                expecting = False
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
        return ServerBlock(keys, body, first.line, first.col, self.pos.filename, close.line,
                           unclosed=self.left_open is tok)

    # -- blocks ------------------------------------------------------------------------------
    def _block(self, opener: Token, *, server_level: bool) -> tuple[list[Directive], Token]:
        body = self._directives(opener, server_level=server_level)
        close = self._peek()
        if close is None and server_level and self.accepted and self.toks[self.i - 1].is_close:
            # caddyfile's closeCurlyBrace checks the token it stands on: at the end of the text
            # that is the last one read, so a server block left open after a nested block's `}`
            # is accepted by CoreDNS, closed by that `}` (coredns/caddy caddyfile/parse.go).
            self.left_open = opener
            return body, self.toks[self.i - 1]
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


_MESSAGE = re.compile(r"^(?:.*?):(\d+) - (?:Error during parsing: )?(.*)$", re.S)
# Errors about files an `import` names: the files are the caller's (gen.corefile.imports reads
# them from the ConfigMap's keys), not this text's syntax; the helper resolves imports nowhere.
_ELSEWHERE = ("File to import not found", "Could not import", "Failed to use import pattern")
_HINTS = (
    ("no matching opening brace", "delete the '}' or add the missing '{'"),
    ("Unexpected EOF", "close every '{' with a '}'"),
    ("expecting '}'", "close every '{' with a '}'"),
    ("expecting '{'", "open the block with '{' at the end of the keys' line"),
    ("check for extra comma", "remove the trailing comma"),
    ("snippet", "rename or remove the snippet"),
    ("Import", "write `import PATTERN` with exactly one glob or snippet name"),
    ("import", "write `import PATTERN` with exactly one glob or snippet name"),
)


def _refused(reading: Reading, pos: Position) -> CorefileError | None:
    """CoreDNS's own verdict on the text: its parse error, mapped to the user's file."""
    if reading.error is None:
        return None
    m = _MESSAGE.match(reading.error)
    line, message = (int(m.group(1)), m.group(2)) if m else (1, reading.error)
    if any(x in message for x in _ELSEWHERE):
        return None
    hint = next((h for needle, h in _HINTS if needle in message), "fix the Corefile at that line as CoreDNS's message says")
    return pos.error(max(line, 1), None, f"CoreDNS refuses it: {message}", hint)


def _flat(directives: list[Directive], out: dict[str, list[str]] | None = None) -> dict[str, list[str]]:
    """Each directive's tokens grouped by name, as CoreDNS's parser hands them to the plugins."""
    out = {} if out is None else out
    for d in directives:
        words = out.setdefault(d.name, [])

        def add(x: Directive, words: list[str]) -> None:
            words.extend([x.name, *x.args])
            if x.block is not None:
                words.append("{")
                for y in x.block:
                    add(y, words)
                words.append("}")

        add(d, words)
    return out


def _agree(reading: Reading, blocks: list[tuple[tuple[str, ...], list[Directive]]], where: str) -> None:
    """The tree built here holds exactly what CoreDNS's parser returned (imports and `{$VAR}`
    placeholders aside, which it resolves and this tree keeps as written)."""
    if reading.error is not None or any(w == "import" or "{$" in w or "{%" in w for w, _ in reading.tokens):
        return
    ours = [(keys, {d: tuple(ws) for d, ws in _flat(body).items()}) for keys, body in blocks]
    theirs = [(b.keys, {d: tuple(w for w, _ in ts) for d, ts in b.tokens.items()}) for b in reading.blocks]
    if ours != theirs:
        raise AssertionError(f"gen.corefile's tree of {where} differs from CoreDNS's parser: {ours!r} != {theirs!r}")


def parse_corefile(text: str, *, filename: str, line_offset: int = 0, col_offset: int = 0,
                   fixed_line: int | None = None) -> Corefile:
    """Parse a whole Corefile (server blocks, snippets, top-level imports).

    `line_offset`/`col_offset` shift positions when the text sits inside another file (a
    ConfigMap's literal block); `fixed_line` pins every position to one line (a quoted YAML string).

    Raises:
        CorefileError: a text CoreDNS's parser refuses (its message), or one this grammar refuses.
    """
    pos = _position(filename, line_offset, col_offset, fixed_line)
    tokens = tokenize(text, pos)  # (first: an open quote is told as such, not as what it swallowed)
    reading = read(text)
    refused = _refused(reading, pos)
    if refused is not None:
        raise refused
    corefile = _Parser(tokens, pos, accepted=reading.error is None).corefile()
    _agree(reading, [(tuple(b.keys), b.directives) for b in corefile.server_blocks], filename)
    return corefile


def parse_directives(text: str, *, filename: str, line_offset: int = 0, col_offset: int = 0,
                     fixed_line: int | None = None) -> list[Directive]:
    """Parse text that CoreDNS splices *inside* a server block (an `*.override` file, a snippet):
    read by CoreDNS as it reads an imported override, so text that ends the block it is spliced
    into (and opens server blocks of its own) is refused.

    Raises:
        CorefileError: malformed input, with file:line:col.
    """
    pos = _position(filename, line_offset, col_offset, fixed_line)
    tokens = tokenize(text, pos)
    reading = read(text, inside=True)
    refused = _refused(reading, pos)
    if refused is not None:
        raise refused
    parser = _Parser(tokens, pos, accepted=reading.error is None)
    if reading.error is None and [b.keys for b in reading.blocks] != [(INSIDE_KEY,)]:
        parser._directives(None, server_level=True)  # (its own message, where it can tell the line)
        keys = ", ".join(" ".join(b.keys) for b in reading.blocks if b.keys != (INSIDE_KEY,))
        raise pos.error(1, None, f"CoreDNS reads it as ending the server block it is spliced into and starting "
                        f"server block(s) of its own ({keys})", "keep every line a whole directive; braces must balance")
    directives = parser._directives(None, server_level=True)
    if reading.blocks:
        _agree(Reading(reading.tokens, None, reading.blocks[:1]), [((INSIDE_KEY,), directives)], filename)
    return directives
