"""The one YAML dumper and the fast loader, with fixed settings so every file has one byte layout.

Why two libraries: values files are read with ruamel.yaml round-trip wherever a position is
needed (every error message), but a fleet render reads and writes thousands of small files, and
ruamel's pure-Python paths cost ~6 ms per file while libyaml (PyYAML's C binding, already a
dependency of kubernetes-validate) costs ~0.3 ms. ruamel's own C emitter rejects literal block
scalars (0.19: "TypeError: value must be a string"). So: libyaml for the fast path, resolving
plain scalars by the YAML 1.2 core schema exactly as ruamel does, and ruamel for positions.
A test asserts both loaders give the same data for every values file we ship.
"""

from __future__ import annotations

import functools
import re
from typing import Any, Iterable

import yaml
from yaml._yaml import CParser

_STR = "tag:yaml.org,2002:str"


class _Dumper(yaml.CSafeDumper):
    """Block style, insertion key order, literal blocks for multi-line text (Corefiles)."""

    def ignore_aliases(self, data: Any) -> bool:
        return True  # a shared dict is written out in full: reviewers and kustomize read plain YAML


def _represent_str(dumper: _Dumper, data: str) -> yaml.Node:
    if "\n" in data:
        return dumper.represent_scalar(_STR, data, style="|")
    return dumper.represent_scalar(_STR, data)


_Dumper.add_representer(str, _represent_str)


def _dump_libyaml(doc: Any) -> str:
    # width: never fold long strings, a folded Corefile line is a different file
    return yaml.dump(doc, Dumper=_Dumper, sort_keys=False, default_flow_style=False, width=4096, allow_unicode=True)


class _Unsupported(Exception):
    """A value the direct writer does not handle; the whole document goes to libyaml instead."""


# Words that start with a letter, '/' or './' and hold only these characters are written plain
# by libyaml unless a YAML 1.1 resolver would read them as a bool or null (numbers, dates, .inf
# and the like cannot start that way). Checked by a test against libyaml itself.
_PLAIN_WORD = re.compile(r"^(?:[A-Za-z/]|\./)[A-Za-z0-9_./-]*$")
_YAML11_WORDS = frozenset({"yes", "no", "true", "false", "on", "off", "null", "y", "n"})


def _scalar(value: str | int | bool | None, as_key: bool) -> str:
    """How libyaml writes one single-line scalar in block context."""
    if isinstance(value, str):
        if _PLAIN_WORD.match(value) and value.lower() not in _YAML11_WORDS:
            return value
    elif isinstance(value, bool):
        return "true" if value else "false"
    elif isinstance(value, int):
        return str(value)
    return _scalar_by_libyaml(value, as_key)


@functools.lru_cache(maxsize=8192, typed=True)  # typed: 1 and True are different scalars
def _scalar_by_libyaml(value: str | int | bool | None, as_key: bool) -> str:
    text = _dump_libyaml({value: 0} if as_key else [value])
    line = text[: -len(": 0\n")] if as_key else text[2:-1]
    if "\n" in line:
        raise _Unsupported(value)
    return line


# A render writes the same keys and most values thousands of times: each string is worked out once.
_KEYS: dict[str, str] = {}
_TEXTS: dict[str, str] = {}
_REMEMBER = 1 << 16  # entries per table; past that, new strings are worked out every time


def _key(key: Any) -> str:
    if key.__class__ is not str:
        raise _Unsupported(key)
    text = _scalar(key, True)
    if len(_KEYS) < _REMEMBER:
        _KEYS[key] = text
    return text


def _text(value: str) -> str:
    text = _scalar(value, False)
    if len(_TEXTS) < _REMEMBER:
        _TEXTS[value] = text
    return text


_LITERAL_SAFE = re.compile(r"^[^\s][\x20-\x7e]*(?:\n(?:[\x21-\x7e][\x20-\x7e]*[\x21-\x7e]|[\x21-\x7e]|[ ]+[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?)?)*\n$")


