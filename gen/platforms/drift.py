"""Drift on upgrade (README.md, `render --check`): what a platform's own default Corefile changes between two releases.

A user who bumps `platformVersion` (or a Talos/k3s release the repository records) reviews
YAML, but the platform ships its own Corefile per release: a repository-owned Corefile copied
from the old release keeps the old defaults, and coredns-custom keys land in a block that may
have moved. `render --check` and the guard show the unified diff of the two stock Corefiles
the platform modules hold; when either is not in the tables they say so, never nothing.
"""

from __future__ import annotations

import difflib
from typing import NamedTuple

from gen.platforms import PLATFORMS
from gen.versions import parse_version

DOMAIN = "cluster.local"  # the stock Corefiles are compared as the platform ships them by default


class StockDrift(NamedTuple):
    """The stock Corefile of `platform` at `before` -> `after` (releases as written)."""

    platform: str
    before: str
    after: str
    diff: str  # unified diff, "" when the two are the same text or one is unknown
    unknown: str  # why the diff cannot be shown ("" when both are known)

    def summary(self) -> str:
        """One line: what changed, or why it is not known."""
        what = f"{self.platform} {self.before} -> {self.after}"
        if self.unknown:
            return f"the {self.platform} stock Corefile change for {what} is not known: {self.unknown}"
        if not self.diff:
            return f"the {self.platform} stock Corefile is the same in {self.before} and {self.after}"
        lines = self.diff.splitlines()[2:]
        added = sum(1 for line in lines if line.startswith("+"))
        removed = sum(1 for line in lines if line.startswith("-"))
        return f"the {self.platform} stock Corefile changes from {self.before} to {self.after} (+{added} -{removed} lines)"

    def as_details(self) -> dict[str, str]:
        """The flat fields a finding's `details` carries (json, result files, guard-merge)."""
        return {"stock_platform": self.platform, "stock_before": self.before, "stock_after": self.after,
                "stock_diff": self.diff, "stock_unknown": self.unknown, "stock_summary": self.summary()}


def _stock(platform: str, release: str) -> tuple[str | None, str]:
    """(the stock Corefile, why not) for a release as written; a later patch takes the facts of
    the known release it stands in for (gen/platforms/newer.py), as render does."""
    chosen = PLATFORMS.get(platform)
    if chosen is None:
        return None, f"{platform} is not a platform coredns-gen holds stock Corefiles for"
    try:
        parse_version(release)
        known = chosen.stand_in(release)
    except ValueError:
        return None, f"{release!r} is not a {platform} release"
    if known is None:
        return None, (f"coredns-gen's tables hold no {platform} release of that minor at or below {release} "
                      f"(known: {chosen.known_releases()})")
    text = chosen.stock_corefile(parse_version(known), DOMAIN)
    if text is None:
        return None, f"{platform} publishes no stock Corefile coredns-gen holds for {known}"
    return text, ""


def stock_drift(platform: str, before: str, after: str) -> StockDrift | None:
    """The drift between two releases as written (None when they are the same release)."""
    if before == after:
        return None
    old, why_old = _stock(platform, before)
    new, why_new = _stock(platform, after)
    if old is None or new is None:
        why = "; ".join(f"{r}: {w}" for r, w in ((before, why_old), (after, why_new)) if w)
        return StockDrift(platform, before, after, "", why)
    diff = "".join(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                        f"{platform} {before} stock Corefile", f"{platform} {after} stock Corefile"))
    if diff and not diff.endswith("\n"):
        diff += "\n"
    return StockDrift(platform, before, after, diff, "")
