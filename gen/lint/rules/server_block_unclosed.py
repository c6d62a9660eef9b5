"""A server block whose closing `}` is missing, ended by a nested block's `}` at the end of the file.

CoreDNS's parser checks for the block's `}` on the token it stands on, which at the end of the
text is the last one read: after a nested block (`forward . 1.1.1.1 {` … `}`) that is a `}`, so
CoreDNS starts and reads the block as if it were closed. Nothing is lost today, but the next
line appended to the file lands inside the block (or is refused).

PASS: `.:53 {` / `forward . 1.1.1.1 {` / `}` / `}`
FAIL: `.:53 {` / `forward . 1.1.1.1 {` / `}` (end of file) -> warning at the block.
"""

from __future__ import annotations

from typing import Iterator

from gen.finding import Finding, Severity
from gen.lint.context import LintContext, at

ID = "server-block-unclosed"
SEVERITY = Severity.WARNING
REFUSES = False  # CoreDNS starts (measured in 1.13.1 and 1.11.3)


def check(ctx: LintContext) -> Iterator[Finding]:
    for _unit, block in ctx.raw_blocks():
        if block.unclosed:
            yield at(ID, SEVERITY, block, f"the server block `{' '.join(block.keys)}` is never closed; CoreDNS takes "
                     f"the `}}` at line {block.end_line} (a nested block's) as its end",
                     "add the block's own `}` on a line after it")
