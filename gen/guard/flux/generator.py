"""What an ArtifactGenerator's copy operations lay out: source-watcher's builder, ported.

An ExternalArtifact (Flux 2.7+, `source.extensions.fluxcd.io`) holds what source-watcher's
ArtifactBuilder stages from its sources' artifacts, in order, then archives. The builder is not a
library (fluxcd/source-watcher `internal/builder`; the module is not served by the Go module proxy,
only its `api/v2` types are), so it is ported here line for line from builder.go at the commit
gen/data/SOURCES.md names, over the artifacts as the guard already holds them (Trees): nothing is
copied until the layout is known. Its rules, cp-like:

- `@alias/path` without a glob character (`*?[]`): the path must exist (else the generator fails);
  a folder is copied under its own name into `to` (`cp -r dir dest/` -> `dest/dir/`; `@alias/` is
  the whole artifact into `to`); a file goes to `to/<name>` when `to` ends in `/` or is a folder
  already staged, else to `to` itself;
- a glob: Go's `fs.Glob` (path.Match per segment: `**` is `*`, never across folders); each match,
  file or folder, lands at `to/<match>`, except that `dir/**` strips `dir/` (`cp -r dir/** dest/`);
  no match, or every match excluded, fails the generator;
- `exclude`: doublestar patterns matched against the path from the alias root and from the
  selected root (the literal prefix before the first glob), and a pattern without `/` also against
  the file name; an excluded folder is skipped whole;
- later operations overwrite earlier files (a `Merge` strategy's YAML merge onto a staged file and
  the `Extract` strategy's tarballs are not laid out here: said, not guessed);
- the archive keeps what storage.Archive's SourceIgnoreFilter(nil, nil) keeps (the helper's
  answer, gen/guard/flux/sourceignore.py): folders, and every file the default exclusions spare.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from gen.guard.repo.revision import Tree

_GLOB_CHARS = "*?[]"


class CopyError(Exception):
    """The generator fails on this operation (source-watcher's error, said in its words)."""


@dataclass
class Layout:
    """The staging folder after the copy operations: each file with the artifact and path it is
    copied from, and every folder (an empty one too: the archive keeps folders)."""

    files: dict[str, tuple[Tree, str]] = field(default_factory=dict)
    folders: set[str] = field(default_factory=set)


def lay_out(sources: dict[str, Tree], copies: list[Any]) -> Layout | str:
    """What `copies` stage from `sources` (alias -> artifact), or why the generator fails or why its
    output is not known here. builder.go applyCopyOperations: in order, the first error stops."""
    layout = Layout()
    for op in copies:
        if not isinstance(op, dict):
            return f"copy entry {op!r} is not a mapping"
        try:
            _apply(op, sources, layout)
        except CopyError as err:
            return f"failed to apply copy operation from '{op.get('from')}' to '{op.get('to')}': {err}"
    return layout


def _apply(op: dict[str, Any], sources: dict[str, Tree], layout: Layout) -> None:
    """builder.go applyCopyOperation."""
    src, to = str(op.get("from") or ""), str(op.get("to") or "")
    strategy = str(op.get("strategy") or "Overwrite")
    excludes = [str(e) for e in op.get("exclude") or []]
    if not src.startswith("@"):
        raise CopyError(f"invalid copy source '{src}': source must start with '@'")
    alias, slash, pattern = src[1:].partition("/")
    if not slash:
        raise CopyError(f"invalid copy source '{src}': source format must be '@alias/pattern'")
    if not to.startswith("@artifact/"):
        raise CopyError(f"invalid copy destination '{to}': destination must start with '@artifact/'")
    dest = to[len("@artifact/"):]
    if alias not in sources:
        raise CopyError(f"source alias '{alias}' not found")
    for pat in excludes:
        if not _doublestar_valid(pat):
            raise CopyError(f"invalid exclude pattern '{pat}'")
    tree = sources[alias]
    if strategy == "Extract":
        raise CopyError("the Extract strategy unpacks tarballs, which the guard does not lay out")
    if not any(c in pattern for c in _GLOB_CHARS):
        _single(tree, _clean(pattern), dest, to.endswith("/"), excludes, strategy, layout)
        return
    try:
        matches = _fs_glob(tree, pattern)
    except ValueError as err:
        raise CopyError(f"invalid glob pattern '{pattern}': {err}") from None
    if not matches:
        raise CopyError(f"no files match pattern '{pattern}' in source '{alias}'")
    base = _selection_root(pattern)
    kept = [m for m in matches if m not in (".", "..") and not _excluded_path(m, base, excludes)]
    if not kept:
        raise CopyError(f"all files matching pattern '{pattern}' in source '{alias}' were excluded")
    for match in kept:
        _copy(tree, match, _glob_destination(pattern, match, dest), excludes, base, strategy, layout)


def _single(tree: Tree, path: str, dest: str, dest_is_dir: bool, excludes: list[str], strategy: str,
            layout: Layout) -> None:
    """builder.go applySingleSourceCopy, applySingleDirectoryCopy, applySingleFileCopy."""
    if not _exists(tree, path):
        raise CopyError(f"source '{path}' does not exist")
    if _is_dir(tree, path):
        _copy(tree, path, _join(dest, posixpath.basename(path) if path != "." else "."), excludes, path, strategy,
              layout)
        return
    if _excluded_path(path, ".", excludes):
        return
    if dest_is_dir or _join(dest) in layout.folders:
        final = _join(dest, posixpath.basename(path))
    else:
        final = _join(dest)
    _copy(tree, path, final, excludes, ".", strategy, layout)


def _copy(tree: Tree, path: str, dest: str, excludes: list[str], base: str, strategy: str, layout: Layout) -> None:
    """builder.go copyFileWithRoots and copyDirWithRoots (a folder's walk never merges)."""
    if _is_dir(tree, path):
        _mkdirs(dest, layout)
        for sub, is_dir in _walk(tree, path, lambda p: _excluded_path(p, base, excludes)):
            target = _join(dest, sub if path == "." else sub[len(path) + 1:])
            if is_dir:
                _mkdirs(target, layout)
            else:
                _file(tree, sub, target, layout)
        return
    if strategy == "Merge" and dest in layout.files:
        raise CopyError(f"the Merge strategy merges '{path}' into the YAML staged at '{dest}', which the guard "
                        "does not lay out")
    _file(tree, path, dest, layout)


def _file(tree: Tree, path: str, dest: str, layout: Layout) -> None:
    if dest in layout.folders:
        raise CopyError(f"cannot copy file '{path}' over folder '{dest}'")
    _mkdirs(posixpath.dirname(dest), layout)
    layout.files[dest] = (tree, path)


def _mkdirs(folder: str, layout: Layout) -> None:
    while folder not in ("", "."):
        if folder in layout.files:
            raise CopyError(f"cannot create folder '{folder}': a file is staged there")
        layout.folders.add(folder)
        folder = posixpath.dirname(folder)


def _walk(tree: Tree, folder: str, skip: Callable[[str], bool]) -> Iterator[tuple[str, bool]]:
    """fs.WalkDir below `folder`: depth first, names in lexical order; a path `skip` says is
    excluded is left out, and a folder with everything below it (fs.SkipDir)."""
    for name in sorted(tree.entries.get("" if folder == "." else folder, ())):
        path = name if folder == "." else f"{folder}/{name}"
        if skip(path) or not _exists(tree, path):
            continue  # (a symlink is listed in its folder but is no file of an artifact)
        is_dir = path in tree.entries
        yield path, is_dir
        if is_dir:
            yield from _walk(tree, path, skip)


def _exists(tree: Tree, path: str) -> bool:
    return path == "." or path in tree.blobs or path in tree.entries


def _is_dir(tree: Tree, path: str) -> bool:
    return path == "." or path in tree.entries


def _clean(path: str) -> str:
    """Go's filepath.Clean of a relative path ("" and "./" are ".")."""
    cleaned = posixpath.normpath(path) if path else "."
    return cleaned.lstrip("/") or "."


def _join(*parts: str) -> str:
    """Go's filepath.Join (empty parts dropped, the result cleaned), with "." as the staging root ""."""
    kept = [p for p in parts if p]
    joined = _clean(posixpath.join(*kept)) if kept else "."
    return "" if joined == "." else joined


def _glob_destination(pattern: str, match: str, dest: str) -> str:
    """builder.go calculateGlobDestination: `dir/**` strips `dir/`; any other glob keeps the match's path."""
    if pattern.endswith("/**"):
        prefix = pattern[:-3]
        if match.startswith(prefix + "/"):
            return _join(dest, match[len(prefix) + 1:])
    return _join(dest, match)


def _selection_root(pattern: str) -> str:
    """builder.go sourceSelectionRoot: the literal folders before the first glob segment."""
    parts = []
    for part in _clean(pattern).split("/"):
        if any(c in part for c in _GLOB_CHARS):
            break
        parts.append(part)
    return _clean("/".join(parts)) if parts else "."


def _excluded_path(path: str, base: str, patterns: list[str]) -> bool:
    """builder.go shouldExcludePath: from the alias root, then from the selected root."""
    if _excluded(path, patterns):
        return True
    base, path = _clean(base), _clean(path)
    if base == ".":
        rel = path
    elif path.startswith(base + "/"):
        rel = path[len(base) + 1:]
    elif path == base:
        rel = "."
    else:
        return False
    if rel in (".", path):
        return False
    return _excluded(rel, patterns)


def _excluded(path: str, patterns: list[str]) -> bool:
    """builder.go shouldExclude: doublestar on the path, and on the name for a pattern without `/`."""
    name = posixpath.basename(path)
    return any(_doublestar(p).fullmatch(path) is not None or ("/" not in p and _doublestar(p).fullmatch(name) is not None)
               for p in patterns)


# -- Go's path.Match / io/fs.Glob -----------------------------------------------------------------

def _fs_glob(tree: Tree, pattern: str) -> list[str]:
    """io/fs.Glob over the artifact: a pattern without meta characters names an existing path;
    else the folder part is globbed first, then each folder's entries (in name order) matched
    with path.Match against the last element.

    Raises:
        ValueError: path.ErrBadPattern (Glob checks the whole pattern first).
    """
    _path_match_regex(pattern)  # fs.Glob: `if _, err := path.Match(pattern, ""); err != nil`
    if not any(c in pattern for c in "*?[\\"):
        return [pattern] if _exists(tree, pattern) and pattern not in ("", ".") else []
    folder, leaf = posixpath.split(pattern)
    folder = _clean_glob(folder)
    if not any(c in folder for c in "*?[\\"):
        return _glob_in(tree, folder, leaf)
    if folder == pattern:
        raise ValueError("syntax error in pattern")
    out: list[str] = []
    for parent in _fs_glob(tree, folder):
        out.extend(_glob_in(tree, parent, leaf))
    return out


def _clean_glob(folder: str) -> str:
    """io/fs cleanGlobPath."""
    if folder == "":
        return "."
    return folder[:-1] if folder.endswith("/") else folder


def _glob_in(tree: Tree, folder: str, leaf: str) -> list[str]:
    if not _is_dir(tree, folder):
        return []
    regex = _path_match_regex(leaf)
    names = sorted(tree.entries.get("" if folder == "." else folder, ()))
    return [name if folder == "." else f"{folder}/{name}" for name in names if regex.fullmatch(name)]


def _path_match_regex(pattern: str) -> re.Pattern[str]:
    """path.Match as a regular expression: `*` any run of non-`/`, `?` one non-`/`, `[...]` a class
    (`^` negates, `a-z` ranges, `\\` escapes).

    Raises:
        ValueError: path.ErrBadPattern.
    """
    out, i = "", 0
    while i < len(pattern):
        c = pattern[i]
        if c == "*":
            out += "[^/]*"
        elif c == "?":
            out += "[^/]"
        elif c == "\\":
            if i + 1 >= len(pattern):
                raise ValueError("syntax error in pattern")
            i += 1
            out += re.escape(pattern[i])
        elif c == "[":
            cls, i = _char_class(pattern, i + 1, "^")
            out += cls
            continue
        else:
            out += re.escape(c)
        i += 1
    return re.compile(out)


def _char_class(pattern: str, i: int, negations: str) -> tuple[str, int]:
    """A `[...]` class starting after `[`: its regex and the index after `]`.

    Raises:
        ValueError: an unclosed or empty class, a bad range.
    """
    negate = i < len(pattern) and pattern[i] in negations
    if negate:
        i += 1
    items: list[str] = []
    first = True
    while True:
        if i >= len(pattern):
            raise ValueError("syntax error in pattern")
        c = pattern[i]
        if c == "]" and not first:
            i += 1
            break
        first = False
        lo, i = _class_char(pattern, i)
        if i < len(pattern) and pattern[i] == "-" and i + 1 < len(pattern) and pattern[i + 1] != "]":
            hi, i = _class_char(pattern, i + 1)
            if hi < lo:
                raise ValueError("syntax error in pattern")
            items.append(f"{re.escape(lo)}-{re.escape(hi)}")
        else:
            items.append(re.escape(lo))
    body = "".join(items)
    return (f"[^/{body}]" if negate else f"[{body}]"), i


def _class_char(pattern: str, i: int) -> tuple[str, int]:
    if pattern[i] == "\\":
        if i + 1 >= len(pattern):
            raise ValueError("syntax error in pattern")
        return pattern[i + 1], i + 2
    return pattern[i], i + 1


# -- github.com/bmatcuk/doublestar/v4 Match -------------------------------------------------------

_DOUBLESTAR: dict[str, re.Pattern[str]] = {}


def _doublestar(pattern: str) -> re.Pattern[str]:
    """doublestar.Match as a regular expression: `**` as a whole segment matches zero or more
    folders (`a/**` matches `a` itself), elsewhere it is `*`; `*`, `?` stop at `/`; `[...]` with
    `!` or `^` negating; `{a,b}` alternatives; `\\` escapes."""
    found = _DOUBLESTAR.get(pattern)
    if found is None:
        found = _DOUBLESTAR[pattern] = re.compile(_ds(pattern))
    return found


def _doublestar_valid(pattern: str) -> bool:
    try:
        _ds(pattern)
    except ValueError:
        return False
    return True


def _ds(pattern: str) -> str:
    segments = pattern.split("/")
    out = ""
    for index, seg in enumerate(segments):
        last = index == len(segments) - 1
        if seg == "**":
            if last:
                # `a/**` matches `a` and everything below; a lone `**` matches everything
                out = (out[:-1] + "(?:/.*)?") if out.endswith("/") else out + ".*"
            else:
                out += "(?:[^/]+/)*"
            continue
        out += _ds_segment(seg) + ("" if last else "/")
    return out


def _ds_segment(seg: str) -> str:
    out, i = "", 0
    while i < len(seg):
        c = seg[i]
        if c == "*":
            while i + 1 < len(seg) and seg[i + 1] == "*":
                i += 1
            out += "[^/]*"
        elif c == "?":
            out += "[^/]"
        elif c == "\\":
            if i + 1 >= len(seg):
                raise ValueError("syntax error in pattern")
            i += 1
            out += re.escape(seg[i])
        elif c == "[":
            cls, i = _char_class(seg, i + 1, "!^")
            out += cls
            continue
        elif c == "{":
            end, depth = i + 1, 1
            while end < len(seg) and depth:
                depth += {"{": 1, "}": -1}.get(seg[end], 0)
                end += 1
            if depth:
                raise ValueError("syntax error in pattern")
            alternatives = _split_top(seg[i + 1:end - 1])
            out += "(?:" + "|".join(_ds_segment(a) for a in alternatives) + ")"
            i = end
            continue
        else:
            out += re.escape(c)
        i += 1
    return out


def _split_top(text: str) -> list[str]:
    parts: list[str] = []
    depth = start = 0
    for i, c in enumerate(text):
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts
