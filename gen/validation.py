"""Schema validation that stays fast for one file at a desk and for a 1,000-cluster fleet.

jsonschema explains errors (every error, with its path) and starts instantly; fastjsonschema
compiles a schema into Python code that checks a document 10-50x faster but costs 30-130 ms
to compile. So a `Checker` answers with jsonschema until it has seen COMPILE_AFTER documents,
then compiles once; errors are always explained by jsonschema. Schemas given here must use
keywords both libraries implement alike (tests compare them on valid and invalid documents).
"""

from __future__ import annotations

from typing import Any, Callable, Iterator

import fastjsonschema
import jsonschema
from jsonschema.exceptions import ValidationError

COMPILE_AFTER = 16


class Checker:
    def __init__(self, schema: dict[str, Any], validator_class: type = jsonschema.Draft202012Validator) -> None:
        self.schema = schema
        self.validator = validator_class(schema)
        self._compiled: Callable[[Any], Any] | None = None
        self._seen = 0

    def compile(self) -> Callable[[Any], Any]:
        if self._compiled is None:
            draft7 = {k: v for k, v in self.schema.items() if k not in {"$schema", "$id"}}
            draft7["$schema"] = "http://json-schema.org/draft-07/schema#"
            self._compiled = fastjsonschema.compile(draft7)
        return self._compiled

    def is_valid(self, document: Any) -> bool:
        self._seen += 1
        if self._compiled is None and self._seen <= COMPILE_AFTER:
            return bool(self.validator.is_valid(document))
        try:
            self.compile()(document)
            return True
        except fastjsonschema.JsonSchemaException:
            return False

    def iter_errors(self, document: Any) -> Iterator[ValidationError]:
        return self.validator.iter_errors(document)  # type: ignore[no-any-return]
