"""Apply a render so that a kill at any moment leaves every cluster all-old or all-new, or
recorded as interrupted; one render at a time.

Design (a roll-forward journal beside a lock, both in the git directory of the repository that
holds the repo root, whether the root is that repository's top or a folder of it, so that no
change can commit them: `coredns-gen.lock`, and `coredns-gen.journal` for the top, a journal
named by the folder for a folder; without any git repository, `.coredns-gen.lock` and
`.coredns-gen.journal` in the repo root):

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
5. A journal is input like any other: before anything is done with it, its shape, every path
   (repo-relative, resolved inside the repository and outside `.git`, see gen.boundary) and the
   SHA-256 it records of every temp and every file to remove are checked; a file is only ever
   removed when its bytes are the ones this tool recorded. A journal that fails is refused
   (exit 2, naming it; the fix is to delete it) and nothing is touched.

SIGTERM, SIGINT and SIGHUP while temps are written roll back and re-raise (no temp survives);
during the rename phase they are held until it ends (it is short), so they never split it.
Kills are covered, power loss is not: no fsync per file (a fleet writes thousands).
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import posixpath
import re
import signal
import stat
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator, Literal, NamedTuple

from gen.boundary import Boundary, Outside
from gen.errors import Interrupted, Problem, SystemFailure, UsageError, quote, system_failure

LOCK_WAIT = 10.0  # seconds a second render waits for the first (COREDNS_GEN_LOCK_WAIT overrides)
TEMP_SUFFIX = ".coredns-gen.tmp"
MAX_JOURNAL = 64 << 20  # a fleet's journal is a few MiB; past this it is not one of ours
_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def temp_of(target: str) -> str:
    head, name = os.path.split(target)
    return os.path.join(head, f".{name}{TEMP_SUFFIX}")


def _git_dir(dot_git: str) -> str | None:
    """The git directory a `.git` folder is, or a `.git` file (worktree, submodule) points to."""
    if os.path.isdir(dot_git):
        return dot_git
    try:
        with open(dot_git, encoding="utf-8") as handle:
            line = handle.readline(4096).strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not line.startswith("gitdir:"):
        return None
    found = os.path.join(os.path.dirname(dot_git), line[len("gitdir:"):].strip())
    return os.path.realpath(found) if os.path.isdir(found) else None


def _enclosing(root: str) -> tuple[str, str] | None:
    """(git directory, repo root relative to its work tree) of the git repository holding the
    real root, walking up as git does; None outside any."""
    folder = root
    while True:
        git = _git_dir(os.path.join(folder, ".git"))
        if git is not None:
            return git, os.path.relpath(root, folder)
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _names(repo: Path) -> tuple[Path, Path]:
    found = _enclosing(os.path.realpath(repo))
    if found is None:
        return repo / ".coredns-gen.lock", repo / ".coredns-gen.journal"
    git, folder = Path(found[0]), found[1]
    if folder == ".":
        return git / "coredns-gen.lock", git / "coredns-gen.journal"
    tag = hashlib.sha256(folder.encode()).hexdigest()[:16]  # one journal per repo root in that work tree
    return git / "coredns-gen.lock", git / f"coredns-gen.{tag}.journal"


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
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
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


State = Literal["staging", "committed"]
VERSION = 2
_DIGEST = re.compile(r"[0-9a-f]{64}")


class Entry(NamedTuple):
    path: str  # repo-relative POSIX, resolved when written
    sha256: str  # of the temp (writes) or of the file to remove (deletes)


class Journal(NamedTuple):
    state: State
    writes: tuple[Entry, ...]
    deletes: tuple[Entry, ...]


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _refused(journal: Path, repo: Path, problem: str) -> UsageError:
    shown = _shown(repo, str(journal)) or str(journal)
    return UsageError(Problem(f"refusing the journal of an interrupted render: {problem}; nothing was changed", file=shown,
                              hint=f"delete it (`rm {journal}`), check `git status` for what the interrupted render "
                                   "left, and render again"))


def pending(repo: Path) -> Journal | None:
    """The journal of an interrupted render, validated, or None.

    Raises:
        UsageError: it is not a journal this tool wrote for this repository (shape, a path outside
            the repository or in `.git`, a duplicate); nothing was touched.
    """
    _, journal = _names(repo)
    try:
        fd = os.open(journal, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise _refused(journal, repo, "it is a symlink") from None
        raise system_failure(err, "read the journal of an interrupted render", str(journal)) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise _refused(journal, repo, "it is not a regular file")
        with os.fdopen(fd, "rb", closefd=False) as handle:
            raw = handle.read(MAX_JOURNAL + 1)
    finally:
        os.close(fd)
    if len(raw) > MAX_JOURNAL:
        raise _refused(journal, repo, f"it is larger than {MAX_JOURNAL >> 20} MiB")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError) as err:
        raise _refused(journal, repo, f"it is not JSON ({err})") from None
    return _validate(data, Boundary(repo), lambda why: _refused(journal, repo, why))


def _validate(data: object, inside: Boundary, refuse: Callable[[str], UsageError]) -> Journal:
    if not isinstance(data, dict) or set(data) != {"version", "state", "writes", "deletes"}:
        raise refuse("expected an object with exactly version, state, writes and deletes")
    if data["version"] != VERSION or isinstance(data["version"], bool):
        raise refuse(f"version {quote(data['version'])} is not {VERSION} (written by another coredns-gen)")
    state = data["state"]
    if state not in ("staging", "committed"):
        raise refuse(f"state {quote(state)} is neither staging nor committed")
    lists: list[tuple[Entry, ...]] = []
    seen: set[str] = set()
    for field in ("writes", "deletes"):
        items = data[field]
        if not isinstance(items, list):
            raise refuse(f"{field} is not a list")
        entries = []
        for i, item in enumerate(items):
            if not isinstance(item, dict) or set(item) != {"path", "sha256"} or not isinstance(item["path"], str) \
                    or not isinstance(item["sha256"], str) or not _DIGEST.fullmatch(item["sha256"]):
                raise refuse(f"{field}[{i}] is not {{path, sha256}}")
            rel = item["path"]
            if rel != posixpath.normpath(rel) or rel.startswith(("/", "../")) or rel in (".", "..") or "\\" in rel \
                    or "\0" in rel:
                raise refuse(f"{field}[{i}] {quote(rel)} is not a repo-relative path")
            try:
                real = inside.real(rel)
            except Outside as why:
                raise refuse(f"{field}[{i}] {quote(rel)} {why}") from None
            if inside.relative(real) != rel or rel in seen:
                raise refuse(f"{field}[{i}] {quote(rel)} is not a path this tool records (a symlink, or listed twice)")
            seen.add(rel)
            entries.append(Entry(rel, item["sha256"]))
        lists.append(tuple(entries))
    return Journal(state, lists[0], lists[1])


def _save(repo: Path, state: State, writes: list[Entry], deletes: list[Entry]) -> None:
    _, journal = _names(repo)
    tmp = str(journal) + ".tmp"
    _create(tmp, json.dumps({"version": VERSION, "state": state, "writes": [e._asdict() for e in writes],
                             "deletes": [e._asdict() for e in deletes]}))
    os.replace(tmp, journal)


def _create(path: str, text: str) -> None:
    """Write a new file at `path`, replacing only a file of that name (never following a
    symlink someone put there)."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(text)


