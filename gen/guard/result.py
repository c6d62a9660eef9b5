"""What one guard run (or the merge of its shards) concludes: the findings, what was judged, the views.

A value of its own, below the guard package, so the report layer (gen/guard/report/merge.py
writes and merges it) never imports the pipeline that produces it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gen.finding import Finding, Severity
from gen.guard.coverage import Coverage
from gen.guard.report.shard import Shard


@dataclass
class GuardResult:
    findings: list[Finding]
    stats: dict[str, int] = field(default_factory=dict)
    commits: dict[str, str] = field(default_factory=dict)  # "base"/"head" -> commit id
    coverage: Coverage = field(default_factory=Coverage)
    shard: Shard | None = None  # set when this result covers one shard of the fleet
    notes: list[str] = field(default_factory=list)  # said once on stderr (a cache that did not verify)
    # the reviewer's view: one `corefile-diff` info per touched cluster whose Corefile changes
    # (gen/guard/corefile_view.py); shown by text, markdown and json, never a verdict
    views: list[Finding] = field(default_factory=list)
    # what else the findings depend on besides the commits (the shards of one verdict must agree):
    # --path, --allow, the inventory, the helper (gen/guard/report/merge.py)
    judged_as: dict[str, Any] = field(default_factory=dict)

    def shown(self) -> list[Finding]:
        """The findings and the Corefile views, in (file, line, rule) order: what the formats print."""
        return sorted([*self.findings, *self.views], key=Finding.sort_key)

    def summary(self) -> str:
        """One deterministic line for logs: what was judged and what was found."""
        count = {s: sum(1 for f in self.findings if f.severity is s) for s in Severity}
        s = self.stats
        guessed = ("roots guessed, no bootstrap found (confirm the clusters once: coredns-gen guard --discover "
                   "--write); " if self.coverage.roots_how == "fallback" else "")
        return (f"guard {self.commits.get('base', '')[:12]}..{self.commits.get('head', '')[:12]}: {guessed}"
                f"{s.get('clusters_judged', 0)} of {s.get('clusters', 0)} clusters touched and judged "
                f"({s.get('kustomizations_base', 0)} Flux Kustomizations at base, {s.get('kustomizations_head', 0)} at head); "
                f"{count[Severity.ERROR]} errors, {count[Severity.WARNING]} warnings, {count[Severity.ALLOWED]} allowed"
                + "".join("\n" + line for line in self.coverage.lines())
                + (f"\n{self.shard.line(s.get('clusters', 0))}" if self.shard else ""))
