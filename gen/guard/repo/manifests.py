"""Fast YAML reading for the guard: libyaml when present, with line numbers when asked.

The guard reads thousands of small files per run, so it uses PyYAML's C loader (installed with
kubernetes-validate) for data and its composer only where a finding needs a line number.
ruamel.yaml (gen/yamlio.py) stays the one *writer*.
"""

from __future__ import annotations

import functools
from typing import Any

import yaml

from gen.guard.repo.revision import Tree

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
    except (yaml.YAMLError, RecursionError):  # RecursionError: PyYAML's pure-Python loader, when libyaml is missing
        return None


# blob id -> its documents (None: not YAML): parsed this run, or kept from an earlier one
# (gen/guard/repo/parse_cache.py); `used` is what this run asked for, `added` what it parsed.
BY_BLOB: dict[str, tuple[Any, ...] | None] = {}
USED: set[str] = set()
ADDED: set[str] = set()
LOADER = f"pyyaml-{yaml.__version__}-{_Loader.__name__}"  # what made the documents


def file_docs(tree: Tree, path: str) -> list[Any] | None:
    """try_docs of one file of a tree, remembered by its blob id: base and head, and the runs
    after, share most files. A symlink is read through, so it is parsed each time."""
    blob = None if path in tree.links else tree.blobs.get(path)
    if blob is not None:
        USED.add(blob)
        if blob in BY_BLOB:
            found = BY_BLOB[blob]
            return None if found is None else list(found)
    docs = try_docs(tree.read(path).decode("utf-8", "replace"))
    if blob is not None:
        BY_BLOB[blob] = None if docs is None else tuple(docs)
        ADDED.add(blob)
    return docs


DocWhere = tuple[int, dict[str, int]]  # (1-based line of the document, {key path: line})


def doc_index(text: str) -> dict[tuple[str, str], DocWhere]:
    """Every object of a file by (kind, metadata.name): its document's line and the lines of its
    top-level keys and of the keys under metadata/spec/data. The first document wins, so a file
    is composed once however many of its objects a run asks about."""
    try:
        nodes = list(yaml.compose_all(text, Loader=_Loader))
    except (yaml.YAMLError, RecursionError):  # RecursionError: PyYAML's pure-Python loader, when libyaml is missing
        return {}
    out: dict[tuple[str, str], DocWhere] = {}
    for node in nodes:
        if not isinstance(node, yaml.MappingNode):
            continue
        top = {k.value: v for k, v in node.value if isinstance(k, yaml.ScalarNode)}
        kind_node, meta = top.get("kind"), top.get("metadata")
        if not isinstance(kind_node, yaml.ScalarNode) or not isinstance(meta, yaml.MappingNode):
            continue
        meta_keys = {k.value: v for k, v in meta.value if isinstance(k, yaml.ScalarNode)}
        name_node = meta_keys.get("name")
        if not isinstance(name_node, yaml.ScalarNode) or (kind_node.value, name_node.value) in out:
            continue
        lines: dict[str, int] = {}
        for k, v in node.value:
            lines[str(k.value)] = k.start_mark.line + 1
            if isinstance(v, yaml.MappingNode) and k.value in ("metadata", "spec", "data"):
                for k2, _ in v.value:
                    lines[f"{k.value}.{k2.value}"] = k2.start_mark.line + 1
        out[(kind_node.value, name_node.value)] = (node.start_mark.line + 1, lines)
    return out


def _first_mapping(text: str) -> yaml.MappingNode | None:
    """The composed first document when it is a mapping (line numbers kept), else None."""
    try:
        node = yaml.compose(text, Loader=_Loader)
    except (yaml.YAMLError, RecursionError):  # RecursionError: PyYAML's pure-Python loader, when libyaml is missing
        return None
    return node if isinstance(node, yaml.MappingNode) else None


def key_lines(text: str) -> dict[str, int]:
    """Line of each top-level key of the first document (kustomization.yaml anchors)."""
    node = _first_mapping(text)
    if node is None:
        return {}
    return {str(k.value): k.start_mark.line + 1 for k, _ in node.value}


def entry_lines(text: str) -> dict[str, dict[str, int]]:
    """Line of each `- entry` of every top-level list of the first document, by key (the first
    occurrence of an entry wins)."""
    node = _first_mapping(text)
    if node is None:
        return {}
    out: dict[str, dict[str, int]] = {}
    for k, v in node.value:
        if isinstance(k, yaml.ScalarNode) and isinstance(v, yaml.SequenceNode) and k.value not in out:
            entries = out[k.value] = {}
            for item in v.value:
                if isinstance(item, yaml.ScalarNode):
                    entries.setdefault(item.value, int(item.start_mark.line) + 1)
    return out


def generator_line(text: str, name: str, kinds: tuple[str, ...] = ("configMapGenerator", "secretGenerator")) -> tuple[str, int] | None:
    """(list key, line of the `- name: <name>` entry) of a generator in a kustomization file."""
    try:
        node = yaml.compose(text, Loader=_Loader)
    except (yaml.YAMLError, RecursionError):  # RecursionError: PyYAML's pure-Python loader, when libyaml is missing
        return None
    if not isinstance(node, yaml.MappingNode):
        return None
    for k, v in node.value:
        if k.value in kinds and isinstance(v, yaml.SequenceNode):
            for item in v.value:
                if isinstance(item, yaml.MappingNode) and any(
                        isinstance(ik, yaml.ScalarNode) and ik.value == "name" and isinstance(iv, yaml.ScalarNode)
                        and iv.value == name for ik, iv in item.value):
                    return str(k.value), int(item.start_mark.line) + 1
    return None
