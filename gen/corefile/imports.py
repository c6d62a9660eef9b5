"""Expand `import` the way CoreDNS does: snippets first, then files matched by a glob.

Lint and verify never read a cluster's filesystem: the files CoreDNS would import come from a
ConfigMap (`coredns-custom`, mounted at /etc/coredns/custom), so imports are resolved against a
small virtual filesystem of `Source`s. An import that cannot be resolved stays in the tree as an
`import` directive, so a caller can still see and report it.
"""

from __future__ import annotations

import copy
import posixpath
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Callable, Mapping

from gen.corefile.lexer import CorefileError
from gen.corefile.tree import Corefile, Directive, Item, ServerBlock, Snippet
from gen.corefile.parser import parse_corefile, parse_directives
from gen.errors import Problem

MAX_DEPTH = 10  # CoreDNS has no depth limit for files, but a loop would never end


@dataclass(frozen=True)
class Source:
    """Corefile text plus where it sits in the user's file (see lexer.Position)."""

    text: str
    filename: str
    line_offset: int = 0
    col_offset: int = 0
    fixed_line: int | None = None
    label: str = ""  # e.g. the ConfigMap key, for messages

    def corefile(self) -> Corefile:
        return parse_corefile(self.text, filename=self.filename, line_offset=self.line_offset,
                              col_offset=self.col_offset, fixed_line=self.fixed_line)

    def directives(self) -> list[Directive]:
        return parse_directives(self.text, filename=self.filename, line_offset=self.line_offset,
                                col_offset=self.col_offset, fixed_line=self.fixed_line)


# pattern -> matching sources ([] for an empty glob), or None when it cannot be resolved here.
Resolver = Callable[[str], "list[Source] | None"]


class VirtualFS:
    """Files CoreDNS would see, keyed by absolute path; globs match like filepath.Glob."""

    def __init__(self, files: Mapping[str, Source], base_dir: str = "/etc/coredns") -> None:
        self.files = dict(files)
        self.base_dir = base_dir

    def __call__(self, pattern: str) -> list[Source] | None:
        path = pattern if pattern.startswith("/") else posixpath.join(self.base_dir, pattern)
        path = posixpath.normpath(path)
        if not any(c in path for c in "*?["):
            return [self.files[path]] if path in self.files else None
        return [self.files[p] for p in sorted(self.files) if fnmatchcase(p, path)
                and posixpath.dirname(p) == posixpath.dirname(path)]


def is_server_import(d: Directive) -> bool:
    """`import …*.server` (whole server blocks) as AKS, k3s and kubeadm wire coredns-custom (docs/lint.md)."""
    return d.name == "import" and bool(d.args) and d.args[0].endswith(".server")


def expand_imports(cf: Corefile, resolve: Resolver | None = None) -> Corefile:
    """Return a copy of `cf` with snippets and resolvable file imports spliced in.

    Raises:
        CorefileError: an import loop, or imported text that does not parse.
    """
    return _Expander(cf, resolve or (lambda _p: None)).run()


class _Expander:
    def __init__(self, cf: Corefile, resolve: Resolver) -> None:
        self.cf = cf
        self.resolve = resolve
        self.snippets: dict[str, Snippet] = {}

    def run(self) -> Corefile:
        return Corefile(self.cf.filename, self._items(self.cf.items, 0))

    def _guard(self, d: Directive, depth: int) -> None:
        if depth >= MAX_DEPTH:
            raise CorefileError(Problem(f"import {d.args[0]} nests deeper than {MAX_DEPTH} levels (an import loop?)",
                                        file=d.file, line=d.line, col=d.col, key="corefile",
                                        hint="remove the import that includes itself"))

    def _items(self, items: list[Item], depth: int) -> list[Item]:
        out: list[Item] = []
        for item in items:
            if isinstance(item, Snippet):
                self.snippets[item.name] = item
                out.append(item)
            elif isinstance(item, ServerBlock):
                block = copy.copy(item)
                block.directives = self._body(item.directives, depth)
                out.append(block)
            else:
                pattern = item.args[0]
                sources = None if pattern in self.snippets else self.resolve(pattern)
                if sources is None:
                    out.append(copy.deepcopy(item))
                    continue
                self._guard(item, depth)
                for src in sources:
                    out.extend(self._items(src.corefile().items, depth + 1))
        return out

    def _body(self, directives: list[Directive], depth: int) -> list[Directive]:
        out: list[Directive] = []
        for d in directives:
            if d.name != "import":
                copied = copy.copy(d)
                copied.args = list(d.args)
                copied.block = None if d.block is None else self._body(d.block, depth)
                out.append(copied)
                continue
            pattern = d.args[0]
            if pattern in self.snippets:
                self._guard(d, depth)
                out.extend(self._body(self.snippets[pattern].directives, depth + 1))
                continue
            sources = self.resolve(pattern)
            if sources is None:
                out.append(copy.deepcopy(d))
                continue
            self._guard(d, depth)
            for src in sources:
                out.extend(self._body(src.directives(), depth + 1))
        return out
