"""Corefile tokens as CoreDNS's own Caddyfile lexer makes them (through gen.corefile.helper), with lines.

CoreDNS reads its Corefile with coredns/caddy's `caddyfile` lexer; its rules (a `\\` in a quoted
token takes the next character as a pair, `#` starts a comment even mid-word, a brace is a brace
even when quoted) are not modelled here: the helper runs that lexer. We keep the position of every
token because every finding and every parse error must point at the line a reviewer has to change.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import NamedTuple

from gen.corefile.helper import read_many
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
    quoted: bool = False  # (CoreDNS's lexer does not say; kept for callers that build tokens)
    raw_line: int = 0  # line inside the Corefile text itself (for structure: what is "a new line")
    raw_end: int = 0  # last raw line the token spans (a quoted token may contain newlines)

    @property
    def is_open(self) -> bool:
        return self.text == "{"  # CoreDNS's parser looks at the text only: a quoted "{" opens a block too

    @property
    def is_close(self) -> bool:
        return self.text == "}"


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


END = "coredns-gen-end-of-text"  # a word after the text: swallowed only by a quote the text leaves open


def open_quote(text: str) -> bool:
    """Whether CoreDNS's lexer is still inside a quoted token at the end of `text` (it would take
    the rest of the Corefile into that token): a word on the next line is swallowed."""
    if '"' not in text:
        return False
    tokens = read_many([text + "\n" + END])[0].tokens
    return not tokens or tokens[-1][0] != END


def tokenize(text: str, pos: Position) -> list[Token]:
    """Return every token CoreDNS's lexer makes of `text`, with its mapped position.

    Raises:
        CorefileError: an unterminated quoted token (CoreDNS would swallow the rest of the file).
    """
    reading = read_many([text])[0]
    if open_quote(text):
        line = reading.tokens[-1][1] if reading.tokens else 1
        raise pos.error(line, None, "unterminated quoted string", 'close the string with a matching `"`')
    out: list[Token] = []
    lines = text.removeprefix("\ufeff").split("\n")
    cursor, lost, at_line = 0, False, 0
    for word, line in reading.tokens:
        if line != at_line:
            cursor, lost, at_line = 0, bool(out) and out[-1].raw_end >= line, line
        col, cursor, lost = _column(lines[line - 1] if line <= len(lines) else "", word, cursor, lost)
        mline, mcol = pos.at(line, col)
        out.append(Token(word, mline, mcol, False, line, line + word.count("\n")))
    return out


def _column(source: str, word: str, cursor: int, lost: bool) -> tuple[int | None, int, bool]:
    """Where `word` starts on its line, for messages only (CoreDNS's lexer keeps no columns):
    found while each token is written as itself; after a quote or a `#` on the line, unknown."""
    if lost:
        return None, cursor, True
    while cursor < len(source) and (source[cursor].isspace() or source[cursor] == "\r"):
        cursor += 1
    if source.startswith(word, cursor) and '"' not in word and "#" not in source[cursor:cursor + len(word)] and word:
        end = cursor + len(word)
        if end == len(source) or source[end].isspace():
            return cursor + 1, end, False
    return (cursor + 1 if source[cursor:cursor + 1] == '"' else None), cursor, True


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
    if len(tokens) == 1 and tokens[0].text == text and text not in ("{", "}"):
        return None
    if not tokens:
        return "is blank or a comment to CoreDNS's Corefile lexer"
    if len(tokens) > 1:
        return f"would be {len(tokens)} Corefile tokens ({_shown(tokens)}), not one"
    if text in ("{", "}"):
        return "is a Corefile brace"
    why = "'#' starts a comment" if "#" in text else "quotes are Corefile syntax" if '"' in text else "spaces separate tokens"
    return f"would reach CoreDNS as {_shown(tokens)} ({why})"
