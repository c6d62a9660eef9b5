"""Fast YAML reading for the guard: libyaml when present, with line numbers when asked.

The guard reads thousands of small files per run, so it uses PyYAML's C loader (installed with
kubernetes-validate) for data and its composer only where a finding needs a line number.
ruamel.yaml (gen/yamlio.py) stays the one *writer*.
"""

from __future__ import annotations

import functools
from typing import Any

import yaml

_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@functools.lru_cache(maxsize=65536)
def _docs_cached(text: str) -> tuple[Any, ...]:
    return tuple(d for d in yaml.load_all(text, Loader=_Loader) if d is not None)


def load_docs(text: str) -> list[Any]:
    """Every non-empty document; raises yaml.YAMLError on malformed text."""
    return list(_docs_cached(text))


def try_docs(text: str) -> list[Any] | None:
    try:
        return load_docs(text)
    except yaml.YAMLError:
        return None


def find_doc(text: str, kind: str, name: str) -> tuple[int, dict[str, int]] | None:
    """(1-based line of the document, {top-level and metadata/spec key: line}) of the object
    with this kind and metadata.name, or None."""
    try:
        nodes = list(yaml.compose_all(text, Loader=_Loader))
    except yaml.YAMLError:
        return None
    for node in nodes:
        if not isinstance(node, yaml.MappingNode):
            continue
        top = {k.value: v for k, v in node.value if isinstance(k, yaml.ScalarNode)}
        kind_node, meta = top.get("kind"), top.get("metadata")
        if not isinstance(kind_node, yaml.ScalarNode) or kind_node.value != kind:
            continue
        if not isinstance(meta, yaml.MappingNode):
            continue
        meta_keys = {k.value: v for k, v in meta.value if isinstance(k, yaml.ScalarNode)}
        name_node = meta_keys.get("name")
        if not isinstance(name_node, yaml.ScalarNode) or name_node.value != name:
            continue
        lines: dict[str, int] = {}
        for k, v in node.value:
            lines[str(k.value)] = k.start_mark.line + 1
            if isinstance(v, yaml.MappingNode) and k.value in ("metadata", "spec", "data"):
                for k2, _ in v.value:
                    lines[f"{k.value}.{k2.value}"] = k2.start_mark.line + 1
        return node.start_mark.line + 1, lines
    return None


def key_lines(text: str) -> dict[str, int]:
    """Line of each top-level key of the first document (kustomization.yaml anchors)."""
    try:
        node = yaml.compose(text, Loader=_Loader)
    except yaml.YAMLError:
        return {}
    if not isinstance(node, yaml.MappingNode):
        return {}
    return {str(k.value): k.start_mark.line + 1 for k, _ in node.value}


def entry_line(text: str, key: str, entry: str) -> int | None:
    """Line of `- entry` inside the top-level list `key`."""
    try:
        node = yaml.compose(text, Loader=_Loader)
    except yaml.YAMLError:
        return None
    if not isinstance(node, yaml.MappingNode):
        return None
    for k, v in node.value:
        if k.value == key and isinstance(v, yaml.SequenceNode):
            for item in v.value:
                if isinstance(item, yaml.ScalarNode) and item.value == entry:
                    return int(item.start_mark.line) + 1
    return None
