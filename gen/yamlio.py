"""The one YAML dumper (fixed ruamel settings) so every generated file has one byte layout.

Multi-line strings (Corefiles) are written as literal blocks so reviewers read them as text.
"""

from __future__ import annotations

import io
from typing import Any, Iterable

from ruamel.yaml import YAML
from ruamel.yaml.scalarstring import LiteralScalarString


def _plain(value: Any) -> Any:
    """Copy into plain dicts/lists, turning multi-line strings into literal scalars."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, str) and "\n" in value:
        return LiteralScalarString(value)
    return value


def _dumper() -> YAML:
    yaml = YAML(typ="rt", pure=True)
    yaml.default_flow_style = False
    yaml.width = 4096  # never fold long strings: a folded Corefile line is a different file
    yaml.indent(mapping=2, sequence=2, offset=0)
    yaml.explicit_start = False
    return yaml


def dump(doc: Any) -> str:
    """Dump one document; key order is the insertion order the caller chose."""
    buf = io.StringIO()
    _dumper().dump(_plain(doc), buf)
    return buf.getvalue()


def dump_all(docs: Iterable[Any]) -> str:
    """Dump several documents separated by `---`."""
    return "---\n".join(dump(d) for d in docs)


def load_all_safe(text: str) -> list[Any]:
    """Load every document of a manifest stream as plain Python data (no tags, no aliases kept)."""
    yaml = YAML(typ="safe", pure=True)
    return [d for d in yaml.load_all(text) if d is not None]
