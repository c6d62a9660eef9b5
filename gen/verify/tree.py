"""A minimal, mutable Corefile tree that verify can rewrite and write back out.

Verify must *change* a Corefile (ports, upstreams, file paths) and serialise it again for a
real CoreDNS, which needs nodes it can edit; it only needs the Caddyfile shape (server blocks,
directives, nested blocks, quoted tokens, comments). `parse_corefile` is the one seam to the
project's own parser; everything else in gen/verify works on `Node`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gen.errors import Problem, UsageError


@dataclass
class Node:
    """A directive (`words` = name + args) or a server block (`words` = its keys).

    `block` is None when the line opens no `{ … }`. `line` is 1-based in `file`.
    """

    words: list[str]
    block: list["Node"] | None = None
    line: int = 0
    file: str = ""
    quoted: set[int] = field(default_factory=set)

    @property
    def name(self) -> str:
        return self.words[0] if self.words else ""

    @property
    def args(self) -> list[str]:
        return self.words[1:]


@dataclass(frozen=True)
class _Tok:
    text: str
    line: int
    quoted: bool


def _tokens(text: str, file: str) -> list[_Tok]:
    out: list[_Tok] = []
    i, line, n = 0, 1, len(text)
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif c.isspace():
            i += 1
        elif c == "#":
            while i < n and text[i] != "\n":
                i += 1
        elif c == '"':
            start_line, buf, i = line, [], i + 1
            while i < n and text[i] != '"':
                if text[i] == "\\" and i + 1 < n and text[i + 1] == '"':
                    i += 1
                if text[i] == "\n":
                    line += 1
                buf.append(text[i])
                i += 1
            if i >= n:
                raise UsageError(Problem("unterminated quoted token", file=file, line=start_line,
                                         hint="close the quote"))
            out.append(_Tok("".join(buf), start_line, True))
            i += 1
        else:
            start = i
            while i < n and not text[i].isspace():
                i += 1
            out.append(_Tok(text[start:i], line, False))
    return out


def parse_corefile(text: str, file: str) -> list[Node]:
    """Parse Corefile text (or a coredns-custom fragment) into top-level nodes.

    Raises:
        UsageError: unbalanced braces or quotes, with the file and line.
    """
    toks = _tokens(text, file)
    pos = 0

    def parse_list(depth: int, opened_at: int) -> list[Node]:
        nonlocal pos
        nodes: list[Node] = []
        while pos < len(toks):
            tok = toks[pos]
            if tok.text == "}" and not tok.quoted:
                if depth == 0:
                    raise UsageError(Problem("unexpected '}'", file=file, line=tok.line, hint="remove it"))
                pos += 1
                return nodes
            words: list[_Tok] = []
            line = tok.line
            # One directive = the tokens on its first line (keys may continue after a comma).
            while pos < len(toks) and (toks[pos].line == line or (words and words[-1].text.endswith(","))):
                if toks[pos].text in "{}" and not toks[pos].quoted:
                    break
                words.append(toks[pos])
                line = toks[pos].line
                pos += 1
            node = Node([w.text.rstrip(",") if not w.quoted else w.text for w in words], None,
                        words[0].line if words else tok.line, file,
                        {i for i, w in enumerate(words) if w.quoted})
            if pos < len(toks) and toks[pos].text == "{" and not toks[pos].quoted and toks[pos].line == line:
                pos += 1
                node.block = parse_list(depth + 1, line)
            elif pos < len(toks) and toks[pos].text == "}" and not toks[pos].quoted and not words:
                continue
            if node.words or node.block is not None:
                nodes.append(node)
        if depth:
            raise UsageError(Problem("block opened here is never closed", file=file, line=opened_at,
                                     hint="add the missing '}'"))
        return nodes

    return parse_list(0, 0)


def _quote(word: str, quoted: bool) -> str:
    if quoted or not word or any(c.isspace() for c in word) or word in "{}" or word.startswith("#"):
        return '"' + word.replace('"', '\\"') + '"'
    return word


def format_nodes(nodes: list[Node], indent: int = 0) -> str:
    """Serialise nodes back to Corefile text (layout normalised, meaning kept)."""
    out: list[str] = []
    pad = "    " * indent
    for node in nodes:
        head = " ".join(_quote(w, i in node.quoted) for i, w in enumerate(node.words))
        if node.block is None:
            out.append(f"{pad}{head}\n")
        else:
            out.append(f"{pad}{head} {{\n" if head else f"{pad}{{\n")
            out.append(format_nodes(node.block, indent + 1))
            out.append(f"{pad}}}\n")
    return "".join(out)
