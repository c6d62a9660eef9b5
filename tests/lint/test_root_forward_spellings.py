"""`lint --platform aks` sees a root forward however it is spelled (issue 10: `.:53`, `dns://.`)."""

from __future__ import annotations

from typing import Callable

import pytest

from gen.finding import Finding
from tests.lint.conftest import summary


@pytest.mark.parametrize("zone", [".", ".:53", "dns://.", "dns://.:53", "tls://.:853"])
def test_aks_override_root_forward_spelled_otherwise(lint_text: Callable[..., list[Finding]], zone: str) -> None:
    text = f"""
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: coredns-custom
    data:
      fwd.override: |
        forward {zone} 1.1.1.1
    """
    assert summary(lint_text(text, name="custom.yaml", platform="aks")) == [("override-root-forward", 7, "error")]


def test_a_zone_forward_is_no_root_forward(lint_text: Callable[..., list[Finding]]) -> None:
    text = """
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: coredns-custom
    data:
      fwd.override: |
        forward corp.example:53 10.0.0.1
    """
    assert summary(lint_text(text, name="custom.yaml", platform="aks")) == []
