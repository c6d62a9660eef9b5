"""The regex lexer against a character-by-character reference written after CoreDNS's Caddyfile
lexer loop (coredns/caddy caddyfile/lexer.go: `#` ends a word and comments out the rest of the
line, a `"` opens a quoted token only at a token's start, `\\"` is the only escape, whitespace
is unicode space). Same tokens, same positions, same refusal of an unterminated quote."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gen.corefile import CorefileError, tokenize
from gen.corefile.lexer import Position

Lexed = tuple[str, bool, int, int, int]  # text, quoted, line, column, last line


def reference(text: str) -> list[Lexed] | None:
    """Tokens as the reference loop reads them; None for an unterminated quote."""
    text = text.removeprefix("\ufeff")
    out: list[Lexed] = []
    line, col, i = 1, 0, 0
    word: list[str] = []
    start = (0, 0)
    quoted = comment = False
    while i < len(text):
        ch = text[i]
        i += 1
        col += 1
        if quoted:
            if ch == "\\" and text[i:i + 1] == '"':
                word.append('"')
                i, col = i + 1, col + 1
            elif ch == '"':
                out.append(("".join(word), True, *start, line))
                word, quoted = [], False
            else:
                word.append(ch)
                if ch == "\n":
                    line, col = line + 1, 0
            continue
        if ch.isspace() or (ch == "#" and not comment):
            if word:
                out.append(("".join(word), False, *start, start[0]))
                word = []
            comment = comment or ch == "#"
            if ch == "\n":
                line, col, comment = line + 1, 0, False
            continue
        if comment:
            continue
        if not word:
            start = (line, col)
            if ch == '"':
                quoted = True
                continue
        word.append(ch)
    if quoted:
        return None
    if word:
        out.append(("".join(word), False, *start, start[0]))
    return out


ALPHABET = st.sampled_from(list('ab{}"\\# \t\n\r\x0b\x85\u2028\xa0\ufeff.:'))


@settings(max_examples=500, deadline=None, derandomize=True, database=None)
@given(st.text(ALPHABET, max_size=40) | st.text(max_size=40))
def test_tokens_are_those_of_the_reference_loop(text: str) -> None:
    want = reference(text)
    try:
        got: list[Lexed] | None = [(t.text, t.quoted, t.line, t.col or 0, t.raw_end) for t in tokenize(text, Position("f"))]
    except CorefileError:
        got = None
    assert got == want
