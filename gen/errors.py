"""One error family with one exit code each, so cli.py is the only place that exits.

Every error carries one or more `Problem`s; each names the file, line, column, key, what is
wrong and how to fix it, because a user reading CI output must be able to act on one line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Iterable, Sequence

EXIT_OK = 0
EXIT_FOUND = 1  # drift, a refused change, an error-level finding, a failed scenario
EXIT_BAD_INPUT = 2  # Click's own usage code, so bad flags and bad values agree
EXIT_TOOL = 3


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the input, rendered as `file:line:col: key: problem — fix: hint`."""

    problem: str
    file: str | None = None
    line: int | None = None
    col: int | None = None
    key: str | None = None
    hint: str | None = None

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
        return "\n".join(str(p) for p in self.problems)


class ValuesError(GenError):
    """A values file is missing, malformed or fails validation."""


class RenderedValuesError(ValuesError):
    """Bad input that only the rendered output shows (a Corefile that does not mean what the values
    asked for, an object over Kubernetes' size limit). Each problem comes with the values key path
    it stems from (None: the part of the file that holds the most text), so the caller that has the
    file can give it a line (gen.render_check.place)."""

    def __init__(self, found: Sequence[tuple[Sequence[Any] | None, Problem]]) -> None:
        self.found = list(found)
        super().__init__([p for _, p in self.found])


class UsageError(GenError):
    """Flags or arguments that cannot work together (unknown platform, bad ref, …)."""


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
