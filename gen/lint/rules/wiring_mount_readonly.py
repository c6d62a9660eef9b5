"""Wiring point 4: the coredns-custom mount is read-only.

CoreDNS never writes there; a writable mount only widens what a compromised pod can change.

PASS: `readOnly: true` on the mount.
FAIL: the mount without `readOnly: true` -> error at the mount.
"""

from __future__ import annotations

from typing import Iterator

from gen.finding import Finding, Severity
from gen.lint.context import LintContext
from gen.lint.inputs import CUSTOM_CONFIGMAP
from gen.lint.wiring import line, wirings

ID = "wiring-mount-readonly"
SEVERITY = Severity.ERROR
REFUSES = False  # about the cluster wiring, not the Corefile syntax


def check(ctx: LintContext) -> Iterator[Finding]:
    for w in wirings(ctx):
        for m in w.mounts:
            if m.get("readOnly") is not True:
                at = line(m, "readOnly") if "readOnly" in m else line(m)
                yield Finding(ID, SEVERITY, w.file, at, f"the {CUSTOM_CONFIGMAP} mount is not read-only",
                              "set `readOnly: true` on the volumeMount")
