"""Whether a folder's kustomization.yaml reaches a file, and the line that would: shared by
render (the Flux file it writes) and the guard (its `unreached` files and refusal hints).

kustomize-controller builds a folder through its kustomization.yaml when there is one (only what
`resources:` lists is applied), and generates one listing every manifest when there is none
(fluxcd/pkg kustomize's generator). A Flux file written beside a kustomization.yaml that does not
list it is therefore never applied, silently.
"""

from __future__ import annotations

import posixpath
from pathlib import Path
from typing import Callable, NamedTuple

import yaml

from gen import yamlio

BUILD_FILES = ("kustomization.yaml", "kustomization.yml", "Kustomization")


class Missing(NamedTuple):
    """`file` is not reached: `kustomization` lists resources, and `entry` is the line to add."""

    file: str
    kustomization: str
    entry: str

    def fix(self) -> str:
        return f"add `- {self.entry}` under `resources:` in {self.kustomization}"


def missing_entry(repo: Path, rel: str) -> Missing | None:
    """The entry `rel` (a repository path) lacks in its folder's kustomization.yaml in the
    working tree (render), or None (missing_in)."""
    def read(path: str) -> str | None:
        full = repo / path
        return full.read_text(encoding="utf-8") if full.is_file() else None
    return missing_in(read, rel)


def missing_in(read: Callable[[str], str | None], rel: str) -> Missing | None:
    """The entry `rel` lacks in its folder's kustomization.yaml as `read` gives the files (the
    guard reads a revision), or None when there is none (Flux generates one) or it lists the file
    or a folder holding it."""
    folder = posixpath.dirname(rel)
    for name in BUILD_FILES:
        path = posixpath.join(folder, name) if folder else name
        try:
            text = read(path)
        except (OSError, UnicodeDecodeError):
            return None  # (render and the guard report an unreadable build file themselves)
        if text is not None:
            break
    else:
        return None
    try:
        docs = yamlio.load_all_safe(text)  # libyaml: past its depth limit a YAMLError; an alias bomb refused
    except (yaml.YAMLError, RecursionError, yamlio.AliasBombError):  # (RecursionError: PyYAML's pure-Python loader)
        return None
    doc = docs[0] if docs and isinstance(docs[0], dict) else {}
    resources = doc.get("resources")
    listed = [posixpath.normpath(posixpath.join(folder, str(r))) for r in resources or [] if isinstance(r, str)]
    if any(rel == entry or rel.startswith(entry.rstrip("/") + "/") for entry in listed):
        return None
    return Missing(rel, path, posixpath.basename(rel))
