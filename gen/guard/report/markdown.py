"""`--format markdown`: the verdict as a pull-request comment or `$GITHUB_STEP_SUMMARY`.

Per cluster (headed by its name, the root file under it), what is refused, the Corefile CoreDNS
loads there as a base -> head diff, what is warned about, each finding at file:line with its fix;
then what was not judged; and the counts. GitHub refuses a comment over 65,536 characters, so the
page is kept under LIMIT bytes: entries go in by weight (errors first, then Corefile diffs,
warnings, allowed removals, not-judged notes), and once the page is full the rest is left out and
counted, per cluster and in total, never silently. Everything but the refusals is collapsed
(`<details>`). Findings of one rule and one cause (the same message and fix once the file and
the cluster are taken out: a fleet's clusters refused for the same edit) are said once, with
their fix, under "Causes"; each of them is then one short line in its cluster, at file:line. Text from messages is HTML-escaped and its backtick spans become `<code>`, so no
mark of a message shows up literally or turns into markup.
"""

from __future__ import annotations

import html
import posixpath
import re
from typing import Sequence

from gen.finding import Finding, Severity
from gen.guard.corefile_view import ID as VIEW
from gen.guard.flux.platform_facts import folder_name

LIMIT = 60_000  # bytes; GitHub's comment limit is 65,536 characters
_ORDER = (Severity.ERROR, Severity.WARNING, Severity.ALLOWED, Severity.INFO)
_TITLES = {Severity.ERROR: "Refused", Severity.WARNING: "Warnings", Severity.ALLOWED: "Allowed removals",
           Severity.INFO: "Not judged"}
_REPO = "the repository"  # the group of findings that belong to no cluster
_SPAN = re.compile(r"`([^`\n]+)`")


def _rank(f: Finding) -> int:
    """Weight for the budget: refusals, then Corefile diffs, then the rest by severity."""
    if f.rule == VIEW:
        return 1
    return {Severity.ERROR: 0, Severity.WARNING: 2, Severity.ALLOWED: 3, Severity.INFO: 4}[f.severity]


def format_markdown(findings: Sequence[Finding], summary: str = "", limit: int = LIMIT) -> str:
    """The whole page; `summary` is GuardResult.summary() (the verdict and coverage lines)."""
    ordered = sorted(findings, key=lambda f: (_rank(f), f.details.get("cluster", ""), f.sort_key()))
    budget = limit
    while True:
        page = _page(findings, ordered, summary, budget)
        size = len(page.encode("utf-8"))
        if size <= limit or budget <= 0:
            return page
        budget -= size - limit + 512


def _cause(f: Finding) -> tuple[str, str, str, str]:
    """(rule, severity, message, fix) with what differs per occurrence taken out: the finding's
    file, its cluster's root and name (findings alike but for those share one cause)."""
    cluster = f.details.get("cluster", "")
    message = f.message.removesuffix(f" [cluster {cluster}]") if cluster else f.message

    def general(text: str) -> str:
        for particular, mark in ((f.file, "<file>"), (cluster, "<cluster>"),
                                 (posixpath.dirname(cluster), "<cluster folder>")):
            if particular and len(particular) > 1:
                text = text.replace(particular, mark)
        return text
    return f.rule, f.severity.value, general(message), general(f.hint)


def _causes(verdicts: Sequence[Finding]) -> dict[tuple[str, str, str, str], int]:
    """Each cause shared by two findings or more -> its number on the page, in the page's order."""
    seen: dict[tuple[str, str, str, str], int] = {}
    for f in sorted(verdicts, key=lambda f: (_rank(f), f.details.get("cluster", ""), f.sort_key())):
        key = _cause(f)
        seen[key] = seen.get(key, 0) + 1
    shared = [key for key, count in seen.items() if count > 1]
    return {key: n for n, key in enumerate(shared, 1)}


