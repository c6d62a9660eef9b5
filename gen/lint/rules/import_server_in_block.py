"""`import …*.server` belongs at top level: its files hold whole server blocks.

Inside a server block each imported line becomes a directive, so `example.org:53 {` is an
"Unknown directive" and CoreDNS refuses the Corefile as soon as one such file exists (docs/lint.md,
`wiring-import-server`). With no file yet the glob is empty and CoreDNS starts — the mistake waits for the
first route.

PASS: `.:53 { … }` then `import custom/*.server` on its own line.
FAIL: `import custom/*.server` inside `.:53 { … }` -> error at the import line.
"""

from __future__ import annotations

from typing import Iterator

from gen.corefile import is_server_import, walk_directives
from gen.finding import Finding, Severity
from gen.lint.context import LintContext, at

ID = "import-server-in-block"
SEVERITY = Severity.ERROR
REFUSES = True  # an error finding means CoreDNS refuses to load the Corefile


def check(ctx: LintContext) -> Iterator[Finding]:
    for _unit, block in ctx.raw_blocks():
        for d in walk_directives(block.directives):
            if is_server_import(d):
                yield at(ID, SEVERITY, d, f"`import {d.args[0]}` is inside the server block `{' '.join(block.keys)}`; "
                         "its files hold whole server blocks, which CoreDNS refuses as unknown directives",
                         f"move `import {d.args[0]}` after the block's closing '}}', at top level")
