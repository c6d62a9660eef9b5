"""Text that goes into a comment of a file coredns-gen writes stays inside that comment.

A values file's header names the files it was imported from and what it could not render (keys
of the input's ConfigMaps); a generated file's header names its values file; a stand-in
resolv.conf names the argument it stands for. Each of these comes from input, and a line break
in it (LF, CR, NEL U+0085, U+2028, U+2029: YAML 1.1 parsers break lines at all five) would end
the comment and make the rest live YAML or config. Every writer of a comment goes through here.
"""

from __future__ import annotations


def one_line(text: str) -> str:
    """`text` as one printable line: every character str.isprintable refuses (line breaks of any
    kind, other control characters, the surrogates a file name that is not UTF-8 decodes to) is
    written as its Python escape (`\\n`, `\\x85`, `\\u2028`, `\\udcff`). Printable text is
    returned as it is."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape", "backslashreplace").decode("ascii") for c in text)


def comment(text: str) -> str:
    """One comment line (`# ` + `text` made one line), without the line break that ends it."""
    return "# " + one_line(text)
