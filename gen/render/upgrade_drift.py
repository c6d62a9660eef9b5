"""`render --check`'s upgrade review: each values file whose `platformVersion` moved since a git
revision, with the diff of the platform's own stock Corefiles for the two releases.

The rendered files follow the new release, but what the platform itself changed in its default
Corefile (Talos adding `ttl 30`, k3s moving its `forward .` after the overrides) is reviewed
nowhere else before the upgrade reaches the cluster. Git is the only record of the old release:
a values file git does not hold at `since`, or a directory that is no git repository, has no
earlier release to compare with (an explicit `--since` that git cannot resolve is bad input).
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any, Sequence

import yaml

from gen.errors import UsageError
from gen.platforms.drift import StockDrift, stock_drift
from gen.tools import git_binary


def _release(doc: Any) -> tuple[str, str] | None:
    if not isinstance(doc, dict) or not isinstance(doc.get("platform"), str):
        return None
    version = doc.get("platformVersion")
    return (doc["platform"], str(version)) if isinstance(version, (str, int, float)) else None


def _read(text: str) -> Any:
    """The first document of a values file as it was at another revision, or None when it does
    not read (then its release is not known, and the note says so)."""
    try:
        return next(iter(yaml.load_all(text, Loader=yaml.CSafeLoader)), None)
    except (yaml.YAMLError, RecursionError):  # nested past what a reader can: not known, never a crash
        return None


def _git(path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([git_binary(), "-C", str(path.parent), *args], capture_output=True, text=True, check=False)


def upgrades(paths: Sequence[Path], since: str, explicit: bool) -> list[tuple[Path, StockDrift]]:
    """(values file, drift) for each file whose platform release differs from the one at `since`.

    Raises:
        UsageError: `explicit` and git cannot resolve `since` in a values file's repository.
    """
    out = []
    for path in paths:
        if not _git(path, "rev-parse", "--is-inside-work-tree").returncode == 0:
            continue
        if _git(path, "rev-parse", "--verify", "--quiet", f"{since}^{{commit}}").returncode != 0:
            if explicit:
                raise UsageError(f"git cannot resolve {since!r} in the repository of {path}", key="--since",
                                 hint="pass a commit, branch or tag the checkout has (e.g. origin/main after "
                                      "`git fetch origin main`)")
            continue
        old = _git(path, "show", f"{since}:./{path.name}")
        if old.returncode != 0:  # not in git at `since`: a new values file, no earlier release
            continue
        now = _release(_read(path.read_text(encoding="utf-8")))
        before = _release(_read(old.stdout))
        if now is None or before is None or now[0] != before[0]:
            continue
        drift = stock_drift(now[0], before[1], now[1])
        if drift is not None:
            out.append((path, drift))
    return out


def report(found: Sequence[tuple[Path, StockDrift]], since: str, shown: dict[Path, str]) -> str:
    """Each upgrade as `upgrade: FILE: platformVersion A -> B (since REF): summary` and the diff."""
    lines = []
    for path, drift in found:
        lines.append(f"upgrade: {shown.get(path, str(path))}: platformVersion {drift.before} -> {drift.after} "
                     f"(since {since}): {drift.summary()}")
        lines += drift.diff.rstrip("\n").splitlines() if drift.diff else []
        if drift.unknown:
            lines.append("  review: compare the two releases' default Corefiles in the platform's release notes by hand")
    return "".join(line + "\n" for line in lines)
