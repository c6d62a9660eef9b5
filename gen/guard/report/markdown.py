"""`--format markdown`: the verdict as a pull-request comment or `$GITHUB_STEP_SUMMARY`.

Per cluster, what is refused and what is warned about, each at file:line with its fix; then what
was not judged; and the counts. GitHub refuses a comment over 65,536 characters, so the page is
kept under LIMIT bytes: findings go in by weight (errors first, then warnings, allowed removals,
not-judged notes), and once the page is full the rest is left out and counted, per cluster and
in total, never silently. Warnings and the not-judged lists are collapsed (`<details>`).
"""

from __future__ import annotations

import html
from typing import Sequence

from gen.finding import Finding, Severity

LIMIT = 60_000  # bytes; GitHub's comment limit is 65,536 characters
_ORDER = (Severity.ERROR, Severity.WARNING, Severity.ALLOWED, Severity.INFO)
_TITLES = {Severity.ERROR: "Refused", Severity.WARNING: "Warnings", Severity.ALLOWED: "Allowed removals",
           Severity.INFO: "Not judged"}
_REPO = "the repository"  # the group of findings that belong to no cluster


def format_markdown(findings: Sequence[Finding], summary: str = "", limit: int = LIMIT) -> str:
    """The whole page; `summary` is GuardResult.summary() (the verdict and coverage lines)."""
    ordered = sorted(findings, key=lambda f: (_ORDER.index(f.severity), f.details.get("cluster", ""), f.sort_key()))
    budget = limit
    while True:
        page = _page(findings, ordered, summary, budget)
        size = len(page.encode("utf-8"))
        if size <= limit or budget <= 0:
            return page
        budget -= size - limit + 512


def _page(findings: Sequence[Finding], ordered: list[Finding], summary: str, budget: int) -> str:
    count = {s: sum(1 for f in findings if f.severity is s) for s in Severity}
    refused = count[Severity.ERROR] > 0
    head = [f"## coredns-gen guard: {'refused' if refused else 'passed'}", "",
            f"**{count[Severity.ERROR]}** refused · **{count[Severity.WARNING]}** warnings · "
            f"**{count[Severity.ALLOWED]}** allowed · **{count[Severity.INFO]}** not judged", ""]
    if summary:
        head += ["```", *summary.splitlines(), "```", ""]
    used = sum(len(line.encode("utf-8")) + 1 for line in head) + 400  # + the closing note
    kept: dict[str, dict[Severity, list[str]]] = {}
    left: dict[str, int] = {}
    for f in ordered:
        cluster = f.details.get("cluster", "") or _REPO
        line = _item(f, cluster)
        cost = len(line.encode("utf-8")) + 1 + (0 if cluster in kept else 200)
        if used + cost > budget:
            left[cluster] = left.get(cluster, 0) + 1
            continue
        used += cost
        kept.setdefault(cluster, {}).setdefault(f.severity, []).append(line)
    body: list[str] = []
    for cluster in sorted(set(kept) | set(left), key=lambda c: (c == _REPO, c)):
        groups = kept.get(cluster, {})
        total = {s: sum(1 for f in findings if (f.details.get("cluster", "") or _REPO) == cluster and f.severity is s)
                 for s in Severity}
        counts = ", ".join(f"{total[s]} {_TITLES[s].lower()}" for s in _ORDER if total[s])
        body += [f"### {'Cluster `' + cluster + '`' if cluster != _REPO else 'Repository-wide'} ({counts})", ""]
        for sev in _ORDER:
            lines = groups.get(sev, [])
            if not lines:
                continue
            if sev is Severity.ERROR:
                body += [f"**{_TITLES[sev]}** ({total[sev]})", "", *lines, ""]
            else:
                body += [f"<details><summary>{_TITLES[sev]} ({total[sev]})</summary>", "", *lines, "", "</details>", ""]
        if left.get(cluster):
            body += [f"_{left[cluster]} more findings in this cluster left out to stay under GitHub's comment limit._", ""]
    tail = []
    if left:
        tail = [f"**{sum(left.values())} findings left out** (of {len(findings)}) to keep this under "
                f"{LIMIT // 1000} KB: every finding is in the job log (`--format text`) and in `--format json`."]
    if not findings:
        body = ["Nothing in place would be lost, and every DNS invariant holds.", ""]
    return "\n".join(head + body + tail).rstrip("\n") + "\n"


def _item(f: Finding, cluster: str) -> str:
    """`- **configmap-pruned** \\`file:line\\` message<br>fix: hint` (the cluster is the heading)."""
    message = f.message
    suffix = f" [cluster {cluster}]"
    if message.endswith(suffix):
        message = message[: -len(suffix)]
    where = f"{f.file}:{f.line}".replace("`", "'")
    fix = f"<br>fix: {_text(f.hint)}" if f.hint else ""
    return f"- **{f.rule}** `{where}` {_text(message)}{fix}"


def _text(text: str) -> str:
    """Plain text that stays plain in GitHub markdown: no HTML, no table or emphasis marks, one line."""
    out = html.escape(text, quote=False).replace("\r", " ").replace("\n", " ")
    for mark in ("\\", "*", "_", "`", "|", "[", "]"):
        out = out.replace(mark, "\\" + mark)
    return out
