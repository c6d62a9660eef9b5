"""Schema validation that stays fast for one file at a desk and for a 1,000-cluster fleet.

A `Checker` answers yes or no with code fastjsonschema compiled from the schema: 10-50x faster
than jsonschema, 1-20 ms to compile, and compiled once per machine (`gen.codecache` keeps it).
Only a no is explained, by jsonschema, imported then (it would be a tenth of the start-up
time). Schemas given here must use keywords both libraries implement alike (tests compare
them), and patterns mean what JSON Schema says they mean (ECMA-262), in both.
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, Any, Callable, Iterator

import fastjsonschema

from gen import codecache

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError


def ecma_pattern(pattern: str) -> str:
    """A JSON Schema pattern (ECMA-262) as a Python regex with the same meaning.

    ECMA's `$` ends the input; Python's `$` also matches before a final newline, so under
    jsonschema's plain `re.search`, "prod\\n" passes "^[a-z]+$" and a zone name with a trailing
    line break would reach the Corefile. Every unescaped `$` outside a character class
    becomes `\\Z` (fastjsonschema does the same when it compiles).
    """
    out, in_class, i = [], False, 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            out.append(pattern[i:i + 2])
            i += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "$":
            char = "\\Z"
        out.append(char)
        i += 1
    return "".join(out)


@functools.lru_cache(maxsize=None)
def _ecma_regex(pattern: str) -> re.Pattern[str]:
    return re.compile(ecma_pattern(pattern))


def _pattern_keyword(validator: Any, pattern: str, instance: Any, schema: dict[str, Any]) -> Iterator[ValidationError]:
    from jsonschema.exceptions import ValidationError

    if validator.is_type(instance, "string") and not _ecma_regex(pattern).search(instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


@functools.lru_cache(maxsize=None)
def _explaining_class(draft: str) -> Any:
    """jsonschema's validator for the draft, with ECMA `pattern` semantics (see ecma_pattern)."""
    import jsonschema

    base = jsonschema.Draft7Validator if draft == "7" else jsonschema.Draft202012Validator
    return jsonschema.validators.extend(base, {"pattern": _pattern_keyword})


class Checker:
    def __init__(self, schema: dict[str, Any] | Callable[[], dict[str, Any]], draft: str = "2020-12",
                 identity: str | None = None) -> None:
        """`schema` may be a function that builds it, then called only when needed: not when
        the disk cache has the compiled code for `identity` (a cheap name for the schema's
        content, which must change whenever the schema does)."""
        self._schema = schema if isinstance(schema, dict) else None
        self._build = schema if callable(schema) else None
        self.draft = draft
        self.identity = identity
        self._validator: Any = None
        self._compiled: Callable[[Any], Any] | None = None

    @property
    def schema(self) -> dict[str, Any]:
        if self._schema is None:
            assert self._build is not None
            self._schema = self._build()
        return self._schema

    @property
    def validator(self) -> Any:
        """The jsonschema validator (explains errors); built on first use."""
        if self._validator is None:
            self._validator = _explaining_class(self.draft)(self.schema)
        return self._validator

    def _draft7(self) -> dict[str, Any]:
        draft7 = {k: v for k, v in self.schema.items() if k not in {"$schema", "$id"}}
        draft7["$schema"] = "http://json-schema.org/draft-07/schema#"
        return draft7

    def _identity(self) -> str:
        return f"{self.identity} as draft 7" if self.identity else codecache.identity_of(self._draft7())

    def compile(self) -> Callable[[Any], Any]:
        """The compiled validator: from the disk cache, else compiled now (and cached)."""
        if self._compiled is None:
            identity = self._identity()
            self._compiled = codecache.cached(identity) or codecache.compile_validator(self._draft7(), identity)
        return self._compiled

    def is_valid(self, document: Any) -> bool:
        try:
            self.compile()(document)
            return True
        except fastjsonschema.JsonSchemaException:
            return False

    def iter_errors(self, document: Any) -> Iterator[ValidationError]:
        return self.validator.iter_errors(document)  # type: ignore[no-any-return]
