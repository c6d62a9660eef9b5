"""The reviewer's view in the job log (`--format text`): each touched cluster's Corefile diff.

Findings are one line each (`file:line: severity: message (rule)`); a diff is many, so the
`corefile-diff` entries are printed after them as a section of their own. `github` and `sarif`
leave them out: an annotation or a SARIF result is a problem at a line, and a diff is neither.
"""

from __future__ import annotations

from typing import Sequence

from gen.finding import Finding
from gen.guard.corefile_view import ID


def verdicts(findings: Sequence[Finding]) -> list[Finding]:
    """The findings that judge (every one but the Corefile diffs)."""
    return [f for f in findings if f.rule != ID]


def format_views_text(findings: Sequence[Finding]) -> str:
    """`== cluster NAME (platform) root: +a -r lines`, where base and head come from, the diff, and
    the platform's stock Corefile diff when the cluster changes release."""
    out: list[str] = []
    for f in sorted((f for f in findings if f.rule == ID), key=lambda f: (f.details.get("cluster_name", ""), f.file)):
        d = f.details
        platform = f", {d['platform']}" if d.get("platform") else ""
        out += ["", f"== {f.message} [{d.get('cluster', f.file)}{platform}]",
                f"   base: {d.get('base_origin', '')}", f"   head: {d.get('head_origin', '')}",
                *([f"   verify: {d['verify']}"] if d.get("verify") else []),
                *d.get("diff", "").rstrip("\n").splitlines(), *stock_lines(f)]
    if not out:
        return ""
    return "\n".join(["The Corefile CoreDNS will load, base -> head, in each cluster whose Corefile or platform release changes:", *out[1:]]) + "\n"


def stock_lines(f: Finding) -> list[str]:
    """The platform's own stock Corefile diff between the cluster's two releases (drift on
    upgrade, gen/platforms/drift.py), or the line saying it is not known."""
    d = f.details
    if not d.get("stock_summary"):
        return []
    return [f"   platform default: {d['stock_summary']}", *d.get("stock_diff", "").rstrip("\n").splitlines()]
