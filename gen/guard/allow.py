"""Deliberate removals: `--allow ID` and the repo config file's `guard.allow` list.

An entry is one of
- a Flux inventory id (`<namespace>_<name>_<group>_<kind>`): that object, in every cluster;
- `ks:<namespace>/<name>`: every removal and build failure of that Flux Kustomization (it is
  being retired or rebuilt on purpose), and a change to files it may read when it cannot be
  judged (not-judged-touched);
- `cluster:<root file>`: every removal and build failure of that cluster (a decommission or a
  re-bootstrap: its whole `clusters/<name>/` tree goes).
Shell-style `*` and `?` work in each. A matching error stays in the report with severity
`allowed`, so a reviewer still sees what Flux will delete. Invariant findings (a broken DNS
setting) are not removals: only an object id allows them. The config file is read from the
*head* revision: allowing a removal is part of the reviewed change.
"""

from __future__ import annotations

import fnmatch
import posixpath
from dataclasses import dataclass, replace
from typing import Any

from gen.config import CONFIG_NAME, Config
from gen.errors import Problem, UsageError
from gen.finding import Finding, Severity

# about a whole Kustomization: ks:/cluster: waive them
BUILD_RULES = ("build-failed", "not-judged-touched", "bootstrap-source-moved")


@dataclass(frozen=True)
class Allow:
    pattern: str
    reason: str = ""
    source: str = "--allow"

    @property
    def scope(self) -> str:
        """`object`, `ks` or `cluster`."""
        head = self.pattern.split(":", 1)[0]
        return head if head in ("ks", "cluster") and ":" in self.pattern else "object"

    def matches(self, finding: Finding) -> bool:
        details = finding.details
        if self.scope == "object":
            obj = details.get("object", "")
            return bool(obj) and fnmatch.fnmatchcase(obj, self.pattern)
        if "fate" not in details and finding.rule not in BUILD_RULES:
            return False  # an invariant finding is not a removal
        field = "kustomization" if self.scope == "ks" else "cluster"
        value = details.get(field, "")
        return bool(value) and fnmatch.fnmatchcase(value, self.pattern.split(":", 1)[1])


def _problem(entry: str) -> str | None:
    """What is wrong with one entry, or None."""
    if ":" not in entry:
        return None if entry.strip() else "is empty"
    scope, rest = entry.split(":", 1)
    if scope == "ks":
        parts = rest.split("/")
        if len(parts) != 2 or not all(parts):
            return f"'{entry}' is not ks:<namespace>/<name>"
        return None
    if scope == "cluster":
        norm = posixpath.normpath(rest) if rest else ""
        if not rest or posixpath.isabs(rest) or norm == ".." or norm.startswith("../"):
            return f"'{entry}' is not cluster:<root file> with a repository-relative file"
        return None
    return f"'{entry}' has an unknown scope '{scope}:'"


def _position(raw: Any, index: int) -> tuple[int | None, int | None]:
    """1-based line and column of guard.allow[index] in the config document (its `.lc` positions)."""
    try:
        line, col = raw["guard"]["allow"].lc.item(index)
    except (AttributeError, KeyError, TypeError, IndexError):
        return None, None
    return int(line) + 1, int(col) + 1


def parse_allows(cli: tuple[str, ...], config: Config) -> list[Allow]:
    """`--allow` entries then the head config's `guard.allow`, all checked.

    Raises:
        UsageError: an entry is malformed (every bad entry is reported).
    """
    allows = [Allow(a) for a in cli] + [Allow(a, "", CONFIG_NAME) for a in config.guard_allow]
    problems = []
    hint = "use an inventory id (<namespace>_<name>_<group>_<kind>), ks:<namespace>/<name> or cluster:<root file>"
    for allow in allows[:len(cli)]:
        why = _problem(allow.pattern)
        if why:
            problems.append(Problem(why, key="--allow", hint=hint))
    for i, allow in enumerate(allows[len(cli):]):
        why = _problem(allow.pattern)
        if why:
            line, col = _position(config.raw, i)
            problems.append(Problem(why, file=CONFIG_NAME, line=line, col=col, key=f"guard.allow[{i}]", hint=hint))
    if problems:
        raise UsageError(problems)
    return allows


def apply_allow(findings: list[Finding], allows: list[Allow]) -> list[Finding]:
    """Turn errors about allowed objects into `allowed` findings that say who allowed them."""
    out = []
    for f in findings:
        match = next((a for a in allows if a.matches(f)), None) if f.severity is Severity.ERROR else None
        if match is None:
            out.append(f)
            continue
        why = f"allowed by {match.source}" + (f" ({match.pattern})" if match.scope != "object" else "") + \
            (f": {match.reason}" if match.reason else "")
        out.append(replace(f, severity=Severity.ALLOWED, message=f"{f.message} ({why})",
                           details={**f.details, "allowed_by": match.source}))
    return out
