"""server-block-unclosed: a block whose own `}` is missing, ended by a nested block's `}` at the end.

CoreDNS starts on it (the rule's docstring: measured in 1.13.1 and 1.11.3), so lint warns rather
than refuses; with the block's own `}` there is nothing to say.
"""

from __future__ import annotations

from typing import Callable

from gen.finding import Finding


def _ours(findings: list[Finding]) -> list[tuple[str, int, str]]:
    return [(f.rule, f.line, f.severity.value) for f in findings if f.rule == "server-block-unclosed"]


def test_a_closed_block_passes(lint_text: Callable[..., list[Finding]]) -> None:
    assert _ours(lint_text(".:53 {\n    forward . 1.1.1.1 {\n        max_fails 3\n    }\n}\n")) == []


def test_a_block_ended_by_a_nested_brace_warns_at_the_block(lint_text: Callable[..., list[Finding]]) -> None:
    found = lint_text(".:53 {\n    forward . 1.1.1.1 {\n        max_fails 3\n    }\n")
    assert _ours(found) == [("server-block-unclosed", 1, "warning")]
    assert "is never closed" in next(f.message for f in found if f.rule == "server-block-unclosed")
