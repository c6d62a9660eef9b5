"""Finding formatters shared by `lint` and `guard` (yamllint's cli.Format, typed).

text:   `file:line: severity: message (rule)` then an indented `fix:` line.
json:   a list of `Finding.as_dict()` objects in (file, line, rule) order.
github: workflow commands that annotate the pull request diff.
sarif:  SARIF 2.1.0, one run, rules listed with their docstring's first line.
"""

from __future__ import annotations

import json
from typing import Callable, Mapping, Sequence

from gen import __version__
from gen.finding import Finding, Severity

FORMATS = ("text", "json", "github", "sarif")


def format_text(findings: Sequence[Finding], rules: Mapping[str, str] | None = None) -> str:
    lines: list[str] = []
    for f in findings:
        if f.severity is Severity.INFO:
            continue  # what was not judged is in the summary on stderr
        col = f":{f.col}" if f.col else ""
        lines.append(f"{f.file}:{f.line}{col}: {f.severity.value}: {f.message} ({f.rule})")
        if f.hint:
            lines.append(f"  fix: {f.hint}")
    return "\n".join(lines) + ("\n" if lines else "")


def format_json(findings: Sequence[Finding], rules: Mapping[str, str] | None = None) -> str:
    return json.dumps([f.as_dict() for f in findings], indent=2) + "\n"


def _github_escape(text: str, *, prop: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if prop:
        text = text.replace(":", "%3A").replace(",", "%2C")
    return text


def format_github(findings: Sequence[Finding], rules: Mapping[str, str] | None = None) -> str:
    level = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.ALLOWED: "notice", Severity.INFO: "notice"}
    out = []
    for f in findings:
        body = f.message + (f"\nfix: {f.hint}" if f.hint else "")
        props = f"file={_github_escape(f.file, prop=True)},line={f.line}"
        if f.col:
            props += f",col={f.col}"
        props += f",title={_github_escape(f.rule, prop=True)}"
        out.append(f"::{level[f.severity]} {props}::{_github_escape(body)}")
    return "\n".join(out) + ("\n" if out else "")


def format_sarif(findings: Sequence[Finding], rules: Mapping[str, str] | None = None) -> str:
    rules = dict(rules or {})
    for f in findings:
        rules.setdefault(f.rule, f.rule)
    level = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.ALLOWED: "note", Severity.INFO: "note"}
    rule_ids = sorted(rules)
    results = []
    for f in findings:
        region: dict[str, int] = {"startLine": max(f.line, 1)}
        if f.col:
            region["startColumn"] = f.col
        result: dict[str, object] = {
            "ruleId": f.rule,
            "ruleIndex": rule_ids.index(f.rule),
            "level": level[f.severity],
            "message": {"text": f.message + (f" Fix: {f.hint}" if f.hint else "")},
            "locations": [
                {"physicalLocation": {"artifactLocation": {"uri": f.file}, "region": region}}
            ],
        }
        if f.severity is Severity.ALLOWED:
            result["suppressions"] = [{"kind": "external", "justification": "allow list"}]
        results.append(result)
    doc = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "coredns-gen",
                        "version": __version__,
                        "rules": [
                            {"id": r, "shortDescription": {"text": rules[r]}} for r in rule_ids
                        ],
                    }
                },
                "results": results,
            }
        ],
    }
    return json.dumps(doc, indent=2) + "\n"


FORMATTERS: dict[str, Callable[[Sequence[Finding], Mapping[str, str] | None], str]] = {
    "text": format_text,
    "json": format_json,
    "github": format_github,
    "sarif": format_sarif,
}


def format_findings(
    findings: Sequence[Finding], fmt: str, rules: Mapping[str, str] | None = None
) -> str:
    """Render findings sorted by (file, line, rule) in one of FORMATS."""
    ordered = sorted(findings, key=Finding.sort_key)
    return FORMATTERS[fmt](ordered, rules)
