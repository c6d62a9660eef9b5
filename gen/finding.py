"""Findings are what lint and guard report: values, never printed or raised by the rules."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


class Severity(str, enum.Enum):
    """Only ERROR makes a command exit 1; WARNING is printed; ALLOWED records a waived error;
    INFO says what was not judged (machine formats carry it, the text summary names it)."""

    ERROR = "error"
    WARNING = "warning"
    ALLOWED = "allowed"
    INFO = "info"


@dataclass(frozen=True)
class Finding:
    """One problem a rule found, anchored at the file and line a reviewer has to change."""

    rule: str
    severity: Severity
    file: str
    line: int
    message: str
    hint: str = ""
    col: int | None = None
    # Machine-readable extras (object id, Flux Kustomization, …); keys sorted on output.
    details: dict[str, str] = field(default_factory=dict, compare=False, hash=False)

    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (self.file, self.line, self.col or 0, self.rule, self.message)

    def as_dict(self) -> dict[str, object]:
        """Stable, documented JSON shape (see README: `--format json`)."""
        return {
            "rule": self.rule,
            "severity": self.severity.value,
            "file": self.file,
            "line": self.line,
            "column": self.col,
            "message": self.message,
            "hint": self.hint,
            "details": dict(sorted(self.details.items())),
        }


def blocking(findings: list[Finding], *, strict: bool = False) -> bool:
    """True when the findings must fail the run (errors; warnings too under --strict)."""
    stops = {Severity.ERROR, Severity.WARNING} if strict else {Severity.ERROR}
    return any(f.severity in stops for f in findings)
