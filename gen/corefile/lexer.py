"""Split Corefile text into tokens the way CoreDNS's Caddyfile lexer does, keeping line and column.

CoreDNS reads its Corefile with coredns/caddy's `caddyfile` lexer: whitespace separates tokens,
`"…"` quotes a token (with `\\"` as the only escape; other backslashes are kept), `#` starts a
comment to the end of the line (even in the middle of a word), and braces are tokens only when
they stand alone. We keep the position of every token because every finding and every parse
error must point at the line a reviewer has to change.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import NamedTuple

from gen.errors import GenError, Problem, quote


class CorefileError(GenError):
    """A Corefile that CoreDNS's parser would refuse (unbalanced braces, bad import, …)."""


class Token(NamedTuple):
    """One lexical token; `line`/`col` are 1-based positions in the file the user gave.
    (A NamedTuple: a Corefile has hundreds of tokens, and a frozen dataclass costs ten times
    as much to build.)"""

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


# One token per match, in CoreDNS's order of precedence: a comment runs to the end of the line
# (even from the middle of a word); a `"` that starts a token quotes up to the next unescaped
# `"` (possessive: a missing close is the end of the text, never a shorter match); a word runs to
# whitespace or `#` (a `"` inside it is literal). Whitespace matches nothing and is skipped.
_TOKEN = re.compile(r'#[^\n]*|"((?:\\"|[^"])*+)("?)|[^\s#"][^\s#]*')


def tokenize(text: str, pos: Position) -> list[Token]:
    """Return every token with its mapped position.

    Raises:
        CorefileError: an unterminated quoted token (CoreDNS would swallow the rest of the file).
    """
    tokens: list[Token] = []
    if text.startswith("\ufeff"):
        text = text[1:]
    line, line_start, counted = 1, 0, 0  # line of offset `counted`; offset where that line starts
    for m in _TOKEN.finditer(text):
        start = m.start()
        first = text[start]
        if first == "#":
            continue
        newlines = text.count("\n", counted, start)
        if newlines:
            line += newlines
            line_start = text.rfind("\n", counted, start) + 1
        counted = start
        col = start - line_start + 1
        mline, mcol = pos.at(line, col)
        if first != '"':
            tokens.append(Token(m.group(), mline, mcol, False, line, line))
            continue
        if not m.group(2):
            raise pos.error(line, col, "unterminated quoted string", 'close the string with a matching `"`')
        body = m.group(1)
        tokens.append(Token(body.replace('\\"', '"'), mline, mcol, True, line, line + body.count("\n")))
    return tokens


def _shown(tokens: list[Token]) -> str:
    listed = ", ".join(quote(t.text, 40) for t in tokens[:3])
    return listed + (", …" if len(tokens) > 3 else "")


@functools.lru_cache(maxsize=4096)  # a fleet names the same few resolvers in every file
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
