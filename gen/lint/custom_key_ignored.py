"""A `coredns-custom` key must end in `.server` or `.override`, or no import ever reads it.

The platform Corefiles import only `custom/*.server` and `custom/*.override` (AKS docs: keys
"must end in .server or .override"), so any other key is mounted and silently unused.

PASS: `coredns-custom` keys `corp.server`, `log.override`.
FAIL: key `corp.conf` -> error at the key's line (an error, as in the guard: whatever the key
      says never happens, and nothing else tells the author).
"""

from __future__ import annotations

from typing import Iterator

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
                          f"rename it to `{key.rsplit('.', 1)[0]}.server` (whole server blocks) or `.override` "
                          "(lines inside the default block)")
