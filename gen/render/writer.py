"""Write rendered files all-or-nothing, remove what an earlier render made and this one does not.

A file is ours when its first line carries the generated mark; files a user put in an overlay
folder are never touched. What may sit at a path is the rendered file's `owner`: the file names
coredns-gen writes in an overlay folder (`Owner.OVERLAY`) are its own even when someone rewrote
one by hand (that is drift: README.md, *Behaviour you can rely on*); a user's own file at a shared path (the Flux
output, `Owner.SHARED`) or in an overlay folder the values chose (`Owner.CHOSEN`, a folder of
the user's tree) is refused, not overwritten.
`plan_tree` reads only; `write_tree` hands the plan to `journal.apply`, which writes every file
to a temp sibling first and renames them into place after all temps exist, journaled so that a
kill at any moment is undone or finished by the next render (see gen/render/journal.py). Temps of
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

from gen.render import journal
from gen.errors import Problem, UsageError, system_failure
from gen.boundary import Boundary, Outside, inside as resolved
from gen.rendered import GENERATED_MARK, Owner, RenderedFile, owner_of

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


def _first_line(path: str) -> str:
    """The first line of a regular file (never a symlink: open refuses to follow one)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return ""
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return ""
        with os.fdopen(fd, encoding="utf-8", errors="replace", closefd=False) as handle:
            return handle.readline(4096)
    finally:
        os.close(fd)


def path_order(rel: str) -> list[str]:
    """Sort key: folder by folder, as pathlib orders paths (a plain string sort would put
    `a-b/x` before `a/y`)."""
    return rel.split("/")


def plan_tree(files: Mapping[str, RenderedFile], repo: Path, *, check: bool = False) -> Plan:
    """Compare rendered files with the disk. Plan paths are the resolved ones, repo-relative:
    two spellings of one file (through a symlinked folder) are one path.

    With `check`, a foreign file (or another values file's) at a target path is drift like any
    other difference.

    Raises:
        UsageError: a target path resolves outside the repository or into `.git`, two rendered
            paths are one file, or (not `check`) a target holds a file coredns-gen did not
            write outside the overlay folders, or one another existing values file owns.
    """
    plan = Plan()
    problems: list[Problem] = []
    inside = Boundary(repo)
    seen: dict[str, str] = {}  # resolved path -> the rendered path that claimed it
    for rel in sorted(files, key=path_order):
        file = files[rel]
        text = file.text
        key = {Owner.SHARED: "flux.output", Owner.CHOSEN: "overlay"}.get(file.owner, "cluster")
        try:
            target = inside.real_rel(rel)
        except Outside as why:
            problems.append(Problem(f"{rel} {why}", file=owner_of(text), key=key,
                                    hint="remove the symlink or change the path"))
            continue
        if target in seen:
            problems.append(Problem(f"{rel} and {seen[target]} are one file ({inside.relative(target)}) through a symlink",
                                    file=owner_of(text), key=key, hint="give each rendered file its own path"))
            continue
        seen[target] = rel
        real = inside.relative(target)
        try:
            info: os.stat_result | None = os.lstat(target)
        except OSError:
            info = None
        if info is not None and stat.S_ISREG(info.st_mode):
            with open(target, encoding="utf-8", errors="replace") as handle:
                current = handle.read()
            if current == text:
                plan.unchanged.append(real)
                continue
            refused = None if check else _not_ours(file, current, inside)
            if refused is not None:
                problems.append(Problem(f"{real} {refused[0]}", file=real, hint=refused[1]))
                continue
        elif info is not None:
            problems.append(Problem(f"{real} exists and is not a file", file=real, hint="remove it or choose another path"))
            continue
        plan.writes[real] = text
    if problems:
        raise UsageError(problems)
    _scan_folders(plan, files, inside)
    if check:
        state = journal.pending(repo)
        if state is not None:
            plan.interrupted = max(1, len(state.writes) + len(state.deletes))
    return plan


def _not_ours(file: RenderedFile, current: str, inside: Boundary) -> tuple[str, str] | None:
    """(why, fix) when the file on disk is not this values file's to overwrite, else None.

    Its first line is the ownership record (`# Generated by coredns-gen from <values>`). A file
    without one is a user's at a shared path (refused) and ours, rewritten by hand, in an
    overlay folder (drift). A file another values file owns is refused while that values file
    exists (a renamed or deleted values file leaves its files to whoever renders them next).
    """
    owner, mine = owner_of(current), owner_of(file.text)
    if owner is None:
        if file.owner is not Owner.OVERLAY:  # (a folder the values chose holds the user's files too)
            return ("exists and was not generated by coredns-gen; refusing to overwrite it",
                    "move your file away, or point the values at another path")
        return None
    if mine is None or owner == mine:
        return None
    try:
        theirs = inside.real(owner)
        same = theirs == inside.real(mine)
    except Outside:
        return None  # a header naming no file of this repository owns nothing here
    if same or not os.path.isfile(theirs):
        return None
    return (f"was generated from {owner}, which still exists; {mine} would overwrite it",
            f"give each cluster its own name and flux.output (or delete {owner} and the files it rendered first)")


def _ours_temp(name: str, rendered: set[str]) -> bool:
    if name.endswith(journal.TEMP_SUFFIX) and name.startswith("."):
        return True
    old = _OLD_TEMP.match(name)
    return old is not None and old[1] in rendered


def _scan_folders(plan: Plan, files: Mapping[str, RenderedFile], inside: Boundary) -> None:
    """One listing per rendered folder: temps of ours left there, and (overlay folders) files the
    same values file rendered earlier and this render does not (its own, by their first line;
    regular files only, never through a symlink)."""
    by_folder: dict[str, set[str]] = {}
    overlay: dict[str, str | None] = {}  # overlay folder -> the values file that renders it
    for rel, rendered_file in files.items():
        folder, name = posixpath.split(rel)
        by_folder.setdefault(folder, set()).add(name)
        if rendered_file.owner in (Owner.OVERLAY, Owner.CHOSEN):
            overlay[folder] = overlay.get(folder) or owner_of(rendered_file.text)
    for folder in sorted(by_folder, key=path_order):
        try:
            real = inside.real(folder)
            entries = sorted(os.scandir(real), key=lambda e: e.name)
        except (Outside, OSError):
            continue  # not there yet (or not a folder, or outside: plan_tree reported the files in it)
        rendered = by_folder[folder]
        shown = inside.relative(real)
        prefix = "" if shown == "." else f"{shown}/"
        mark = f"{GENERATED_MARK} from {overlay[folder]}. " if overlay.get(folder) else None
        for entry in entries:
            rel = f"{prefix}{entry.name}"
            if _ours_temp(entry.name, rendered):
                if entry.is_file(follow_symlinks=False):
                    plan.leftovers.append(rel)
            elif mark is not None and entry.name not in rendered and entry.is_file(follow_symlinks=False) \
                    and _first_line(entry.path).startswith(mark):
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
    root = os.path.realpath(repo)
    absolute = os.path.abspath(path)
    if not (os.path.realpath(absolute) + os.sep).startswith(root.rstrip(os.sep) + os.sep):
        raise UsageError(Problem(f"{absolute} is outside the repository {root}", key="--output",
                                 hint="write the values file inside the GitOps repository, e.g. -o dns/<cluster>.yaml (or pass --repo)"))
    target = resolved(repo, absolute, shown=absolute, key="--output",
                      hint="write the values file inside the GitOps repository, e.g. -o dns/<cluster>.yaml (or pass --repo)")
    rel = os.path.relpath(target, root)
    try:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
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
