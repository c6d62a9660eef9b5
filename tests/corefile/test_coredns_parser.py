"""gen.corefile against CoreDNS's own Caddyfile parser (the helper), on random and adversarial text.

The tokens are CoreDNS's; what stays modelled here is (1) the tree gen.corefile builds from them,
which must hold exactly the server blocks and directive tokens CoreDNS's parser returns and refuse
whatever it refuses, and (2) render's quick split (gen.render.structure.fast_lines), which must give
CoreDNS's tokens line by line for every text it is used on.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from gen.corefile import CorefileError, parse_corefile, parse_directives
from gen.corefile.helper import read
from gen.corefile.parser import _ELSEWHERE
from gen.render.structure import _SPLIT_DIFFERS, fast_lines

# Quotes, backslashes, braces, comments, env placeholders, imports, snippets, commas, odd spaces.
PIECES = ['"', "\\", "{", "}", "#", " ", "\n", "\t", "\r", "\x1c", "\u00a0", "\ufeff", ",", "{$X}", "{%Y%}", "import ",
          "(s)", "(s) {\n", "import s", ".:53", "forward", " . ", "1.1.1.1", "log", "a", "b.org", "\\\"", "\\\\"]
TEXT = st.one_of(st.lists(st.sampled_from(PIECES), max_size=30).map("".join), st.text(max_size=40))


def _coredns_refuses(text: str, *, inside: bool) -> bool:
    error = read(text, inside=inside).error
    return error is not None and not any(x in error for x in _ELSEWHERE)


@settings(max_examples=400, deadline=None, derandomize=True, database=None)
@given(TEXT)
@example('log "\\\\" " { "\\\\""\n}\ncom {\nforward . 6.6.6.6')
@example('.:53 {\n  log "{"\n}\n')
@example("(s) {\n log\n}\n.:53 {\n import s\n}\n")
@example('.:53 {\n import /dev/stdin\n log "a b" "c\\"d"\n}\n')
@example('.:53 {\n import "../x y"\n forward . 1.1.1.1 # c\n}\n')
def test_the_tree_is_coredns_parse(text: str) -> None:
    """parse_corefile agrees with CoreDNS (an AssertionError inside is a disagreement), and never
    accepts what CoreDNS's parser refuses."""
    try:
        parse_corefile(text, filename="C")
    except CorefileError:
        return
    assert not _coredns_refuses(text, inside=False)


@settings(max_examples=400, deadline=None, derandomize=True, database=None)
@given(TEXT)
@example('log "\\\\" " { "\\\\""\n}\ncom {\nforward . 6.6.6.6\nlog "\\\\" " } "\\\\""')
def test_an_override_stays_in_its_block(text: str) -> None:
    """An override parse_directives accepts stays inside the server block CoreDNS imports it into."""
    try:
        parse_directives(text, filename="o")
    except CorefileError:
        return
    reading = read(text, inside=True)
    assert not _coredns_refuses(text, inside=True)
    if reading.error is None:  # (an import of a file: the files are the caller's, see gen.corefile.imports)
        assert [b.keys for b in reading.blocks] == [("coredns-gen-inside",)]


@settings(max_examples=400, deadline=None, derandomize=True, database=None)
@given(TEXT)
def test_the_quick_split_is_coredns_lexer(text: str) -> None:
    if _SPLIT_DIFFERS.search(text):
        return
    lines: list[list[str]] = []
    last = 0
    for word, line in read(text).tokens:
        if line > last or not lines:
            lines.append([])
        lines[-1].append(word)
        last = line + word.count("\n")
    assert fast_lines(text) == [tuple(x) for x in lines]


@pytest.mark.parametrize("text", ['"a b" c', "a\rb c", "a\x1cb c", "\ufeffa b", "a#b c"])
def test_the_quick_split_is_not_used_where_it_would_differ(text: str) -> None:
    assert fast_lines(text) != [tuple(w for w, _ in read(text).tokens)]
    assert _SPLIT_DIFFERS.search(text)


@pytest.mark.parametrize("pattern", ["/dev/stdin", "/dev/zero", "/etc/hostname", "../../../../etc/hostname",
                                     "/etc/host*", "{$HOME}/.bashrc", '"/dev/std in"'])
@pytest.mark.parametrize("inside", [False, True], ids=["corefile", "override"])
def test_an_import_outside_the_corefiles_folder_opens_nothing(pattern: str, inside: bool) -> None:
    """CoreDNS's parser opens whatever an `import` names: `import /dev/stdin` read the helper's own
    requests (render --check and the guard hung), `/dev/zero` ran it out of memory, and a path of
    this machine was read into the answer. Such an import now finds nothing, as a relative one does
    in the helper's empty folder: a glob matches nothing, a file is not found."""
    body = f"import {pattern}\nlog\n"
    reading = read(body if inside else ".:53 {\n" + body + "}\n", inside=inside)
    if "*" in pattern:
        assert reading.error is None
        assert [sorted(b.tokens) for b in reading.blocks] == [["log"]]
    else:
        assert reading.error is not None and "File to import not found" in reading.error, reading.error
        assert pattern.strip('"') in reading.error and "coredns-gen-outside" not in reading.error
