"""One YAML document a user wrote (a values file, `.coredns-gen.yaml`), read with positions.

Every mapping and sequence knows its line (ruamel's `.lc`, or the same positions from libyaml
when it reads the file without a doubt: `read_mapping`), so a problem found later names file,
line and column. Refused before parsing: a file that is missing, not a regular UTF-8
text file, empty, nested deeper than ruamel's stack allows, more than one document, anchors and
aliases (the mark of alias bombs), anything but a mapping. Its own module because every command
reads `.coredns-gen.yaml` (the guard too), and the values module also pulls the schema
validators, the platforms and the renderer, which only `render` and `verify` use.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

import yaml

from gen import yamlio
from gen.errors import Problem, ValuesError, quote
from gen.inputfile import read_user_file

if TYPE_CHECKING:
    from ruamel.yaml import YAML


def _yaml() -> YAML:
    from ruamel.yaml import YAML  # imported here: a fleet of valid files never needs it (a tenth of start-up)

    yaml = YAML(typ="rt", pure=True)
    yaml.allow_duplicate_keys = False
    return yaml


def _shared_nodes(data: Any) -> Iterator[Any]:
    """Yield containers reached twice: the mark of YAML aliases (and of alias bombs)."""
    seen: set[int] = set()
    stack = [data]
    while stack:
        node = stack.pop()
        if isinstance(node, (dict, list)):
            if id(node) in seen:
                yield node
                return
            seen.add(id(node))
            stack.extend(node.values() if isinstance(node, dict) else node)


def read_text(path: Path, shown: str) -> str:
    """The file's text; a missing, unreadable, non-regular, undecodable or empty file is a ValuesError."""
    text = read_user_file(path, shown, missing_hint="check the path; run `coredns-gen new` to start one")
    if all(not line.strip() or line.lstrip().startswith("#") for line in text.splitlines()):
        raise ValuesError(Problem("file is empty", file=shown, line=1, col=1, hint="start from `coredns-gen new --platform talos --cluster NAME`"))
    return text


def _too_deep(text: str, shown: str) -> ValuesError | None:
    """YAML nested beyond MAX_DEPTH: ruamel's parser runs out of stack on it (and its scanner
    slows down with every open flow level), so it is refused before ruamel sees it."""
    line, col = yamlio.deepest(text, yamlio.MAX_DEPTH)
    if line is None:
        return None
    return ValuesError(Problem(f"nested more than {yamlio.MAX_DEPTH} levels deep", file=shown, line=line, col=col,
                               hint="a values file nests a few levels; write the value out flat"))


def read_document(path: Path, shown: str, text: str | None = None) -> Any:
    """Read one YAML document with positions (ruamel round-trip); anything but a mapping is a ValuesError."""
    from ruamel.yaml.error import MarkedYAMLError

    if text is None:
        text = read_text(path, shown)
    deep = _too_deep(text, shown)
    if deep is not None:
        raise deep
    try:
        docs = list(_yaml().load_all(text))
    except ValueError as err:  # a scalar Python cannot hold (a 100,000-digit integer, a 13th month)
        line, col = _unreadable_scalar(text)
        raise ValuesError(Problem(f"a value YAML reads as a number or date Python cannot hold: {str(err)[:200]}", file=shown,
                                  line=line, col=col, hint="quote it if it is text; no value of a values file is that large")) from None
    except MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        what = (err.problem or err.context or "invalid YAML").strip()
        hint = "YAML forbids repeating a key; keep one" if "duplicate" in what else "fix the YAML syntax"
        raise ValuesError(Problem(f"invalid YAML: {what}", file=shown,
                                  line=mark.line + 1 if mark else None, col=mark.column + 1 if mark else None, hint=hint)) from None
    docs = [d for d in docs if d is not None]
    if len(docs) != 1:
        raise ValuesError(Problem(f"expected one YAML document, found {len(docs)}", file=shown, line=1, col=1,
                                  hint="keep one cluster per values file"))
    data = docs[0]
    for node in _shared_nodes(data):
        line, col = (node.lc.line + 1, node.lc.col + 1) if hasattr(node, "lc") else (None, None)
        raise ValuesError(Problem("anchors and aliases are not supported in values files", file=shown, line=line, col=col,
                                  hint="write the values out in full"))
    if not isinstance(data, dict):
        raise ValuesError(Problem(f"the document is {kind_of(data)}, not a mapping", file=shown, line=1, col=1,
                                  hint="start with `cluster:`, `platform:` and `platformVersion:` keys"))
    keys = list(_not_string_keys(data))
    if keys:
        raise ValuesError([Problem(f"the key {quote(list(key) if isinstance(key, tuple) else key)} is "
                                   f"{'a list' if isinstance(key, tuple) else kind_of(key)}, not a string", file=shown, line=line, col=col,
                                   hint="write keys as plain names (quote one that looks like a number or null)")
                           for key, line, col in keys])
    return data


def _not_string_keys(data: Any) -> Iterator[tuple[Any, int | None, int | None]]:
    """(key, line, col) of every mapping key that is not a string: YAML allows numbers, null and
    even lists as keys; every document coredns-gen reads names its keys."""
    stack = [data]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                if not isinstance(key, str):
                    lc = getattr(node, "lc", None)
                    line, col = lc.key(key) if lc is not None else (None, None)
                    yield key, None if line is None else line + 1, None if col is None else col + 1
                stack.append(value)
        elif isinstance(node, list):
            stack.extend(node)


_LONG_NUMBER = re.compile(r"[-+]?[0-9][0-9_]{4000,}")
_DATE = re.compile(r"\b([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})\b")


def _unreadable_scalar(text: str) -> tuple[int | None, int | None]:
    """Where the scalar ruamel could not construct is (its ValueError carries no position): a
    number too long for Python, else a date that is not one; (None, None) when neither."""
    import datetime

    found = _LONG_NUMBER.search(text)
    if found is None:
        for date in _DATE.finditer(text):
            try:
                datetime.date(*map(int, date.groups()))
            except ValueError:
                found = date
                break
    if found is None:
        return None, None
    line = text.count("\n", 0, found.start()) + 1
    return line, found.start() - (text.rfind("\n", 0, found.start()) + 1) + 1


def quick_document(text: str) -> dict[str, Any] | None:
    """The one mapping of `text` by libyaml (see yamlio); None whenever ruamel must decide or explain."""
    try:
        docs = [d for d in yamlio.load_fast(text) if d is not None]
    except (yaml.YAMLError, ValueError, RecursionError):
        return None
    if len(docs) != 1 or not isinstance(docs[0], dict):  # (aliases already raised AliasError)
        return None
    return docs[0]


def read_mapping(path: Path, shown: str) -> Any:
    """`read_document` through libyaml when it reads the file as one mapping, with the same
    `.lc` positions: ruamel's import and pure-Python parse (~30 ms) are then paid only to explain
    a problem, not by every command that reads `.coredns-gen.yaml` (the guard, on every run)."""
    text = read_text(path, shown)
    if quick_document(text) is not None:
        return yamlio.load_positioned(text)
    return read_document(path, shown, text)


_KINDS = ((bool, "true/false"), (int, "an integer"), (float, "a number"), (str, "a string"),
          (list, "a list"), (dict, "a mapping"))  # bool first: True is an int too


def kind_of(value: Any) -> str:
    """A value's type as a message names it (`got a list`)."""
    for kind, name in _KINDS:
        if isinstance(value, kind):
            return name
    return "null" if value is None else type(value).__name__
