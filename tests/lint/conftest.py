"""Helpers for lint tests: write inline inputs, run lint, summarise findings as (rule, line, severity)."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent
from typing import Callable

import pytest

from gen.finding import Finding
from gen.lint.run import run_lint

Summary = list[tuple[str, int, str]]


def summary(findings: list[Finding]) -> Summary:
    return [(f.rule, f.line, f.severity.value) for f in findings]


@pytest.fixture
def lint_text(tmp_path: Path) -> Callable[..., list[Finding]]:
    """lint_text(text, name="Corefile", **run_lint options) -> findings for that one file."""

    def run(text: str, name: str = "Corefile", **options: str) -> list[Finding]:
        path = tmp_path / name
        path.write_text(dedent(text).lstrip("\n"), encoding="utf-8")
        return run_lint([path], **options)

    return run