def _page(findings: Sequence[Finding], ordered: list[Finding], summary: str, budget: int) -> str:
    views = [f for f in findings if f.rule == VIEW]
    changed = [f for f in views if _loads_change(f)]
    verdicts = [f for f in findings if f.rule != VIEW]
    causes = _causes(verdicts)
    count = {s: sum(1 for f in verdicts if f.severity is s) for s in Severity}
    refused = count[Severity.ERROR] > 0
    head = [f"## coredns-gen guard: {'refused' if refused else 'passed'}", "",
            f"**{count[Severity.ERROR]}** refused · **{count[Severity.WARNING]}** warnings · "
            f"**{count[Severity.ALLOWED]}** allowed · **{count[Severity.INFO]}** not judged"
            + (f" · **{len(changed)}** Corefiles changed" if changed else "")
            + (f" · **{len(views) - len(changed)}** platform defaults changed" if len(views) > len(changed) else ""), ""]
    if summary:  # a paragraph, not a code block: it wraps on a narrow screen instead of running off it
        head += ["<br>\n".join(_text(line) for line in summary.splitlines()), ""]
    if causes:
        shared: dict[tuple[str, str, str, str], int] = {}
        for f in verdicts:
            shared[_cause(f)] = shared.get(_cause(f), 0) + 1
        lines = ["### Causes", "", "Each shared by several findings, said once; the findings below point here.", ""]
        room = budget // 2  # (the rest of a cause's findings then show in full, counted like any entry)
        for key, n in list(causes.items()):
            rule, _, message, fix = key
            line = f"{n}. **{rule}** ({shared[key]} findings): {_text(message)}" + (f"<br>fix: {_text(fix)}" if fix else "")
            room -= len(line.encode("utf-8")) + 1
            if room < 0:
                del causes[key]
                continue
            lines.append(line)
        head += [*lines, ""] if causes else []
    used = sum(len(line.encode("utf-8")) + 1 for line in head) + 400  # + the closing note
    names = {f.details["cluster"]: f.details.get("cluster_name", "") for f in views if f.details.get("cluster")}
    kept: dict[str, dict[int, list[str]]] = {}
    left: dict[str, int] = {}
    for f in ordered:
        cluster = f.details.get("cluster", "") or _REPO
        number = causes.get(_cause(f)) if f.rule != VIEW else None
        entry = _diff(f) if f.rule == VIEW else _item(f, cluster) if number is None else _pointer(f, number)
        # (a cluster's first entry brings its heading, root line and section titles)
        cost = len(entry.encode("utf-8")) + 1 + (0 if cluster in kept else 160 + 2 * len(cluster.encode("utf-8")))
        if used + cost > budget:
            left[cluster] = left.get(cluster, 0) + 1
            continue
        used += cost
        kept.setdefault(cluster, {}).setdefault(_rank(f), []).append(entry)
    body: list[str] = []
    for cluster in sorted(set(kept) | set(left), key=lambda c: (c == _REPO, names.get(c) or folder_name(c), c)):
        groups = kept.get(cluster, {})
        mine = [f for f in findings if (f.details.get("cluster", "") or _REPO) == cluster]
        total = {s: sum(1 for f in mine if f.rule != VIEW and f.severity is s) for s in Severity}
        counts = ", ".join(f"{total[s]} {_TITLES[s].lower()}" for s in _ORDER if total[s])
        if any(f.rule == VIEW for f in mine):
            what = "Corefile changed" if any(_loads_change(f) for f in mine if f.rule == VIEW) else "platform default changed"
            counts = ", ".join(filter(None, [counts, what]))
        if cluster == _REPO:
            body += [f"### Repository-wide ({counts})", ""]
        else:
            name = names.get(cluster) or folder_name(cluster)
            body += [f"### Cluster {_text(name)} ({counts})", "", f"Root: <code>{html.escape(cluster)}</code>", ""]
        for rank, title in enumerate(("Refused", "", "Warnings", "Allowed removals", "Not judged")):
            lines = groups.get(rank, [])
            if not lines:
                continue
            sev = _ORDER[[0, 0, 1, 2, 3][rank]]
            if rank == 0:
                body += [f"**{title}** ({total[sev]})", "", *lines, ""]
            elif rank == 1:
                body += [*lines, ""]
            else:
                body += [f"<details><summary>{title} ({total[sev]})</summary>", "", *lines, "", "</details>", ""]
        if left.get(cluster):
            body += [f"_{left[cluster]} more entries for this cluster left out to stay under GitHub's comment limit._", ""]
    tail = []
    if left:
        tail = [f"**{sum(left.values())} findings left out** (of {len(findings)}) to keep this under "
                f"{LIMIT // 1000} KB: every finding and Corefile diff is in the job log (<code>--format text</code>) "
                "and in <code>--format json</code>."]
    if not findings:
        body = ["Nothing in place would be lost, and every DNS invariant holds.", ""]
    elif not verdicts:
        body = ["Nothing in place would be lost, and every DNS invariant holds.", "", *body]
    return "\n".join(head + body + tail).rstrip("\n") + "\n"