def _literal(value: str, indent: str, out: list[str]) -> None:
    """A multi-line string as a `|` block (Corefiles), when libyaml would write it the same way."""
    if not _LITERAL_SAFE.match(value) or value.endswith("\n\n"):
        raise _Unsupported(value)
    inner = indent + "  "
    out.append(" |\n")
    out.extend(f"{inner}{line}\n" if line else "\n" for line in value[:-1].split("\n"))


def _mapping(doc: dict[Any, Any], indent: str, out: list[str], first_prefix: str | None = None) -> None:
    """Append a block mapping. Dispatch is on exact types: anything else (floats, subclasses)
    raises _Unsupported and the whole document goes to libyaml."""
    prefix = indent if first_prefix is None else first_prefix
    for key, value in doc.items():
        head = prefix + (_KEYS.get(key) or _key(key)) + ":"
        prefix = indent
        cls = value.__class__
        if cls is str:
            if "\n" in value:
                out.append(head)
                _literal(value, indent, out)
            else:
                out.append(f"{head} {_TEXTS.get(value) or _text(value)}\n")
        elif cls is dict:
            if value:
                out.append(head + "\n")
                _mapping(value, indent + "  ", out)
            else:
                out.append(head + " {}\n")
        elif cls is list:
            if value:
                out.append(head + "\n")
                _sequence(value, indent, out)  # libyaml's default: list items at the key's indent
            else:
                out.append(head + " []\n")
        elif cls is int or cls is bool or value is None:
            out.append(f"{head} {_scalar(value, False)}\n")
        else:
            raise _Unsupported(value)


def _sequence(items: list[Any], indent: str, out: list[str]) -> None:
    for item in items:
        cls = item.__class__
        if cls is dict and item:
            _mapping(item, indent + "  ", out, first_prefix=indent + "- ")
        elif cls is str and "\n" not in item:
            out.append(f"{indent}- {_TEXTS.get(item) or _text(item)}\n")
        elif cls is int or cls is bool or item is None:
            out.append(f"{indent}- {_scalar(item, False)}\n")
        else:
            raise _Unsupported(item)


def dump(doc: Any) -> str:
    """Dump one document; key order is the insertion order the caller chose.

    A direct writer covers what we render (mappings, lists, single-line scalars, Corefile
    blocks) and asks libyaml how to write each distinct scalar; anything else goes to libyaml
    whole. Both give the same bytes (tested), the direct writer ~5x faster.
    """
    if isinstance(doc, dict) and doc:
        out: list[str] = []
        try:
            _mapping(doc, "", out)
            return "".join(out)
        except _Unsupported:
            pass
    return _dump_libyaml(doc)


def dump_all(docs: Iterable[Any]) -> str:
    """Dump several documents separated by `---`."""
    return "---\n".join(dump(d) for d in docs)


class DuplicateKeyError(ValueError):
    """libyaml keeps the last of two equal keys; YAML forbids them, so the fast path refuses."""


class _Core12Loader(yaml.CSafeLoader):
    """libyaml composing with the YAML 1.2 core schema's implicit tags (what ruamel resolves):
    no yes/no/on/off booleans, no sexagesimal or underscore numbers, no timestamps.
    `_construct` below turns its nodes into data."""

    yaml_implicit_resolvers: dict[Any, Any] = {}

    def __init__(self, stream: str) -> None:
        CParser.__init__(self, stream)  # (the constructor's and resolver's state: never used here)


class AmbiguousScalarError(ValueError):
    """A plain scalar ruamel resolves by rules the fast path does not copy (dates, 1_000, 0b1)."""


