"""A Flux Kustomization that does not build at head, or only at head, is refused (fail closed).

If head cannot be built the guard cannot say what Flux would prune, and Flux itself would stop
applying that Kustomization. One that failed at base too is reported as a warning and not
judged (it was already broken, and stays so). One that failed only at base is refused too: Flux
kept what it last applied before the break, and head, the repair, applies every change made since
then at once and prunes against that older inventory, which base does not show (a Kustomization
renamed while the build was broken is deleted, its HelmReleases uninstalled). Judging from the
revision Flux last applied (`--base`) decides it; `--allow ks:` waives it.
The message carries kustomize's own cause with repository paths (errortext.py), at most ~300
characters; `details.error` holds the whole cleaned text.

PASS: both revisions build.
FAIL: head's kustomization.yaml lists a file that does not exist -> error; base's does and head
      repairs it -> error naming `--base <the revision Flux last applied>`.
"""

from __future__ import annotations

from typing import Iterator

from gen.finding import Finding, Severity
from gen.guard.change import Change
from gen.guard.diff import BuildIssue
from gen.guard.errortext import MAX_MESSAGE, cause, clean_error, shorten
from gen.guard.model import KsRef

ID = "build-failed"
SEVERITY = Severity.ERROR


def check(change: Change) -> Iterator[Finding]:
    for issue in change.issues:
        yield _finding(change, issue)


def _finding(change: Change, issue: BuildIssue) -> Finding:
    label = "head" if issue.head_error else "base"
    src = change.locator.ks_source(label, issue.ks) or change.locator.ks_source("base", issue.ks)
    file, line = (src[0], src[1]) if src else (".", 1)
    node = (change.head if label == "head" else change.base).nodes[issue.ks]
    error = clean_error(issue.head_error or issue.base_error or "unknown error", [tree.root for tree in change.locator.trees.values()],
                        change.workdir)
    details = {"kustomization": str(issue.ks), "cluster": issue.ks.cluster, "path": "./" + node.ks.path,
               "error": error}
    where = change.where(issue.ks)
    if issue.head_error and not issue.base_error:
        severity, head, tail = SEVERITY, f"Kustomization {issue.ks} does not build at head (./{node.ks.path}): ", \
            "; its prunes cannot be judged, so the change is refused"
        hint = f"make `kubectl kustomize ./{node.ks.path}` succeed; if it is retired on purpose, " + \
            _allow_hint(change, issue.ks)
        if "not found" in error and node.ks.path and change.locator.trees["head"].is_dir(node.ks.path):
            hint = (f"./{node.ks.path} is in the repository but not in the Flux artifact: an ignore rule "
                    "(.sourceignore, GitRepository spec.ignore) leaves it out, so `kubectl kustomize` on the checkout "
                    "succeeds where Flux's build fails; change that rule (see sourceignore-hides); if it is retired "
                    "on purpose, " + _allow_hint(change, issue.ks))
    elif issue.head_error:
        severity, head, tail = Severity.WARNING, \
            f"Kustomization {issue.ks} fails to build at base and at head, not judged: ", ""
        hint = f"make `kubectl kustomize ./{node.ks.path}` succeed"
    else:
        severity, head, tail = SEVERITY, f"Kustomization {issue.ks} did not build at base, so its prunes are not judged: ", \
            ("; Flux still holds what it last applied before the break and head applies and prunes every change "
             "since then at once, so the change is refused")
        hint = (f"judge head from the revision Flux last applied through {issue.ks} (its lastAppliedRevision in "
                f"`flux get kustomizations`, or the last commit where it built): rerun with --base <that commit>; "
                f"if that is known to be safe, allow it with --allow ks:{issue.ks}")
    budget = max(MAX_MESSAGE - len(head) - len(tail) - len(where), 80)
    return Finding(ID, severity, file, line, head + shorten(cause(error), budget) + tail + where, hint, details=details)


def _allow_hint(change: Change, ks: KsRef) -> str:
    """How to allow it: the whole cluster when this is its root (a decommission), else the Kustomization."""
    if ks in change.head.roots or ks in change.base.roots:
        return f"allow the cluster's removal with --allow cluster:{ks.cluster}"
    return f"allow its removal with --allow ks:{ks}"
