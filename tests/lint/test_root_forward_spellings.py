"""lint sees a root forward however it is spelled (`.:53`, `dns://.`, `tls://.:853`).

Alone (no --platform), an override's root forward is a warning that depends on the platform;
with `--platform aks` the override is judged inside AKS's own Corefile, where AKS's
root forward comes first: any forward the override adds is never reached, root or zone.
"""

from __future__ import annotations

from typing import Callable

import pytest

from gen.finding import Finding
from tests.lint.conftest import summary

ROOT = [("override-root-forward", 7, "warning")]
SPELLINGS = [
    (".", ROOT), (".:53", ROOT), ("dns://.", ROOT), ("dns://.:53", ROOT), ("tls://.:853", ROOT),
    ("corp.example:53", []), ("DNS://.", []),  # CoreDNS's transport prefixes are case-sensitive: a zone, not the root
]


def _override(zone: str) -> str:
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: coredns-custom}}\ndata:\n  fwd.override: |\n    # to the campus\n    forward {zone} 1.1.1.1\n"


@pytest.mark.parametrize(("zone", "expected"), SPELLINGS)
def test_override_root_forward_spelled_otherwise(lint_text: Callable[..., list[Finding]], zone: str,
                                                 expected: list[tuple[str, int, str]]) -> None:
    assert summary(lint_text(_override(zone), name="custom.yaml")) == expected


@pytest.mark.parametrize("zone", [z for z, _ in SPELLINGS])
def test_on_aks_every_override_forward_is_unreachable(lint_text: Callable[..., list[Finding]], zone: str) -> None:
    assert summary(lint_text(_override(zone), name="custom.yaml", platform="aks")) == [("forward-unreachable", 7, "error")]