def _remove_journal(repo: Path) -> None:
    _, journal = _names(repo)
    journal.unlink(missing_ok=True)
    journal.with_name(journal.name + ".tmp").unlink(missing_ok=True)


def _file_digest(path: str) -> str | None:
    """SHA-256 of a regular file (None: absent, not a regular file, or a symlink)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return digest(handle.read())
    finally:
        os.close(fd)


def recover(repo: Path) -> list[str]:
    """Finish (committed) or undo (staging) an interrupted render; the repo-relative paths it
    renamed into place or removed. Runs under the exclusive lock.

    Raises:
        UsageError: the journal fails validation, or a committed one records a temp or a file
            to remove whose bytes are not the ones it recorded: nothing was touched.
    """
    state = pending(repo)
    if state is None:
        _remove_journal(repo)
        return []
    _, journal = _names(repo)
    committed = state.state == "committed"
    if committed:
        for entry in state.writes:
            found = _file_digest(temp_of(os.path.join(repo, entry.path)))
            if found is not None and found != entry.sha256:
                raise _refused(journal, repo, f"the temp of {entry.path} is not the file it recorded")
        for entry in state.deletes:
            target = os.path.join(repo, entry.path)
            if os.path.lexists(target) and _file_digest(target) != entry.sha256:
                raise _refused(journal, repo, f"{entry.path} is not the file it recorded to remove")
    done: list[str] = []
    with held_signals():
        for entry in state.writes:
            target = os.path.join(repo, entry.path)
            tmp = temp_of(target)
            if committed:
                if _file_digest(tmp) is not None:
                    os.replace(tmp, target)
                    done.append(entry.path)
            elif os.path.lexists(tmp) and not os.path.isdir(tmp):
                os.unlink(tmp)
        if committed:
            for entry in state.deletes:
                target = os.path.join(repo, entry.path)
                if os.path.lexists(target):
                    os.unlink(target)
                    done.append(entry.path)
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
    entries = [Entry(rel, digest(text.encode("utf-8"))) for rel, text in writes.items()]
    removals = []
    for rel in deletes:
        found = _file_digest(os.path.join(repo, rel))
        if found is not None:
            removals.append(Entry(rel, found))
    staged: list[str] = []
    created: list[str] = []  # folders made for new files, removed again on a rollback
    hold: set[int | signal.Signals] | None = None
    current = str(journal_path(repo))  # what is being written, for an OSError that names no file
    with interruptible():
        try:
            _save(repo, "staging", entries, removals)
            made: set[str] = set()
            for rel, target in targets:
                folder = os.path.dirname(target)
                if folder not in made:
                    _make_folder(folder, created)
                    made.add(folder)
                tmp = current = temp_of(target)
                staged.append(tmp)
                _create(tmp, writes[rel])
                os.chmod(tmp, 0o644)  # whatever the umask: generated files are the same for everyone
            hold = signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)
            current = str(journal_path(repo))
            _save(repo, "committed", entries, removals)
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
            for entry in removals:
                Path(repo, entry.path).unlink(missing_ok=True)
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
