"""Deliberate removals: `--allow ID` and the repo config file's `guard.allow` list.

An entry is a Flux inventory id (`<namespace>_<name>_<group>_<kind>`, shell-style `*` allowed).
A matching error stays in the report with severity `allowed`, so a
reviewer still sees what Flux will delete. The config file is read from the *head* revision:
allowing a removal is part of the reviewed change.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, replace
from pathlib import Path

from gen.config import CONFIG_NAME, load_config
from gen.finding import Finding, Severity


@dataclass(frozen=True)
class Allow:
    pattern: str
    reason: str = ""
    source: str = "--allow"


def config_allows(tree_root: Path) -> list[Allow]:
    """`guard.allow` of the repository config at a revision (validated by gen.config)."""
    return [Allow(a, "", CONFIG_NAME) for a in load_config(tree_root).guard_allow]


def apply_allow(findings: list[Finding], allows: list[Allow]) -> list[Finding]:
    """Turn errors about allowed objects into `allowed` findings that say who allowed them."""
    out = []
    for f in findings:
        obj = f.details.get("object", "")
        match = next((a for a in allows if obj and fnmatch.fnmatchcase(obj, a.pattern)), None)
        if match is None or f.severity is not Severity.ERROR:
            out.append(f)
            continue
        why = f"allowed by {match.source}" + (f": {match.reason}" if match.reason else "")
        out.append(replace(f, severity=Severity.ALLOWED, message=f"{f.message} ({why})",
                           details={**f.details, "allowed_by": match.source}))
    return out
