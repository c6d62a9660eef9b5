"""Turn a kustomize error into a message a reviewer can act on: its own cause, repo paths only.

kustomize reports a failed build as one long chain ("accumulating resources: accumulation
err='...': must build at directory: ..."), full of the guard's temporary paths
(`/dev/shm/coredns-gen-guard-*/head/repo/...`, an artifact's view beside it, an ExternalArtifact's
folder under `<workdir>/artifacts/`). `clean_error` maps those back to repository paths;
`cause` picks the part that names what is wrong: the remote base's URL with git's resolver error
(and "no network" when that is why), or which of kustomize's two attempts at a resource failed
for a real reason (it tries the entry as a file, then as a folder).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Iterable

MAX_MESSAGE = 300  # characters of a finding's message; the whole text goes to details.error
_LEFTOVER = re.compile(r"(?:/[^\s'\"/]+)*/coredns-gen-guard-[^/\s'\"]+/(?:base|head)/repo(?:\.view-[0-9a-f]+)?/?")
# the scratch folder itself, above an artifact: a path there was outside the repository
_OUTSIDE = re.compile(r"(?:/[^\s'\"/]+)*/coredns-gen-guard-[^/\s'\"]+(?:/(?:base|head))?(?=/)")
_REMOTE = re.compile(r"accumulating resources from '(?P<url>(?:https?|ssh|git)://[^']+|git@[^']+|[\w.-]+\.[a-z]{2,}/[^']+)'")
_GIT_FATAL = re.compile(r"fatal: (?P<why>[^\n']+(?:'[^'\n]*'[^\n']*)*)")
_UNRESOLVED = ("Could not resolve host", "no such host", "Name or service not known",
               "Temporary failure in name resolution")
_UNREACHABLE = ("Network is unreachable", "No route to host", "Connection timed out")
_ACCUMULATION = re.compile(r"^(?:accumulating resources: )?accumulation err='(?P<file>.*?)': "
                           r"(?P<dir>(?:must build at directory|couldn't make target|recursed accumulation).*)$", re.S)
_RECURSED = re.compile(r"^recursed accumulation of path '[^']*': (?P<rest>.*)$", re.S)


def clean_error(text: str, trees: Iterable[Path], workdir: Path | None) -> str:
    """`text` with every temporary path made repository-relative, on one line."""
    out = text.strip()
    for lead in ("error: ", "kustomize build failed: "):  # kubectl's, kustomize-controller's
        if out.startswith(lead):
            out = out[len(lead):]
    prefixes: list[tuple[str, str]] = []
    for root in trees:
        for form in {str(root), os.path.realpath(root)}:
            prefixes += [(form + "/", ""), (form, ".")]
    if workdir is not None:
        for form in {str(workdir), os.path.realpath(workdir)}:
            # an ExternalArtifact laid out by the guard (gen/guard/flux/views.py): paths inside the artifact
            out = re.sub(re.escape(form) + r"/artifacts/[^/\s]+/[^/\s]+/?", "", out)
    for root in trees:  # an artifact laid out in its own folder beside its revision (views.py)
        for form in {str(root), os.path.realpath(root)}:
            out = re.sub(re.escape(form) + r"\.view-[0-9a-f]+(?:/|\b)", "", out)
    for prefix, replacement in sorted(prefixes, key=lambda p: -len(p[0])):
        out = out.replace(prefix, replacement)
    out = _LEFTOVER.sub("", out)
    out = _OUTSIDE.sub("<outside the repository>", out)
    out = " ".join(line.strip() for line in out.splitlines() if line.strip()).replace(" : ", ": ")
    return re.sub(r"^accumulating resources: (?=accumulating resources from)", "", out)


def cause(cleaned: str) -> str:
    """The part of a cleaned kustomize error that says what is wrong."""
    remote = _REMOTE.search(cleaned)
    if remote:
        fatal = _GIT_FATAL.search(cleaned)
        why = re.sub(r"(?::\s*exit status \d+)+$", "", fatal.group("why").strip() if fatal else _tail(cleaned))
        why = re.sub(r"^unable to access '[^']*': ", "", why)  # git repeats the URL
        if any(u in cleaned for u in _UNREACHABLE):
            note = " (no network here)"
        elif any(u in cleaned for u in _UNRESOLVED):
            note = " (no network here, or a wrong host)"
        else:
            note = ""
        return f"cannot fetch remote base: {why}{note} ('{remote.group('url')}')"  # the URL last: cut first
    return _accumulation(cleaned)


def _accumulation(text: str) -> str:
    """kustomize tries a resource entry as a file, then as a folder, and reports both: the cause
    is the file attempt, unless the entry is a folder; then it is inside that folder's build."""
    acc = _ACCUMULATION.search(text)
    if not acc:
        return text
    first, second = acc.group("file"), acc.group("dir")
    if not first.endswith("is a directory"):
        return first
    nested = _RECURSED.match(second)
    if nested:
        return _accumulation(nested.group("rest"))
    entry = re.match(r"accumulating resources from '[^']*'", first)
    return f"{entry.group(0) + ': ' if entry else ''}{_tail(second)}"


def _tail(text: str) -> str:
    """After the last `: ` that starts a sentence kustomize wrapped: its innermost message."""
    parts = re.split(r": (?=[a-z]+ )", text)
    return parts[-1] if parts else text


def shorten(text: str, limit: int) -> str:
    """At most `limit` characters, cut at a word with an ellipsis."""
    if len(text) <= limit:
        return text
    cut = text[: max(limit - 1, 1)]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut).rstrip(" ,;:") + "…"
