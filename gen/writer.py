"""Write rendered files all-or-nothing, remove what an earlier render made and this one does not.

A file is ours when its first line carries the generated mark; files a user put in an overlay
folder are never touched. What may sit at a path is the rendered file's `owner`: the file names
coredns-gen writes in an overlay folder (`Owner.OVERLAY`) are its own even when someone rewrote
one by hand (that is drift, seed 002's rewrite); a user's own file at a shared path (the Flux
output, `Owner.SHARED`) is refused, not overwritten.
`plan_tree` reads only; `write_tree` hands the plan to `journal.apply`, which writes every file
to a temp sibling first and renames them into place after all temps exist, journaled so that a
kill at any moment is undone or finished by the next render (see gen/journal.py). Temps of
ours found in a rendered folder are drift, and `render` removes them.
"""

from __future__ import annotations

import difflib
import os
import posixpath
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from gen import journal
from gen.errors import Problem, UsageError, system_failure
from gen.rendered import GENERATED_MARK, Owner, RenderedFile

# Temps an earlier coredns-gen left: `.<name>.coredns-gen.tmp`, and the mkstemp names of
# versions before the journal (`.<name>.<8 random>.tmp`) when <name> is a file rendered there.
_OLD_TEMP = re.compile(r"^\.(.+)\.[A-Za-z0-9_]{8}\.tmp$")


@dataclass
class Plan:
    """Repo-relative POSIX paths (as `render_files` keys them) by what a write would do."""

    writes: dict[str, str] = field(default_factory=dict)  # new or changed
    deletes: list[str] = field(default_factory=list)  # stale generated files
    unchanged: list[str] = field(default_factory=list)
    leftovers: list[str] = field(default_factory=list)  # temps of ours an interrupted render left
    interrupted: int = 0  # files the journal of an interrupted render has not put in place yet

    @property
    def clean(self) -> bool:
        return not self.writes and not self.deletes and not self.leftovers and not self.interrupted


def _generated(path: Path) -> bool:
    try:
        with path.open(encoding="utf-8") as handle:
            return handle.readline().startswith(GENERATED_MARK)
    except (OSError, UnicodeDecodeError):
        return False


def path_order(rel: str) -> list[str]:
    """Sort key: folder by folder, as pathlib orders paths (a plain string sort would put
    `a-b/x` before `a/y`)."""
    return rel.split("/")


class _Resolver:
    """Where a repo-relative path really points, and what is there, refusing anything outside
    the repo. Plain os calls on strings, folders resolved once each: a fleet checks thousands
    of files in a few hundred folders, and pathlib objects cost more than the disk here."""

    def __init__(self, repo: Path) -> None:
        self.root = os.path.realpath(repo)
        self._inside = self.root.rstrip(os.sep) + os.sep
        self._folders: dict[str, str] = {}

    def __call__(self, rel: str) -> tuple[str, os.stat_result | None]:
        """(real path, its lstat or None when nothing is there)."""
        folder, name = posixpath.split(rel)
        real = self._folders.get(folder)
        if real is None:
            real = self._folders[folder] = os.path.realpath(os.path.join(self.root, folder))
        target = os.path.join(real, name)
        try:
            info: os.stat_result | None = os.lstat(target)
        except OSError:
            info = None
        if info is not None and stat.S_ISLNK(info.st_mode):
            target = os.path.realpath(target)
            try:
                info = os.stat(target)
            except OSError:
                info = None
        if target != self.root and not target.startswith(self._inside):
            raise UsageError(Problem(f"{rel} resolves outside the repository ({target})", hint="remove the symlink or change the path"))
        return target, info


def plan_tree(files: Mapping[str, RenderedFile], repo: Path, *, check: bool = False) -> Plan:
    """Compare rendered files with the disk.

    With `check`, a foreign file at a target path is drift like any other difference.

    Raises:
        UsageError: a target path escapes the repo or (not `check`) holds a file coredns-gen
            did not write outside the overlay folders.
    """
    plan = Plan()
    problems: list[Problem] = []
    inside = _Resolver(repo)
    for rel in sorted(files, key=path_order):
        file = files[rel]
        text = file.text
        target, info = inside(rel)
        if info is not None and stat.S_ISREG(info.st_mode):
            with open(target, encoding="utf-8", errors="replace") as handle:
                current = handle.read()
            if current == text:
                plan.unchanged.append(rel)
                continue
            if not check and file.owner is Owner.SHARED and not _generated(Path(target)):
                problems.append(Problem(f"{rel} exists and was not generated by coredns-gen; refusing to overwrite it",
                                        file=str(rel), hint="move your file away, or point the values at another path"))
                continue
        elif info is not None:
            problems.append(Problem(f"{rel} exists and is not a file", file=str(rel), hint="remove it or choose another path"))
            continue
        plan.writes[rel] = text
    if problems:
        raise UsageError(problems)
    _scan_folders(plan, files, repo)
    if check:
        state = journal.pending(repo)
        if state is not None:
            plan.interrupted = max(1, len(state.get("writes", [])) + len(state.get("deletes", [])))  # type: ignore[arg-type]
    return plan


