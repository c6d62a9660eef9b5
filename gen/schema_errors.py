"""Turn jsonschema errors into `file:line:col: key: problem — fix` lines.

jsonschema's own messages dump Python reprs ("'x' is not of type 'integer'"); users need the
key path, the line, and a fix. Pattern checks carry their wording in the schema itself
(`x-problem`, `x-hint`), so the schema stays the one place that defines a field.
"""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING, Any, Iterable, Sequence


from gen.document import kind_of
from gen.errors import Problem, quote
from gen.validation import Checker

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError

_TYPE_NAMES = {"string": "a string", "integer": "an integer", "number": "a number", "boolean": "true or false",
               "array": "a list", "object": "a mapping", "null": "null"}


def key_path(path: Iterable[Any]) -> str:
    """['upstream', 'resolvers', 1] -> 'upstream.resolvers[1]'."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def locate(data: Any, path: Sequence[Any]) -> tuple[int | None, int | None]:
    """1-based (line, col) of the deepest node on `path` that ruamel recorded."""
    line: int | None = None
    col: int | None = None
    node = data
    if hasattr(node, "lc"):
        line, col = node.lc.line + 1, node.lc.col + 1
    for part in path:
        try:
            if isinstance(node, dict) and hasattr(node, "lc") and part in node:
                pos = node.lc.value(part) if not isinstance(node[part], (dict, list)) else node.lc.key(part)
                line, col = pos[0] + 1, pos[1] + 1
            elif isinstance(node, list) and hasattr(node, "lc") and isinstance(part, int) and part < len(node):
                pos = node.lc.item(part)
                line, col = pos[0] + 1, pos[1] + 1
            node = node[part]
        except (KeyError, IndexError, TypeError):
            break
    return line, col


def _key_position(data: Any, path: Sequence[Any], key: str) -> tuple[int | None, int | None]:
    node: Any = data
    for part in path:
        node = node[part]
    if hasattr(node, "lc") and key in node:
        line, col = node.lc.key(key)
        return line + 1, col + 1
    return locate(data, path)


def _unexplained(shown: str) -> Problem:
    """The compiled gate refused what the explaining validator accepts: never let it pass."""
    return Problem("fails the values schema, but no check could say where", file=shown,
                   hint="this is a coredns-gen bug; please report it with the file")


class SchemaChecker:
    """A compiled values schema; compile once, check many files (the render benchmark needs it).

    Validation goes through `gen.validation.Checker` (compiled code; jsonschema explains a no).
    """

    def __init__(self, schema: dict[str, Any]) -> None:
        self.checker = Checker(schema)

    def problems(self, data: Any, shown: str) -> list[Problem]:
        if self.checker.is_valid(data):
            return []
        out: list[Problem] = []
        for err in self.checker.iter_errors(data):
            out.extend(self._explain(err, data, shown))
        return out or [_unexplained(shown)]

    def _explain(self, err: ValidationError, data: Any, shown: str) -> Iterable[Problem]:
        path = list(err.absolute_path)
        key = key_path(path) or "(top level)"
        line, col = locate(data, path)
        schema = err.schema if isinstance(err.schema, dict) else {}
        v, inst = err.validator, err.instance
        if v == "additionalProperties":
            allowed = sorted(schema.get("properties", {}))
            for extra in sorted(set(inst) - set(allowed)):
                close = difflib.get_close_matches(extra, allowed, n=1)
                hint = f"did you mean '{close[0]}'?" if close else f"remove it; allowed keys: {', '.join(allowed)}"
                kl, kc = _key_position(data, path, extra)
                yield Problem(f"unknown key '{extra}'", file=shown, line=kl, col=kc, key=key_path([*path, extra]), hint=hint)
        elif v == "required":
            missing = err.message.split("'")[1] if "'" in err.message else str(err.validator_value)
            sub = schema.get("properties", {}).get(missing, {})
            hint = sub.get("description") or f"add `{missing}:`"
            yield Problem(f"missing required key '{missing}'", file=shown, line=line, col=col, key=key, hint=f"add `{missing}:` ({hint})")
        elif v == "type":
            want = err.validator_value if isinstance(err.validator_value, list) else [err.validator_value]
            names = " or ".join(_TYPE_NAMES.get(str(w), str(w)) for w in want)
            yield Problem(f"expected {names}, got {kind_of(inst)}", file=shown, line=line, col=col, key=key,
                          hint=schema.get("x-hint") or f"write {names}")
        elif v == "enum":
            options = ", ".join(str(o) for o in err.validator_value)
            yield Problem(f"{quote(str(inst))} is not one of {options}", file=shown, line=line, col=col, key=key, hint=f"use one of {options}")
        elif v == "pattern":
            yield Problem(f"{quote(inst)} {schema.get('x-problem', 'has the wrong form')}", file=shown, line=line, col=col, key=key,
                          hint=schema.get("x-hint"))
        elif v in {"minimum", "maximum"}:
            word = "at least" if v == "minimum" else "at most"
            yield Problem(f"{inst} is out of range", file=shown, line=line, col=col, key=key,
                          hint=schema.get("x-hint") or f"use {word} {err.validator_value}")
        elif v in {"minItems", "maxItems"}:
            word = "at least" if v == "minItems" else "at most"
            yield Problem(f"has {len(inst)} item(s)", file=shown, line=line, col=col, key=key, hint=f"give {word} {err.validator_value}")
        elif v == "uniqueItems":
            yield Problem("lists an item twice", file=shown, line=line, col=col, key=key, hint="remove the repeated item")
        elif v in {"minProperties", "maxProperties"}:
            yield Problem("must set exactly one of " + ", ".join(sorted(schema.get("properties", {}))), file=shown,
                          line=line, col=col, key=key, hint="keep one key")
        elif v == "minLength":
            yield Problem("is empty", file=shown, line=line, col=col, key=key, hint="give a value")
        else:  # a keyword we did not word yet: still say where, never dump objects
            yield Problem(err.message.splitlines()[0][:200], file=shown, line=line, col=col, key=key)
