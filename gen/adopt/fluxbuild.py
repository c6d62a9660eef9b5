"""The Flux Kustomization as Flux applies it: built by the Kustomization that applies its file.

A parent Kustomization's `spec.patches` often give each child its `postBuild` (the common
"add substitution to all children" patch), so the child's file alone does not say what Flux
applies. When the parent is among import's inputs, its build (kustomize-controller's own code,
`coredns-gen-helper build`) holds the child as Flux will apply it.
"""

from __future__ import annotations

import json
import os
import posixpath
import subprocess
from pathlib import Path
from typing import Any

from gen.errors import ToolError
from gen.tools import HELPER_BUILD_HINT, helper_binary


def _folder(ks: dict[str, Any]) -> str | None:
    path = str((ks.get("spec") or {}).get("path") or "")
    return posixpath.normpath(path.lstrip("/")) if path else None


def as_applied(child: dict[str, Any], child_file: str, parents: list[tuple[dict[str, Any], str]],
               repo: Path) -> tuple[tuple[dict[str, Any], str] | None, list[str]]:
    """((the child as the parent's build holds it, where the parent is written) or None, notes),
    for the deepest parent among `parents` whose spec.path holds `child_file` (a repository
    path) and whose build holds the child. A parent that does not build is said in a note (the
    child's file is then read as written).

    Raises:
        ToolError: the helper is missing or does not answer (exit 3: the answer is Flux's).
    """
    meta = child.get("metadata") or {}
    found = []
    for parent, where in parents:
        folder = _folder(parent)
        if folder is not None and (folder == "." or child_file.startswith(folder + "/")):
            found.append((len(folder), parent, where))
    notes: list[str] = []
    for _, parent, where in sorted(found, key=lambda f: -f[0]):
        error = ""
        for folder in _folders(_folder(parent) or ".", child_file, repo):
            built, error = _build(parent, folder, repo)
            for obj in built:
                m = obj.get("metadata") or {}
                if obj.get("kind") == child.get("kind") and m.get("name") == meta.get("name") \
                        and (m.get("namespace") or None) == (meta.get("namespace") or None):
                    return (obj, where), notes
            if not error:
                break  # (built, without the child: the next folder down would not hold it either)
        if error:
            notes.append(f"Flux Kustomization {(parent.get('metadata') or {}).get('name')} ({where}) does not build here "
                         f"({error}): what its patches give {meta.get('name')} is not known, its file is read as written")
    return None, notes


KUSTOMIZATION_FILES = ("kustomization.yaml", "kustomization.yml", "Kustomization")  # kustomize's own names


def _folders(top: str, child_file: str, repo: Path) -> list[str]:
    """The folders whose build, with the parent's spec, holds the child as the parent's whole
    build would: the parent's path, then each folder down towards the child while the folders
    above it have no kustomization file of their own (Flux generates one that only lists what is
    there, so nothing above transforms the child). A narrower build skips what fails to build
    elsewhere in the parent's tree (a remote base, with no network here)."""
    parts = posixpath.dirname(child_file).split("/")
    start = 0 if top == "." else len(top.split("/"))
    out = [top]
    for depth in range(start, len(parts)):
        above = "/".join(parts[:depth]) or "."
        if any((repo / above / name).is_file() for name in KUSTOMIZATION_FILES):
            break
        out.append("/".join(parts[:depth + 1]))
    return out


def _build(parent: dict[str, Any], folder: str, repo: Path) -> tuple[list[dict[str, Any]], str]:
    """The parent's build, its own postBuild left out (only its patches matter here, and the
    values of its substituteFrom are in the cluster, not in git)."""
    helper = helper_binary(build=True)
    if helper is None:
        raise ToolError("coredns-gen-helper is not installed: what a parent Flux Kustomization applies is "
                        "kustomize-controller's answer, asked through it", hint=HELPER_BUILD_HINT)
    spec = {k: v for k, v in (parent.get("spec") or {}).items() if k != "postBuild"}
    root = os.path.realpath(repo)
    request = {"id": "1", "root": root, "dir": os.path.join(root, folder),
               "kustomization": {**parent, "spec": spec}, "objects": []}
    try:
        proc = subprocess.run([str(helper), "build", "-j", "1"], input=json.dumps(request) + "\n", capture_output=True,
                              text=True, timeout=300, check=False)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise ToolError(f"cannot run {helper} build: {err}", hint=HELPER_BUILD_HINT) from err
    try:
        answer = json.loads(proc.stdout.splitlines()[0])
        objects = answer.get("objects") or []
    except (ValueError, IndexError, AttributeError):
        raise ToolError(f"{helper} build did not answer (exit {proc.returncode})", stderr=proc.stderr,
                        hint=f"rebuild it from this checkout: {HELPER_BUILD_HINT}") from None
    if answer.get("error"):
        error = " ".join(str(answer["error"]).split())
        return [], error if len(error) <= 240 else error[:80] + " … " + error[-150:]
    return [o for o in objects if isinstance(o, dict)], ""