def _ours_temp(name: str, rendered: set[str]) -> bool:
    if name.endswith(journal.TEMP_SUFFIX) and name.startswith("."):
        return True
    old = _OLD_TEMP.match(name)
    return old is not None and old[1] in rendered


def _scan_folders(plan: Plan, files: Mapping[str, RenderedFile], repo: Path) -> None:
    """One listing per rendered folder: temps of ours left there, and (overlay folders) files an
    earlier render generated that this one does not."""
    by_folder: dict[str, set[str]] = {}
    overlay: set[str] = set()
    for rel, rendered_file in files.items():
        folder, name = posixpath.split(rel)
        by_folder.setdefault(folder, set()).add(name)
        if rendered_file.owner is Owner.OVERLAY:
            overlay.add(folder)
    for folder in sorted(by_folder, key=path_order):
        try:
            entries = sorted(os.scandir(os.path.join(repo, folder)), key=lambda e: e.name)
        except OSError:
            continue  # not there yet (or not a folder: plan_tree reported the files in it)
        rendered = by_folder[folder]
        for entry in entries:
            rel = f"{folder}/{entry.name}"
            if _ours_temp(entry.name, rendered):
                if entry.is_file(follow_symlinks=False):
                    plan.leftovers.append(rel)
            elif folder in overlay and entry.name not in rendered and entry.is_file() and _generated(Path(entry.path)):
                plan.deletes.append(rel)


def write_tree(plan: Plan, repo: Path) -> None:
    """Apply a plan (under the render lock, after journal.recover): leftover temps go, then the
    journaled writes and removals.

    Raises:
        SystemFailure: the disk or the system refused; nothing changed (see journal.apply).
    """
    for rel in plan.leftovers:
        (repo / rel).unlink(missing_ok=True)
    journal.apply(repo, plan.writes, plan.deletes)


def write_new(path: Path, text: str, repo: Path) -> str:
    """Create one file inside the repo that must not exist yet (`new -o`); its repo-relative name.

    Raises:
        UsageError: the path is outside the repository or already exists.
        SystemFailure: the system refused the write.
    """
    folder = os.path.realpath(os.path.dirname(os.path.abspath(path)))
    root = os.path.realpath(repo)
    target = os.path.join(folder, os.path.basename(path))
    if not (folder + os.sep).startswith(root.rstrip(os.sep) + os.sep):
        raise UsageError(Problem(f"{os.path.abspath(path)} is outside the repository {root}", key="--output",
                                 hint="write the values file inside the GitOps repository, e.g. -o dns/<cluster>.yaml (or pass --repo)"))
    rel = os.path.relpath(target, root)
    try:
        os.makedirs(folder, exist_ok=True)
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
    except FileExistsError:
        raise UsageError(Problem(f"{rel} already exists", key="--output", hint="choose another --output or remove the file")) from None
    except OSError as err:
        raise system_failure(err, "create it", rel) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
    except BaseException as err:
        os.unlink(target)
        if isinstance(err, OSError):
            raise system_failure(err, "write it", rel) from None
        raise
    return rel


def diff_plan(plan: Plan, repo: Path) -> str:
    """Unified diff from the disk to the render, for `render --check`."""
    chunks: list[str] = []
    for rel, text in plan.writes.items():
        target = repo / rel
        old = target.read_text(encoding="utf-8").splitlines(keepends=True) if target.is_file() else []
        chunks.extend(difflib.unified_diff(old, text.splitlines(keepends=True),
                                           fromfile=f"a/{rel}" if old else "/dev/null", tofile=f"b/{rel}"))
    for rel in plan.deletes:
        old = (repo / rel).read_text(encoding="utf-8").splitlines(keepends=True)
        chunks.extend(difflib.unified_diff(old, [], fromfile=f"a/{rel}", tofile="/dev/null"))
    return "".join(chunks)
