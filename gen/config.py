"""The repository config file `.coredns-gen.yaml`: what a GitOps repo tells every command once.

    values:            # globs of values files, used when `render` gets no VALUES arguments
      - dns/*.yaml
    guard:
      allow: []        # deliberate removals the guard reports as allowed (see docs/guard.md)

Hooks and CI call `coredns-gen render --check` without arguments and find the files here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gen.errors import Problem, UsageError
from gen.values import read_document

CONFIG_NAME = ".coredns-gen.yaml"


@dataclass(frozen=True)
class Config:
    values: tuple[str, ...] = ()
    guard_allow: tuple[str, ...] = ()
    raw: Any = None  # the round-trip document, for line numbers in later checks


def load_config(repo: Path) -> Config:
    """Read `.coredns-gen.yaml` at the repo root; an absent file is an empty config.

    Raises:
        UsageError: the file exists but is not what this docstring describes.
    """
    path = repo / CONFIG_NAME
    if not path.is_file():
        return Config()
    data = read_document(path, CONFIG_NAME)
    problems = []
    unknown = sorted(set(data) - {"values", "guard"})
    for key in unknown:
        line, col = data.lc.key(key)
        problems.append(Problem(f"unknown key '{key}'", file=CONFIG_NAME, line=line + 1, col=col + 1, key=key,
                                hint="allowed keys: values, guard"))
    values = data.get("values", [])
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        problems.append(Problem("expected a list of glob patterns", file=CONFIG_NAME, key="values", hint="e.g. values: [dns/*.yaml]"))
        values = []
    guard = data.get("guard") or {}
    allow = guard.get("allow", []) if isinstance(guard, dict) else None
    if not isinstance(allow, list) or not all(isinstance(a, str) for a in allow):
        problems.append(Problem("expected a list of object ids", file=CONFIG_NAME, key="guard.allow",
                                hint="e.g. allow: [kube-system_coredns-custom__ConfigMap]"))
        allow = []
    if problems:
        raise UsageError(problems)
    return Config(values=tuple(values), guard_allow=tuple(allow), raw=data)


def values_from_config(repo: Path) -> list[Path]:
    """Expand the `values:` globs (sorted, de-duplicated) relative to the repo root."""
    config = load_config(repo)
    found: set[Path] = set()
    for pattern in config.values:
        found.update(p for p in repo.glob(pattern) if p.is_file() and not p.name.startswith("."))
    return sorted(found)
