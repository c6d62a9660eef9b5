"""A resolution recalled from another revision, or from an earlier run, is the resolution.

The guard resolves what each Flux Kustomization reads once and reuses it wherever everything it
looked at is the same (gen/guard/build/recall.py). If that check ever let through a tree where a fresh
resolution differs, fingerprints would be wrong and a real prune could pass as "unchanged". So
two arbitrary trees are drawn from a small world of folders, kustomization files, references,
missing paths and symlinks, and every spec.path resolved in the second with the first's
resolutions at hand must equal a fresh resolution there.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from gen.guard.build.inputs import Inputs, Recalled, Resolver
from gen.guard.repo.revision import Tree, index_entries

FOLDERS = ["", "apps", "apps/base", "apps/prod", "apps/prod/extra", "infra"]
KUSTOMIZATIONS = [
    "resources: [cm.yaml]\n",
    "resources: [../base, cm.yaml]\n",
    "resources: [missing.yaml, extra]\n",
    "resources: [base]\ncomponents: [../prod]\n",
    "resources: [cm.yaml]\nconfigMapGenerator: [{name: settings, files: [cm.yaml]}]\n",
    "resources: [https://example.invalid/remote]\n",
    "patches: [{path: cm.yaml}]\nresources: [prod/extra]\n",
    "not: [valid\n",
    "resources: [../../outside.yaml]\n",
    "resources: [extra/cm.yaml]\n",  # through a folder that may be a symlink
]
MANIFESTS = ["kind: ConfigMap\nmetadata: {name: a}\n", "kind: ConfigMap\nmetadata: {name: b}\n"]
NAMES = ["kustomization.yaml", "Kustomization", "cm.yaml", "other.yml", "extra"]


def _entry() -> st.SearchStrategy[tuple[str, str | tuple[str]]]:
    """(path, content) of one file, or (path, (target,)) of one symlink."""
    path = st.builds(lambda d, n: f"{d}/{n}" if d else n, st.sampled_from(FOLDERS), st.sampled_from(NAMES))
    content: st.SearchStrategy[str | tuple[str]] = st.one_of(
        st.sampled_from(KUSTOMIZATIONS), st.sampled_from(MANIFESTS),
        st.tuples(st.sampled_from(["cm.yaml", "../base", "/etc/passwd", "../prod/cm.yaml"])))
    return st.tuples(path, content)


trees = st.lists(_entry(), max_size=14)


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


def _fields(found: Inputs) -> tuple[object, ...]:
    return (found.files, found.missing, found.exact, found.references, found.generators, found.escapes)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(first=trees, dropped=st.sets(st.integers(0, 13), max_size=3), added=st.lists(_entry(), max_size=3))
@example(first=[("apps/prod/kustomization.yaml", "resources: [extra/cm.yaml]\n"), ("apps/base/cm.yaml", MANIFESTS[0])],
         dropped=set(), added=[("apps/prod/extra", ("../base",))])  # a new symlink makes a missing path resolve
@example(first=[("apps/Kustomization", "resources: [other.yml]\n")],
         dropped=set(), added=[("apps/kustomization.yaml", "resources: [cm.yaml]\n")])  # kustomize prefers the new file
@example(first=[("apps/prod/kustomization.yaml", "resources: [missing.yaml, extra]\n"), ("apps/prod/extra/cm.yaml", MANIFESTS[0])],
         dropped={1}, added=[("apps/prod/extra", MANIFESTS[1])])  # a folder without a kustomization file becomes a file
def test_a_recalled_resolution_equals_a_fresh_one(tmp_path_factory: pytest.TempPathFactory,
                                                  first: list[tuple[str, str | tuple[str]]], dropped: set[int],
                                                  added: list[tuple[str, str | tuple[str]]]) -> None:
    """The second tree is the first with a few files dropped, added or changed: a commit."""
    second = [e for i, e in enumerate(first) if i not in dropped] + added
    base = _tree(tmp_path_factory.mktemp("base"), first)
    head = _tree(tmp_path_factory.mktemp("head"), second)
    recalled: Recalled = {}
    for path in FOLDERS:
        Resolver(base, recalled, "git").for_ks(path)
    for path in FOLDERS:
        for components in ((), ("apps/prod",)):
            again = Resolver(head, recalled, "git").for_ks(path, components)
            fresh = Resolver(head).for_ks(path, components)
            assert _fields(again) == _fields(fresh), path


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
