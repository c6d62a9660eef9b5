"""Parsed manifests kept between runs by blob id (gen/guard/repo/parse_cache.py) are what the
loader gives, types and all."""

from __future__ import annotations

import hashlib
from pathlib import Path

from gen.guard.repo.revision import Tree, index_entries


def _tree(root: Path, entries: list[tuple[str, str | tuple[str]]]) -> Tree:
    """A revision of these files (a path that is also a folder is dropped, as git cannot hold both)."""
    files = dict(entries)
    folders = {p.rsplit("/", 1)[0] for p in files if "/" in p}
    folders |= {f.rsplit("/", 1)[0] for f in list(folders) if "/" in f}
    files = {p: c for p, c in files.items() if p not in folders}
    blobs: dict[str, str] = {}
    links: dict[str, str] = {}
    for path, content in files.items():
        text = content if isinstance(content, str) else content[0]
        blobs[path] = hashlib.sha1(f"{type(content).__name__}:{text}".encode()).hexdigest()
        if isinstance(content, tuple):
            links[path] = content[0]
        else:
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(content)
    return Tree("c", root, blobs, index_entries(blobs), links)


def test_parsed_manifests_kept_between_runs_are_what_the_loader_gives(tmp_path: Path) -> None:
    from gen.guard.repo import manifests
    from gen.guard.repo import parse_cache

    tree = _tree(tmp_path / "t", [("a.yaml", "kind: ConfigMap\ndata: {n: 1, on: yes, f: 1.5}\n---\nkind: B\n"),
                                  ("stamp.yaml", "kind: X\nwhen: 2026-12-01T10:00:00Z\n"),  # a datetime: not marshalled
                                  ("bad.yaml", "a: [unclosed\n")])
    parse_cache.load(tmp_path / "cache")
    first = {p: manifests.file_docs(tree, p) for p in ("a.yaml", "stamp.yaml", "bad.yaml")}
    parse_cache.save(tmp_path / "cache")
    manifests.BY_BLOB.clear()
    parse_cache.load(tmp_path / "cache")
    assert set(manifests.BY_BLOB) == {tree.blobs["a.yaml"], tree.blobs["bad.yaml"]}  # kept: all but the timestamp
    again = {p: manifests.file_docs(tree, p) for p in first}
    assert again == first and again["bad.yaml"] is None
    assert repr(again["a.yaml"]) == repr(first["a.yaml"])  # the same types: True, 1, 1.5
