"""The rule registry follows STYLE.md: unique kebab-case ids, module named after the id, PASS/FAIL docs."""

from __future__ import annotations

import re
import sys

from gen.finding import Severity
from gen.lint.run import RULES, rule_summaries


def test_ids_unique_and_kebab_case() -> None:
    ids = [r.ID for r in RULES]
    assert len(ids) == len(set(ids))
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", i) for i in ids)


def test_module_is_snake_case_of_id_and_documents_pass_fail() -> None:
    for rule in RULES:
        module = sys.modules[rule.__name__]  # type: ignore[attr-defined]
        assert module.__name__.rsplit(".", 1)[1] == rule.ID.replace("-", "_")
        doc = rule.__doc__ or ""
        assert "PASS" in doc and "FAIL" in doc, rule.ID
        assert isinstance(rule.SEVERITY, Severity)
        assert isinstance(rule.REFUSES, bool), rule.ID


def test_summaries_cover_every_rule() -> None:
    assert set(rule_summaries()) == {r.ID for r in RULES}


def test_docs_table_lists_every_rule() -> None:
    from pathlib import Path

    docs = (Path(__file__).resolve().parents[2] / "docs" / "lint.md").read_text()
    assert all(f"| `{r.ID}` |" in docs for r in RULES)
