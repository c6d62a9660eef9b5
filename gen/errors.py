"""One error family with one exit code each, so cli.py is the only place that exits.

Every error carries one or more `Problem`s; each names the file, line, column, key, what is
wrong and how to fix it, because a user reading CI output must be able to act on one line.
"""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass
from typing import Any, ClassVar, Iterable, Sequence

EXIT_OK = 0
EXIT_FOUND = 1  # drift, a refused change, an error-level finding, a failed scenario
EXIT_BAD_INPUT = 2  # Click's own usage code, so bad flags and bad values agree
EXIT_TOOL = 3  # a tool or the system failed: kustomize/coredns/git, disk full, permission denied
EXIT_INTERNAL = 4  # a bug in coredns-gen: the traceback is printed, please report it

MAX_SHOWN = 1000  # problems printed; the rest are counted (a 150,000-problem file stays readable)
_QUOTE = 80  # characters of a value an error quotes
_FIELD = 500  # safety net: no message field is longer than this


def quote(value: object, limit: int = _QUOTE) -> str:
    """A value as a message shows it: repr(), at most `limit` characters of it, and the length
    when cut (a 100 MB value must not become a 100 MB line of stderr)."""
    if isinstance(value, str) and len(value) > limit:
        return f"{value[:limit]!r}… ({len(value):,} characters)"
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} characters)"


def _clip(text: str | None) -> str | None:
    if text is None or len(text) <= _FIELD:
        return text
    return f"{text[:_FIELD]}… ({len(text) - _FIELD:,} more characters)"


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the input, rendered as `file:line:col: key: problem — fix: hint`."""

    problem: str
    file: str | None = None
    line: int | None = None
    col: int | None = None
    key: str | None = None
    hint: str | None = None

    def __post_init__(self) -> None:
        for name in ("problem", "key", "hint", "file"):
            value = getattr(self, name)
            if value is not None and len(value) > _FIELD:
                object.__setattr__(self, name, _clip(value))

    def __str__(self) -> str:
        where = ""
        if self.file:
            where = self.file
            if self.line is not None:
                where += f":{self.line}"
                if self.col is not None:
                    where += f":{self.col}"
            where += ": "
        key = f"{self.key}: " if self.key else ""
        fix = f" — fix: {self.hint}" if self.hint else ""
        return f"{where}{key}{self.problem}{fix}"

    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.file or "", self.line or 0, self.col or 0, self.key or "")


class GenError(Exception):
    """Base of every error coredns-gen reports to a user (never a bug)."""

    exit_code: ClassVar[int] = EXIT_BAD_INPUT

    def __init__(self, problems: Problem | str | Iterable[Problem], **where: object) -> None:
        if isinstance(problems, str):
            problems = [Problem(problems, **where)]  # type: ignore[arg-type]
        elif isinstance(problems, Problem):
            problems = [problems]
        self.problems: tuple[Problem, ...] = tuple(problems)
        super().__init__(str(self))

    def __str__(self) -> str:
        """One line per problem, the first MAX_SHOWN of them, then how many there were in all."""
        lines = [str(p) for p in self.problems[:MAX_SHOWN]]
        if len(self.problems) > MAX_SHOWN:
            lines.append(f"… and {len(self.problems) - MAX_SHOWN:,} more problems ({len(self.problems):,} in all; "
                         f"the first {MAX_SHOWN:,} are shown) — fix: these first, then run again")
        return "\n".join(lines)


class Interrupted(BaseException):
    """SIGTERM/SIGHUP as an exception (SIGINT is KeyboardInterrupt), so that cleanup runs; the
    CLI exits 128 + the signal number, as a shell reports a process the signal killed."""

    def __init__(self, signum: int) -> None:
        self.signum = signum
        super().__init__(f"signal {signum}")


class ValuesError(GenError):
    """A values file is missing, malformed or fails validation."""


class RenderedValuesError(ValuesError):
    """Bad input that only the rendered output shows (a Corefile that does not mean what the values
    asked for, an object over Kubernetes' size limit). Each problem comes with the values key path
    it stems from (None: the part of the file that holds the most text), so the caller that has the
    file can give it a line (gen.render.render_check.place)."""

    def __init__(self, found: Sequence[tuple[Sequence[Any] | None, Problem]]) -> None:
        self.found = list(found)
        super().__init__([p for _, p in self.found])


class UsageError(GenError):
    """Flags or arguments that cannot work together (unknown platform, bad ref, …)."""


class SystemFailure(GenError):
    """The system refused: disk full, permission denied, read-only file system, an I/O error."""

    exit_code = EXIT_TOOL


def system_failure(err: OSError, doing: str, shown: str | None = None) -> SystemFailure:
    """An OSError as a user reads it: what we were doing, to which file, why, and what helps."""
    hints = {errno.ENOSPC: "free space on the disk (or raise the quota) and run again",
             errno.EDQUOT: "free space on the disk (or raise the quota) and run again",
             errno.EACCES: "check the permissions of the file and its folder",
             errno.EPERM: "check the permissions and attributes of the file (an immutable `chattr +i` file cannot be replaced)",
             errno.EROFS: "the file system is read-only; render into a writable checkout",
             errno.EIO: "the disk reported an I/O error; check it"}
    why = os.strerror(err.errno) if err.errno else str(err)
    where = shown if shown is not None else (str(err.filename) if err.filename else None)
    return SystemFailure(Problem(f"cannot {doing}: {why}", file=where, hint=hints.get(err.errno or 0, "check the disk and permissions")))


class ToolError(GenError):
    """An external tool (kustomize, coredns, git) is missing or failed; stderr is attached."""

    exit_code = EXIT_TOOL

    def __init__(self, problem: str, *, hint: str | None = None, stderr: str = "") -> None:
        self.stderr = stderr
        text = problem
        if stderr.strip():
            tail = "\n".join(stderr.strip().splitlines()[-20:])
            text += "\n  " + tail.replace("\n", "\n  ")
        super().__init__(Problem(text, hint=hint))
