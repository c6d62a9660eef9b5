"""Wiring point 2: the main Corefile has a top-level `import custom/*.server`.

`custom/*.server` is relative to /etc/coredns; k3s writes the absolute
`/etc/coredns/custom/*.server`; both are the contract. An import inside a server block is
import-server-in-block's error.

PASS: `.:53 { … }` then `import custom/*.server` (or `/etc/coredns/custom/*.server`).
FAIL: no such top-level line -> error at the ConfigMap's `Corefile` key.
"""

from __future__ import annotations

from typing import Iterator

from gen.finding import Finding, Severity
from gen.lint.context import LintContext
from gen.lint.wiring import SERVER_GLOB, import_target, line, wirings

ID = "wiring-import-server"
SEVERITY = Severity.ERROR
REFUSES = False  # about the cluster wiring, not the Corefile syntax


def check(ctx: LintContext) -> Iterator[Finding]:
    for w in wirings(ctx):
        if w.main is None or w.main_corefile is None:
            yield Finding(ID, Severity.WARNING, w.file, line(w.deployment.node),
                          "the coredns ConfigMap is not among the inputs, so the `import custom/*.server` line "
                          "cannot be checked", "pass the coredns ConfigMap too (or `kubectl get cm,deploy -o yaml`)")
            continue
        if any(import_target(d.args[0]) == SERVER_GLOB for d in w.main_corefile.imports):
            continue
        yield Finding(ID, SEVERITY, w.main.file, w.main.key_lines.get("Corefile", w.main.line),
                      "the main Corefile has no top-level `import custom/*.server`, so fragments in "
                      "coredns-custom are never loaded",
                      "append `import custom/*.server` on its own line after the last server block")
