"""Apply a render so that a kill at any moment leaves every cluster all-old or all-new, or
recorded as interrupted; one render at a time.

Design (a roll-forward journal beside a lock, both in `.git/` when the repo root has a `.git`
folder, else in the repo root: `coredns-gen.lock`, `coredns-gen.journal`):

1. `render` takes an exclusive flock on the lock file (`render --check` a shared one), waiting up
   to LOCK_WAIT seconds, then gives up with "another render is running" (exit 2). The kernel
   drops the lock when its holder dies, so a killed render never leaves a stale one.
2. The journal is written (state `staging`: every target and every file to delete) before the
   first temp file exists. Temps have fixed names, `.<name>.coredns-gen.tmp` beside their target:
   the lock makes them private, and any one left behind is recognisable as ours.
3. When every temp is written, the journal becomes `committed` (one rename: atomic), then the
   temps are renamed over their targets, stale files removed, and the journal deleted.
4. The next `render` starts by recovering: a `staging` journal is rolled back (its temps
   removed: the tree is still all old), a `committed` one is rolled forward (the temps still
   there renamed into place). Until then `render --check` reports the interrupted render as
   drift (exit 1). A temp of ours found without a journal is drift too, and `render` removes it.

SIGTERM, SIGINT and SIGHUP while temps are written roll back and re-raise (no temp survives);
during the rename phase they are held until it ends (it is short), so they never split it.
Kills are covered, power loss is not: no fsync per file (a fleet writes thousands).
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import signal
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from gen.errors import GenError, Interrupted, Problem, SystemFailure, UsageError, system_failure

LOCK_WAIT = 10.0  # seconds a second render waits for the first (COREDNS_GEN_LOCK_WAIT overrides)
TEMP_SUFFIX = ".coredns-gen.tmp"
_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def temp_of(target: str) -> str:
    head, name = os.path.split(target)
    return os.path.join(head, f".{name}{TEMP_SUFFIX}")


def state_dir(repo: Path) -> Path:
    """Where the lock and journal live: the git directory keeps them out of `git status`
    (`.git/`, or where a worktree's or submodule's `.git` file points), else the repo root."""
    git = repo / ".git"
    if git.is_file():
        try:
            line = git.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError):
            line = ""
        if line.startswith("gitdir:"):
            git = (repo / line[len("gitdir:"):].strip()).resolve()
    return git if git.is_dir() else repo


def _names(repo: Path) -> tuple[Path, Path]:
    where = state_dir(repo)
    prefix = "." if where == repo else ""
    return where / f"{prefix}coredns-gen.lock", where / f"{prefix}coredns-gen.journal"


def journal_path(repo: Path) -> Path:
    return _names(repo)[1]


@contextmanager
def render_lock(repo: Path, *, shared: bool = False, wait: float | None = None) -> Iterator[None]:
    """Hold the repo's render lock (exclusive to write, shared to check).

    Raises:
        UsageError: another render held it for `wait` seconds (exit 2).
        SystemFailure: the lock file cannot be created (read-only checkout, permissions).
    """
    lock, _ = _names(repo)
    if wait is None:
        try:
            wait = float(os.environ.get("COREDNS_GEN_LOCK_WAIT", LOCK_WAIT))
        except ValueError:
            wait = LOCK_WAIT
    try:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as err:
        if shared and err.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            yield  # a checkout we may not write can still be checked; we cannot write it either
            return
        raise system_failure(err, "create the render lock", os.path.relpath(lock, repo)) from None
    try:
        deadline = time.monotonic() + wait
        mode = fcntl.LOCK_SH if shared else fcntl.LOCK_EX
        while True:
            try:
                fcntl.flock(fd, mode | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise UsageError(Problem(f"another render is running (it holds {os.path.relpath(lock, repo)}; waited {wait:g} s)",
                                             hint="wait for it to finish and run again")) from None
                time.sleep(0.05)
        yield
    finally:
        os.close(fd)


def pending(repo: Path) -> dict[str, object] | None:
    """The journal of an interrupted render, or None."""
    _, journal = _names(repo)
    try:
        with open(journal, encoding="utf-8") as handle:
            data = json.load(handle)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as err:
        raise GenError(Problem(f"cannot read the journal of an interrupted render: {err}", file=str(journal),
                               hint="remove it, then `git checkout -- overlays clusters` and render again")) from None
    return data if isinstance(data, dict) else None


def _save(repo: Path, state: str, writes: list[str], deletes: list[str]) -> None:
    _, journal = _names(repo)
    tmp = journal.with_name(journal.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as handle:
        json.dump({"version": 1, "state": state, "writes": writes, "deletes": deletes}, handle)
    os.replace(tmp, journal)


def _remove_journal(repo: Path) -> None:
    _, journal = _names(repo)
    journal.unlink(missing_ok=True)
    journal.with_name(journal.name + ".tmp").unlink(missing_ok=True)


def recover(repo: Path) -> list[str]:
    """Finish (committed) or undo (staging) an interrupted render; the repo-relative paths it
    renamed into place or removed. Runs under the exclusive lock."""
    state = pending(repo)
    if state is None:
        _remove_journal(repo)
        return []
    writes = [str(w) for w in state.get("writes", []) if isinstance(w, str)]  # type: ignore[attr-defined]
    deletes = [str(d) for d in state.get("deletes", []) if isinstance(d, str)]  # type: ignore[attr-defined]
    done: list[str] = []
    with held_signals():
        for rel in writes:
            tmp = temp_of(os.path.join(repo, rel))
            if state.get("state") == "committed":
                try:
                    os.replace(tmp, os.path.join(repo, rel))
                    done.append(rel)
                except FileNotFoundError:
                    pass  # renamed before the interruption
            else:
                Path(tmp).unlink(missing_ok=True)
        if state.get("state") == "committed":
            for rel in deletes:
                Path(repo, rel).unlink(missing_ok=True)
                done.append(rel)
        _remove_journal(repo)
    return done


def _raise(signum: int, frame: object) -> None:
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise Interrupted(signum)


@contextmanager
def interruptible() -> Iterator[None]:
    """SIGTERM and SIGHUP raise Interrupted in here (SIGINT already raises KeyboardInterrupt)."""
    old = {s: signal.signal(s, _raise) for s in _SIGNALS}
    try:
        yield
    finally:
        for s, handler in old.items():
            signal.signal(s, handler)


@contextmanager
def held_signals() -> Iterator[None]:
    """Hold SIGINT/SIGTERM/SIGHUP until the block ends; one pending is delivered then."""
    old = signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def apply(repo: Path, writes: dict[str, str], deletes: list[str]) -> None:
    """Write `writes` (repo-relative path -> text) and remove `deletes`, journaled as above.
    Runs under the exclusive lock, after `recover`.

    Raises:
        SystemFailure: a temp could not be written (disk full, permissions, read-only): the
            temps are removed and nothing changed.
    """
    targets = [(rel, os.path.join(repo, rel)) for rel in writes]
    _refuse_unreplaceable(repo, [*writes, *deletes])
    staged: list[str] = []
    created: list[str] = []  # folders made for new files, removed again on a rollback
    hold: set[int | signal.Signals] | None = None
    current = str(journal_path(repo))  # what is being written, for an OSError that names no file
    with interruptible():
        try:
            _save(repo, "staging", list(writes), deletes)
            made: set[str] = set()
            for rel, target in targets:
                folder = os.path.dirname(target)
                if folder not in made:
                    _make_folder(folder, created)
                    made.add(folder)
                tmp = current = temp_of(target)
                staged.append(tmp)
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o644)
                with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
                    handle.write(writes[rel])
                os.chmod(tmp, 0o644)  # whatever the umask: generated files are the same for everyone
            hold = signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)
            current = str(journal_path(repo))
            _save(repo, "committed", list(writes), deletes)
        except BaseException as err:
            for tmp in staged:
                Path(tmp).unlink(missing_ok=True)
            for folder in reversed(created):
                _rmdir(folder)
            _remove_journal(repo)
            if hold is not None:
                signal.pthread_sigmask(signal.SIG_SETMASK, hold)
            if isinstance(err, OSError):
                raise system_failure(err, "write it (nothing was changed)", _shown(repo, err.filename or current)) from None
            raise
        try:
            for (_, target), tmp in zip(targets, staged, strict=True):
                os.replace(tmp, target)
            for rel in deletes:
                Path(repo, rel).unlink(missing_ok=True)
            _remove_journal(repo)
        except OSError as err:
            raise system_failure(err, "finish the render (run `coredns-gen render` again to complete it)",
                                 _shown(repo, err.filename)) from None
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, hold or set())


def _make_folder(folder: str, created: list[str]) -> None:
    if os.path.isdir(folder):
        return
    _make_folder(os.path.dirname(folder), created)
    try:
        os.mkdir(folder)
        created.append(folder)
    except FileExistsError:
        pass


def _rmdir(folder: str) -> None:
    try:
        os.rmdir(folder)
    except OSError:
        pass


_FS_IOC_GETFLAGS = 0x80086601  # linux/fs.h, _IOR('f', 1, long)
_IMMUTABLE, _APPEND = 0x10, 0x20  # FS_IMMUTABLE_FL, FS_APPEND_FL


def _refuse_unreplaceable(repo: Path, rels: list[str]) -> None:
    """An immutable or append-only file (`chattr +i`/`+a`) cannot be renamed over or removed,
    and nothing shows it until the rename phase, when other files are already replaced: so
    every file to replace or remove is asked first (one ioctl each), and the render refuses
    before it changes anything.

    Raises:
        SystemFailure: one of them is immutable or append-only (exit 3).
    """
    problems = []
    for rel in rels:
        try:
            fd = os.open(os.path.join(repo, rel), os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOFOLLOW)
        except OSError:
            continue  # absent (a new file) or unopenable: the write itself will say why
        try:
            flags = int.from_bytes(fcntl.ioctl(fd, _FS_IOC_GETFLAGS, bytes(8))[:4], "little")
        except OSError:
            flags = 0  # a file system without attributes
        finally:
            os.close(fd)
        if flags & (_IMMUTABLE | _APPEND):
            what = "immutable (chattr +i)" if flags & _IMMUTABLE else "append-only (chattr +a)"
            problems.append(Problem(f"is {what}, so it cannot be replaced; nothing was changed", file=rel,
                                    hint=f"`chattr -{'i' if flags & _IMMUTABLE else 'a'} {rel}` if it should be rendered"))
    if problems:
        raise SystemFailure(problems)


def _shown(repo: Path, filename: object) -> str | None:
    """The file an OSError names, repo-relative, and the target rather than its temp."""
    if not isinstance(filename, str):
        return None
    root = os.path.join(os.path.abspath(repo), "")
    rel = filename[len(root):] if filename.startswith(root) else filename
    head, name = os.path.split(rel)
    if name.startswith(".") and name.endswith(TEMP_SUFFIX):
        rel = os.path.join(head, name[1:-len(TEMP_SUFFIX)])
    return rel
