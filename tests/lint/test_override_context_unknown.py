"""override-context-unknown: an override judged for a k3s release whose own Corefile lint lacks.

A k3s release past every table (v1.99.0) has no stock Corefile lint knows, so a `*.override` key
cannot be judged in place there; for a release the tables hold, the rule says nothing (and the
override is judged in place: forward-unreachable on v1.33.4, whose k3s imports overrides last).
"""

from __future__ import annotations

from typing import Callable

from gen.finding import Finding

CUSTOM = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: coredns-custom
  namespace: kube-system
data:
  corp.override: |
    forward corp.example 10.0.0.9
"""


def _ours(findings: list[Finding]) -> list[tuple[str, int, str]]:
    return [(f.rule, f.line, f.severity.value) for f in findings if f.rule == "override-context-unknown"]


def test_an_override_on_a_release_the_tables_hold_is_judged(lint_text: Callable[..., list[Finding]]) -> None:
    assert _ours(lint_text(CUSTOM, name="custom.yaml", platform="k3s", platform_version="v1.34.9+k3s1")) == []


def test_an_override_on_a_release_without_its_corefile_is_an_error_at_its_key(lint_text: Callable[..., list[Finding]]) -> None:
    assert _ours(lint_text(CUSTOM, name="custom.yaml", platform="k3s", platform_version="v1.33.4+k3s1")) == []
    found = lint_text(CUSTOM, name="custom.yaml", platform="k3s", platform_version="v1.99.0+k3s1")
    assert _ours(found) == [("override-context-unknown", 7, "error")]
    (finding,) = [f for f in found if f.rule == "override-context-unknown"]
    assert "corp.override cannot be judged" in finding.message