def _loads_change(view: Finding) -> bool:
    """False for a view shown only for the platform's stock Corefile (drift on upgrade)."""
    return " does not change (" not in view.message.split("; ", 1)[0]


def _item(f: Finding, cluster: str) -> str:
    """`- **configmap-pruned** <code>file:line</code> message<br>fix: hint` (the cluster is the heading)."""
    message = f.message
    suffix = f" [cluster {cluster}]"
    if message.endswith(suffix):
        message = message[: -len(suffix)]
    fix = f"<br>fix: {_text(f.hint)}" if f.hint else ""
    return f"- **{f.rule}** <code>{html.escape(f'{f.file}:{f.line}', quote=False)}</code> {_text(message)}{fix}"


def _pointer(f: Finding, number: int) -> str:
    """One finding of a shared cause: where it is, and which cause (said once under Causes)."""
    return f"- **{f.rule}** <code>{html.escape(f'{f.file}:{f.line}', quote=False)}</code> cause {number} (above)"


def _diff(f: Finding) -> str:
    """The cluster's Corefile diff, collapsed, in a fence longer than any backtick run inside; then
    the platform's stock Corefile diff when the cluster changes release (drift on upgrade)."""
    d = f.details
    diff = d.get("diff", "")
    first = f.message.split("; ", 1)[0]
    change = first.rsplit("(", 1)[-1].split(")", 1)[0] if "(" in first else ""
    origins = (f"base: {_text(d.get('base_origin', ''))}<br>\nhead: {_text(d.get('head_origin', ''))}"
               + (f"<br>\nverify: {_text(d['verify'])}" if d.get("verify") else ""))
    problem = f.message.split("; at head it does not parse: ", 1)
    warn = [f"**At head CoreDNS cannot parse it:** {_text(problem[1])}", ""] if len(problem) == 2 else []
    shown = [f"{_fence(diff)}diff", diff.rstrip("\n"), _fence(diff)] if diff else ["(no change)"]
    out = [f"<details><summary>Corefile CoreDNS loads: {_text(change)}</summary>", "", origins, "",
           *warn, *shown, "", "</details>"]
    if d.get("stock_summary"):
        stock = d.get("stock_diff", "")
        out += ["", f"<details><summary>Platform default Corefile: {_text(d['stock_summary'])}</summary>", ""]
        out += [f"{_fence(stock)}diff", stock.rstrip("\n"), _fence(stock), ""] if stock else []
        out += ["</details>"]
    return "\n".join(out)


def _fence(text: str) -> str:
    """A code fence longer than any backtick run inside `text`."""
    return "`" * max(3, 1 + max((len(run) for run in re.findall(r"`+", text)), default=0))


def _text(text: str) -> str:
    """Plain text that stays plain in GitHub markdown: no HTML, no table or emphasis marks, one
    line; a `code` span shows as code, never as literal backticks."""
    parts = _SPAN.split(text.replace("\r", " ").replace("\n", " "))
    out = []
    for i, part in enumerate(parts):
        escaped = html.escape(part, quote=False)
        if i % 2:
            out.append(f"<code>{escaped}</code>")
            continue
        for mark in ("\\", "*", "_", "`", "|", "[", "]", "#", "~"):
            escaped = escaped.replace(mark, "\\" + mark)
        out.append(escaped)
    return "".join(out)