_AMBIGUOUS = "tag:coredns-gen,2026:ambiguous"
for _tag, _pattern, _first in (
    # Checked first: these send the file down the ruamel path, so both paths agree by construction.
    (_AMBIGUOUS, r"^(?:[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}|[-+]?(?:0b)?[0-9.]*_[0-9_.]*|[-+]?0b[01]+|[-+]0[xo]|[-+]?[0-9]+:[0-5]?[0-9])",
     "-+0123456789"),
    ("tag:yaml.org,2002:bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    ("tag:yaml.org,2002:int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", "-+0123456789"),
    ("tag:yaml.org,2002:float",
     r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
     "-+.0123456789"),
    ("tag:yaml.org,2002:null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
):
    _Core12Loader.add_implicit_resolver(_tag, re.compile(_pattern), list(_first))


_SEQ_TAG, _MAP_TAG = "tag:yaml.org,2002:seq", "tag:yaml.org,2002:map"
_BY_FIRST_CHAR: dict[str, list[tuple[str, re.Pattern[str]]]] = dict(_Core12Loader.yaml_implicit_resolvers)


_SCALAR_NODE, _SEQUENCE_NODE = yaml.ScalarNode, yaml.SequenceNode
# Plain scalars' tags, worked out once: every values file repeats the keys, and a fleet most values.
_PLAIN_TAGS: dict[str, str] = {}


def _plain_tag(value: str) -> str:
    for tag, pattern in _BY_FIRST_CHAR.get(value[:1], ()):
        if pattern.match(value):
            return tag
    return _STR


def _resolve(self: _Core12Loader, kind: type, value: str | None, implicit: tuple[bool, bool]) -> str:
    """BaseResolver.resolve for our table alone: the C composer calls it for every node, and
    the generic one also walks path resolvers and wildcard lists we never register."""
    if kind is _SCALAR_NODE:
        if implicit[0]:
            tag = _PLAIN_TAGS.get(value)  # type: ignore[arg-type]
            if tag is None:
                tag = _plain_tag(value)  # type: ignore[arg-type]
                if len(_PLAIN_TAGS) < _REMEMBER:
                    _PLAIN_TAGS[value] = tag  # type: ignore[index]
            return tag
        return _STR
    return _SEQ_TAG if kind is _SEQUENCE_NODE else _MAP_TAG


_Core12Loader.resolve = _resolve  # type: ignore[assignment]
# descend/ascend_resolver track the path only for path resolvers, which we do not use. The
# composer calls both for every node, so they are C-level no-ops, not Python functions (a
# Python call from C costs more than the lookup of a dict): `{}.get(parent, index)` and `tuple()`.
_Core12Loader.descend_resolver = {}.get  # type: ignore[assignment]
_Core12Loader.ascend_resolver = tuple  # type: ignore[assignment]


def _int(value: str) -> int:
    return int(value[2:], 8) if value.startswith("0o") else int(value, 0) if value.startswith("0x") else int(value)


def _float(value: str) -> float:
    return float(value.replace(".inf", "inf").replace(".Inf", "inf").replace(".INF", "inf").replace(".nan", "nan")
                 .replace(".NaN", "nan").replace(".NAN", "nan"))


_SCALARS: dict[str, Any] = {
    "tag:yaml.org,2002:bool": lambda v: v[0] in "tT",
    "tag:yaml.org,2002:null": lambda v: None,
    "tag:yaml.org,2002:int": _int,
    "tag:yaml.org,2002:float": _float,
}


class AliasError(ValueError):
    """A collection reached twice: YAML anchors and aliases (and alias bombs) are not followed."""


class KeyTypeError(ValueError):
    """A mapping key that is not a string (a number, null, a list): every document we read keys
    by name, so the fast path refuses and ruamel's path says where."""


class UnprintableScalarError(ValueError):
    """A string holding a line break, tab or other non-printable character: values files take
    the ruamel path then, which checks them and can say where they are."""


def _construct(node: yaml.Node, seen: set[int]) -> Any:
    """Plain data from a composed node: what SafeConstructor does, minus its generic machinery.

    libyaml composes in C; walking its nodes here costs a third of PyYAML's constructor, which
    matters at fleet scale. Tags other than the core ones (and the ambiguous marker) raise, and
    so does any collection node met twice (an alias), before it could be expanded.
    """
    cls = node.__class__
    if cls is yaml.ScalarNode:
        tag, value = node.tag, node.value
        if tag == _STR:
            if value.isprintable():
                return value
            raise UnprintableScalarError(value)
        convert = _SCALARS.get(tag)
        if convert is not None:
            return convert(value)
        if tag == _AMBIGUOUS:
            raise AmbiguousScalarError(value)
        raise AmbiguousScalarError(f"tag {tag}")  # explicit tags (!!binary, !custom): let ruamel decide
    if id(node) in seen:
        raise AliasError(node.start_mark)
    seen.add(id(node))
    if cls is yaml.MappingNode:
        mapping: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            key = _construct(key_node, seen)
            if key.__class__ is not str:
                raise KeyTypeError(key_node.start_mark)
            if key in mapping:
                raise DuplicateKeyError(key_node.start_mark)
            mapping[key] = _construct(value_node, seen)
        return mapping
    return [_construct(item, seen) for item in node.value]


def load_fast(text: str) -> list[Any]:
    """Every document as plain data, YAML 1.2 core schema.

    Every string it returns is printable (str.isprintable).

    Raises:
        yaml.YAMLError, DuplicateKeyError, AmbiguousScalarError, AliasError, UnprintableScalarError:
            take the ruamel path instead.
    """
    loader = _Core12Loader(text)
    try:
        docs = []
        while loader.check_node():
            node = loader.get_node()
            docs.append(None if node is None else _construct(node, set()))
        return docs
    finally:
        loader.dispose()


class Positions:
    """0-based positions of a collection and its parts, as ruamel's `.lc` gives them (line,
    col, key(k), value(k), item(i)), so error reporting reads either kind of document."""

    __slots__ = ("line", "col", "_keys", "_values", "_items")

    def __init__(self, mark: Any) -> None:
        self.line, self.col = mark.line, mark.column
        self._keys: dict[Any, tuple[int, int]] = {}
        self._values: dict[Any, tuple[int, int]] = {}
        self._items: list[tuple[int, int]] = []

    def key(self, k: Any) -> tuple[int, int]:
        return self._keys[k]

    def value(self, k: Any) -> tuple[int, int]:
        return self._values[k]

    def item(self, i: int) -> tuple[int, int]:
        return self._items[i]


class PositionedMap(dict):  # type: ignore[type-arg]
    __slots__ = ("lc",)
    lc: Positions


class PositionedSeq(list):  # type: ignore[type-arg]
    __slots__ = ("lc",)
    lc: Positions


def _at(mark: Any) -> tuple[int, int]:
    return mark.line, mark.column


def _construct_positioned(node: yaml.Node) -> Any:
    """What _construct returns (it already succeeded on this text), with `.lc` positions."""
    if node.__class__ is yaml.ScalarNode:
        return _construct(node, set())
    if node.__class__ is yaml.MappingNode:
        mapping = PositionedMap()
        lc = mapping.lc = Positions(node.start_mark)
        for key_node, value_node in node.value:
            key = _construct(key_node, set())
            mapping[key] = _construct_positioned(value_node)
            lc._keys[key] = _at(key_node.start_mark)
            lc._values[key] = _at(value_node.start_mark)
        return mapping
    seq = PositionedSeq()
    lc = seq.lc = Positions(node.start_mark)
    for item in node.value:
        seq.append(_construct_positioned(item))
        lc._items.append(_at(item.start_mark))
    return seq


def load_positioned(text: str) -> Any:
    """The one document of a text `load_fast` read without error, with ruamel-style positions:
    a valid file's problems are explained without ruamel's pure-Python parser (~50x slower,
    minutes for a file with 150,000 problems)."""
    loader = _Core12Loader(text)
    try:
        while loader.check_node():
            node = loader.get_node()
            if node is not None:
                return _construct_positioned(node)
        return None
    finally:
        loader.dispose()


def load_all_safe(text: str) -> list[Any]:
    """Load every document of a manifest stream as plain Python data (kubectl output, overlays).

    Raises:
        yaml.YAMLError: not YAML. AliasBombError: its aliases expand it past MAX_ALIAS_GROWTH.
    """
    docs = [d for d in yaml.load_all(text, Loader=yaml.CSafeLoader) if d is not None]
    refuse_alias_bombs(docs)
    return docs


MAX_ALIAS_GROWTH = 100_000  # nodes the aliases of a stream may add to what it writes out


class AliasBombError(ValueError):
    """Aliases that make a small document a huge one ("billion laughs": nine aliases of nine
    aliases … in 1 KB are 10^9 nodes). A loader shares the aliased object, so loading is quick;
    whatever walks the data afterwards (a JSON dump, a template, a comparison) never ends."""


def alias_growth(docs: Iterable[Any]) -> int:
    """How many more nodes `docs` hold when every alias is followed than they write out
    (0 or less without aliases); counted once per shared collection, so it is quick however
    large the answer. A collection that holds itself counts once."""
    sizes: dict[int, int] = {}
    seen: set[int] = set()
    written = 0
    stack: list[tuple[Any, bool]] = [(d, False) for d in docs]
    while stack:
        node, done = stack.pop()
        children = list(node.values()) + list(node) if isinstance(node, dict) else node
        if done:
            sizes[id(node)] = 1 + sum(sizes.get(id(c), 1) if isinstance(c, (dict, list)) else 1 for c in children)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        written += 1 + len(children)
        stack.append((node, True))
        stack.extend((c, False) for c in children if isinstance(c, (dict, list)) and id(c) not in seen)
    expanded = sum(sizes.get(id(d), 1) for d in docs if isinstance(d, (dict, list)))
    return expanded - written


def refuse_alias_bombs(docs: list[Any]) -> None:
    """Raises AliasBombError when the aliases of `docs` add more than MAX_ALIAS_GROWTH nodes."""
    if any(isinstance(d, (dict, list)) for d in docs) and alias_growth(docs) > MAX_ALIAS_GROWTH:
        raise AliasBombError(f"its YAML aliases expand it by more than {MAX_ALIAS_GROWTH:,} nodes (an alias bomb)")


MAX_DEPTH = 100  # collections inside collections: a parser's own stack gives out a few hundred deeper


def _first_too_deep(events: Iterable[Any], limit: int, start: tuple[type[Any], ...],
                    end: tuple[type[Any], ...]) -> tuple[int | None, int | None]:
    depth = 0
    for event in events:
        if isinstance(event, start):
            depth += 1
            if depth > limit:
                mark = event.start_mark
                return (mark.line + 1, mark.column + 1) if mark is not None else (None, None)
        elif isinstance(event, end):
            depth -= 1
    return None, None


def past_parser_limit(err: BaseException) -> bool:
    """A reader's own depth limit, not a syntax error: libyaml's (PyYAML >= 6.0.4 stops at 1000
    levels: "exceeded maximum nesting depth") or Python's recursion limit (ruamel's composer,
    PyYAML's pure-Python loader, json) a few hundred levels down. Either means "too deep"."""
    return isinstance(err, RecursionError) or "maximum nesting depth" in str(getattr(err, "problem", None) or "")


def deepest(text: str, limit: int) -> tuple[int | None, int | None]:
    """1-based line and column of the first collection nested deeper than `limit`, found from
    an event stream (flat, no recursion), or (None, None).

    libyaml's first: fast. When it stops before a verdict, ruamel's own parser decides, because
    ruamel composes the text next and recursion is what runs out there: libyaml's own nesting
    limit (PyYAML >= 6.0.4: 1000 levels, met while scanning a flow run, before the parser emits
    level 101) and the syntax libyaml refuses but ruamel accepts (`a: &x: 1`) must not let a deep
    document through. ruamel's parser is flat too (its composer recurses); where it stops with an
    error, its composer stops at the same place and reports it.
    """
    try:
        return _first_too_deep(yaml.parse(text, Loader=yaml.CSafeLoader), limit,
                               (yaml.MappingStartEvent, yaml.SequenceStartEvent), (yaml.MappingEndEvent, yaml.SequenceEndEvent))
    except yaml.YAMLError:
        pass
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError as RuamelError
    from ruamel.yaml.events import CollectionEndEvent, CollectionStartEvent

    try:
        return _first_too_deep(YAML(typ="rt", pure=True).parse(text), limit, (CollectionStartEvent,), (CollectionEndEvent,))
    except RuamelError:
        return None, None
