"""`lint --platform aks` sees a root forward however it is spelled (issue 10: `.:53`, `dns://.`)."""

from __future__ import annotations

from typing import Callable

import pytest

from gen.finding import Finding
from tests.lint.conftest import summary

ROOT = [("override-root-forward", 7, "error")]


@pytest.mark.parametrize(("zone", "expected"), [
    (".", ROOT), (".:53", ROOT), ("dns://.", ROOT), ("dns://.:53", ROOT), ("tls://.:853", ROOT),
    ("corp.example:53", []), ("DNS://.", []),  # CoreDNS's transport prefixes are case-sensitive: a zone, not the root
])
def test_aks_override_root_forward_spelled_otherwise(lint_text: Callable[..., list[Finding]], zone: str,
                                                     expected: list[tuple[str, int, str]]) -> None:
    text = f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: coredns-custom}}\ndata:\n  fwd.override: |\n    # to the campus\n    forward {zone} 1.1.1.1\n"
    assert summary(lint_text(text, name="custom.yaml", platform="aks")) == expected
