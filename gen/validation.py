"""Schema validation that stays fast for one file at a desk and for a 1,000-cluster fleet.

jsonschema explains errors (every error, with its path) and starts instantly; fastjsonschema
compiles a schema into Python code that checks a document 10-50x faster but costs 30-130 ms
to compile. So a `Checker` answers with jsonschema until it has seen COMPILE_AFTER documents,
then compiles once (at the second when the caller announced a fleet); errors are always explained
by jsonschema, imported only when needed (it is a tenth of the start-up time). Schemas given
here must use keywords both libraries implement alike (tests compare them).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterator

import fastjsonschema

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError

COMPILE_AFTER = 16
COMPILE_AFTER_IN_FLEET = 2  # the second distinct document of a kind: identical ones are memoised
_compile_after = COMPILE_AFTER


def expect_fleet() -> None:
    """Many documents are coming (a fleet render): compile a validator once a kind repeats."""
    global _compile_after
    _compile_after = COMPILE_AFTER_IN_FLEET


class Checker:
    def __init__(self, schema: dict[str, Any], draft: str = "2020-12") -> None:
        self.schema = schema
        self.draft = draft
        self._validator: Any = None
        self._compiled: Callable[[Any], Any] | None = None
        self._seen = 0

    @property
    def validator(self) -> Any:
        """The jsonschema validator (explains errors); built on first use."""
        if self._validator is None:
            import jsonschema

            cls = jsonschema.Draft7Validator if self.draft == "7" else jsonschema.Draft202012Validator
            self._validator = cls(self.schema)
        return self._validator

    def compile(self) -> Callable[[Any], Any]:
        if self._compiled is None:
            draft7 = {k: v for k, v in self.schema.items() if k not in {"$schema", "$id"}}
            draft7["$schema"] = "http://json-schema.org/draft-07/schema#"
            self._compiled = fastjsonschema.compile(draft7)
        return self._compiled

    def is_valid(self, document: Any) -> bool:
        self._seen += 1
        if self._compiled is None and self._seen < _compile_after:
            return bool(self.validator.is_valid(document))
        try:
            self.compile()(document)
            return True
        except fastjsonschema.JsonSchemaException:
            return False

    def iter_errors(self, document: Any) -> Iterator[ValidationError]:
        return self.validator.iter_errors(document)  # type: ignore[no-any-return]
