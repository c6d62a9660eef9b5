"""Split Corefile text into tokens the way CoreDNS's Caddyfile lexer does, keeping line and column.

CoreDNS reads its Corefile with coredns/caddy's `caddyfile` lexer: whitespace separates tokens,
`"…"` quotes a token (with `\\"` as the only escape; other backslashes are kept), `#` starts a
comment to the end of the line (even in the middle of a word), and braces are tokens only when
they stand alone. We keep the position of every token because every finding and every parse
error must point at the line a reviewer has to change.
"""

from __future__ import annotations

from dataclasses import dataclass

from gen.errors import GenError, Problem


class CorefileError(GenError):
    """A Corefile that CoreDNS's parser would refuse (unbalanced braces, bad import, …)."""


@dataclass(frozen=True)
class Token:
    """One lexical token; `line`/`col` are 1-based positions in the file the user gave."""

    text: str
    line: int  # mapped into the user's file (for messages)
    col: int | None
    quoted: bool = False
    raw_line: int = 0  # line inside the Corefile text itself (for structure: what is "a new line")
    raw_end: int = 0  # last raw line the token spans (a quoted token may contain newlines)

    @property
    def is_open(self) -> bool:
        return self.text == "{" and not self.quoted

    @property
    def is_close(self) -> bool:
        return self.text == "}" and not self.quoted


@dataclass(frozen=True)
class Position:
    """Maps a line/column inside Corefile text to the file the user gave (e.g. a ConfigMap YAML).

    A literal block scalar (`Corefile: |`) maps 1:1 with an offset; a quoted YAML string cannot be
    mapped line by line, so `fixed_line` pins every token to the key's line.
    """

    filename: str
    line_offset: int = 0
    col_offset: int = 0
    fixed_line: int | None = None

    def at(self, line: int, col: int | None) -> tuple[int, int | None]:
        if self.fixed_line is not None:
            return self.fixed_line, None
        return line + self.line_offset, None if col is None else col + self.col_offset

    def error(self, line: int, col: int | None, problem: str, hint: str) -> CorefileError:
        mline, mcol = self.at(line, col)
        return CorefileError(Problem(problem, file=self.filename, line=mline, col=mcol, key="corefile", hint=hint))


def tokenize(text: str, pos: Position) -> list[Token]:
    """Return every token with its mapped position.

    Raises:
        CorefileError: an unterminated quoted token (CoreDNS would swallow the rest of the file).
    """
    tokens: list[Token] = []
    if text.startswith("\ufeff"):
        text = text[1:]
    line, col = 1, 0
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "\n":
            line, col = line + 1, 0
            i += 1
            continue
        col += 1
        if ch.isspace():
            i += 1
            continue
        if ch == "#":
            while i < n and text[i] != "\n":
                i += 1
            continue
        start_line, start_col = line, col
        if ch == '"':
            i += 1
            buf: list[str] = []
            closed = False
            while i < n:
                c = text[i]
                if c == "\\" and i + 1 < n and text[i + 1] == '"':
                    buf.append('"')
                    i += 2
                    col += 2
                    continue
                if c == '"':
                    closed = True
                    i += 1
                    col += 1
                    break
                if c == "\n":
                    line, col = line + 1, 0
                else:
                    col += 1
                buf.append(c)
                i += 1
            if not closed:
                raise pos.error(start_line, start_col, "unterminated quoted string",
                                'close the string with a matching `"`')
            mline, mcol = pos.at(start_line, start_col)
            tokens.append(Token("".join(buf), mline, mcol, True, start_line, line))
            continue
        j = i
        while j < n and not text[j].isspace() and text[j] != "#":
            j += 1
        word = text[i:j]
        col += len(word) - 1
        i = j
        mline, mcol = pos.at(start_line, start_col)
        tokens.append(Token(word, mline, mcol, False, start_line, start_line))
    return tokens


def shorten(text: str, limit: int = 80) -> str:
    """A value as messages quote it: repr, at most `limit` characters of it."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + "…"


def _shown(tokens: list[Token]) -> str:
    listed = ", ".join(shorten(t.text, 40) for t in tokens[:3])
    return listed + (", …" if len(tokens) > 3 else "")


def one_token_problem(text: str) -> str | None:
    """Why `text`, written into a Corefile as it is, would not reach CoreDNS as exactly itself:
    one bare token (None when it would). Values are lexed by this lexer, not matched against a
    list of bad characters, so whatever CoreDNS would split, drop or read as syntax is caught.
    """
    try:
        tokens = tokenize(text, Position("value"))
    except CorefileError:
        return "opens a '\"' it never closes, which would swallow the rest of the Corefile"
    if len(tokens) == 1 and not tokens[0].quoted and tokens[0].text == text and text not in ("{", "}"):
        return None
    if not tokens:
        return "is blank or a comment to CoreDNS's Corefile lexer"
    if len(tokens) > 1:
        return f"would be {len(tokens)} Corefile tokens ({_shown(tokens)}), not one"
    if text in ("{", "}"):
        return "is a Corefile brace"
    why = "'#' starts a comment" if "#" in text else "quotes are Corefile syntax" if '"' in text else "spaces separate tokens"
    return f"would reach CoreDNS as {_shown(tokens)} ({why})"
