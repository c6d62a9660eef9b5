"""A Flux Kustomization that does not build at head is refused (fail closed).

If head cannot be built the guard cannot say what Flux would prune, and Flux itself would stop
applying that Kustomization. One that failed at base too is reported as a warning and not
judged (it was already broken); one that failed only at base is a warning too (nothing to compare).

PASS: both revisions build.
FAIL: head's kustomization.yaml lists a file that does not exist -> error.
"""

from __future__ import annotations

from typing import Iterator

from gen.finding import Finding, Severity
from gen.guard.change import Change
from gen.guard.model import KsRef

ID = "build-failed"
SEVERITY = Severity.ERROR


def _first_line(text: str | None) -> str:
    lines = [line for line in (text or "").strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else "unknown error"


def check(change: Change) -> Iterator[Finding]:
    for f in _check(change):
        yield Finding(f.rule, f.severity, f.file, f.line, f.message + change.where(_ref(change, f)), f.hint,
                      details=f.details)


def _ref(change: Change, f: Finding) -> KsRef:
    ns, name = f.details["kustomization"].split("/", 1)
    return KsRef(f.details["cluster"], ns, name)


def _check(change: Change) -> Iterator[Finding]:
    for issue in change.issues:
        label = "head" if issue.head_error else "base"
        src = change.locator.ks_source(label, issue.ks) or change.locator.ks_source("base", issue.ks)
        file, line = (src[0], src[1]) if src else (".", 1)
        node = (change.head if label == "head" else change.base).nodes[issue.ks]
        details = {"kustomization": str(issue.ks), "cluster": issue.ks.cluster, "path": "./" + node.ks.path}
        if issue.head_error and not issue.base_error:
            yield Finding(ID, SEVERITY, file, line,
                          f"Kustomization {issue.ks} does not build at head (./{node.ks.path}): "
                          f"{_first_line(issue.head_error)}; what Flux would prune cannot be judged, so the change is refused",
                          f"make `kubectl kustomize ./{node.ks.path}` succeed", details=details)
        elif issue.head_error:
            yield Finding(ID, Severity.WARNING, file, line,
                          f"Kustomization {issue.ks} fails to build at base and at head, not judged: "
                          f"{_first_line(issue.head_error)}",
                          f"make `kubectl kustomize ./{node.ks.path}` succeed", details=details)
        else:
            yield Finding(ID, Severity.WARNING, file, line,
                          f"Kustomization {issue.ks} did not build at base, so its prunes are not judged: "
                          f"{_first_line(issue.base_error)}", "nothing to do if head is the fix", details=details)
