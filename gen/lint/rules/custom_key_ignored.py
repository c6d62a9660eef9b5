"""A `coredns-custom` key must end in `.server` or `.override`, or no import ever reads it.

The platform Corefiles import only `custom/*.server` and `custom/*.override` (AKS docs: keys
"must end in .server or .override"), so any other key is mounted and silently unused.

PASS: `coredns-custom` keys `corp.server`, `log.override`.
FAIL: key `corp.conf` -> error at the key's line (an error, as in the guard: whatever the key
      says never happens, and nothing else tells the author).
"""

from __future__ import annotations

from typing import Iterator

from gen.corefile import CorefileError, Source
from gen.finding import Finding, Severity
from gen.lint.context import LintContext
from gen.lint.inputs import CUSTOM_CONFIGMAP

ID = "custom-key-ignored"
SEVERITY = Severity.ERROR
REFUSES = False  # about the cluster wiring, not the Corefile syntax


def check(ctx: LintContext) -> Iterator[Finding]:
    cm = ctx.inputs.configmap(CUSTOM_CONFIGMAP)
    if cm is None:
        return
    for key, line in sorted(cm.key_lines.items()):
        if not key.endswith((".server", ".override")):
            yield Finding(ID, SEVERITY, cm.file, line, f"{CUSTOM_CONFIGMAP} key `{key}` ends neither .server nor .override, so CoreDNS never imports it",
                          _rename(key, cm.data.get(key)))


def _rename(key: str, source: Source | None) -> str:
    """The suffix that fits what the key holds, as CoreDNS's parser reads it: braced server blocks
    go in `.server`; directive lines in `.override` (as `.server` a line such as `rewrite name a b`
    would become a brace-less server block serving the zones `rewrite`, `name`, `a` and `b`)."""
    stem = key.rsplit(".", 1)[0]
    for suffix in (".server", ".override"):  # k3s's `name.override.start`: the stem is `name`
        stem = stem[:-len(suffix)] if stem.endswith(suffix) and len(stem) > len(suffix) else stem
    server, override = f"`{stem}.server` (whole server blocks)", f"`{stem}.override` (lines inside the default block)"
    if source is None:
        return f"rename it to {server} or {override}"
    try:
        blocks = source.corefile().server_blocks
        if blocks and all(b.end_line is not None for b in blocks):
            return f"rename it to {server}: it holds server blocks"
    except CorefileError:
        pass
    try:
        source.directives()
        return f"rename it to {override}: it holds directive lines"
    except CorefileError:
        return f"rename it to {server} or {override}"
