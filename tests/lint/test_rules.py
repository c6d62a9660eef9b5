"""Every Corefile rule, PASS and FAIL, asserting (rule, line, severity) of each finding."""

from __future__ import annotations

from typing import Callable

import pytest

from gen.finding import Finding
from tests.lint.conftest import summary

FAILOVER_PAIR = """
.:53 {
    forward . 10.0.0.1 /etc/resolv.conf {
        policy sequential
        next SERVFAIL REFUSED
    }
    forward . /etc/resolv.conf
}
"""

CASES: list[tuple[str, str, dict[str, str], list[tuple[str, int, str]]]] = [
    # forward-next-unsupported
    ("next-pass-1.11.4", FAILOVER_PAIR, {"coredns_version": "1.11.4"}, []),
    ("next-fail-1.11.3", FAILOVER_PAIR, {"coredns_version": "1.11.3"},
     [("forward-next-unsupported", 4, "error")]),
    # forward-failover-unsupported
    ("failover-pass-1.13.0", ".:53 {\n    forward . 10.0.0.1 10.0.0.2 {\n        failover SERVFAIL\n    }\n}\n",
     {"coredns_version": "1.13.0"}, [("forward-failover-loops", 3, "warning")]),
    ("failover-fail-1.12.4", ".:53 {\n    forward . 10.0.0.1 10.0.0.2 {\n        failover SERVFAIL\n    }\n}\n",
     {"coredns_version": "1.12.4"}, [("forward-failover-unsupported", 3, "error")]),
    # forward-failover-noerror
    ("noerror-pass", ".:53 {\n    forward . 10.0.0.1 10.0.0.2 {\n        failover SERVFAIL REFUSED\n    }\n}\n",
     {"coredns_version": "1.13.2"}, [("forward-failover-loops", 3, "warning")]),
    ("noerror-fail-1.13.2", ".:53 {\n    forward . 10.0.0.1 10.0.0.2 {\n        failover SERVFAIL NOERROR\n    }\n}\n",
     {"coredns_version": "1.13.2"}, [("forward-failover-loops", 3, "warning"), ("forward-failover-noerror", 3, "error")]),
    ("noerror-warn-1.13.1", ".:53 {\n    forward . 10.0.0.1 10.0.0.2 {\n        failover noerror\n    }\n}\n",
     {"coredns_version": "1.13.1"}, [("forward-failover-loops", 3, "warning"), ("forward-failover-noerror", 3, "warning")]),
    # forward-multiple-unsupported
    ("multiple-pass-1.9.4", ".:53 {\n    forward example.org 10.0.0.1\n    forward . /etc/resolv.conf\n}\n",
     {"coredns_version": "1.9.4"}, []),
    ("multiple-fail-1.9.3", ".:53 {\n    forward example.org 10.0.0.1\n    forward . /etc/resolv.conf\n}\n",
     {"coredns_version": "1.9.3"}, [("forward-multiple-unsupported", 3, "error")]),
    # forward-option-unsupported
    ("option-pass", ".:53 {\n    forward . 10.0.0.1 {\n        max_connect_attempts 3\n    }\n}\n",
     {"coredns_version": "1.13.2"}, [("plugin-setup-refused", 3, "info")]),  # 1.13.1's setup, said not judged
    ("option-fail-too-old", ".:53 {\n    forward . 10.0.0.1 {\n        max_connect_attempts 3\n    }\n}\n",
     {"coredns_version": "1.13.1"}, [("forward-option-unsupported", 3, "error")]),
    ("option-fail-unknown", ".:53 {\n    forward . 10.0.0.1 {\n        bogus 1\n    }\n}\n", {},
     [("forward-option-unsupported", 3, "error")]),
    ("option-fail-policy-value", ".:53 {\n    forward . 10.0.0.1 {\n        policy sequential\n    }\n}\n",
     {"coredns_version": "1.1.1"}, [("forward-option-unsupported", 3, "error")]),
    ("option-fail-max-concurrent", ".:53 {\n    forward . 10.0.0.1 {\n        max_concurrent 1000\n    }\n}\n",
     {"coredns_version": "1.6.7"}, [("forward-option-unsupported", 3, "error")]),
    # forward-next-ignored
    ("next-ignored-pass", FAILOVER_PAIR, {}, []),
    ("next-ignored-fail", ".:53 {\n    forward . 10.0.0.1 {\n        next SERVFAIL\n    }\n    cache 30\n}\n", {},
     [("forward-next-ignored", 3, "error")]),
    # forward-unreachable
    ("unreachable-pass-zone-first", ".:53 {\n    forward corp.example 10.0.0.1\n    forward . /etc/resolv.conf\n}\n", {}, []),
    ("unreachable-fail", ".:53 {\n    forward . 10.0.0.1\n    forward . /etc/resolv.conf\n}\n", {},
     [("forward-unreachable", 3, "error")]),
    ("unreachable-fail-subzone", ".:53 {\n    forward . 10.0.0.1\n    forward corp.example 10.0.0.2\n}\n", {},
     [("forward-unreachable", 3, "error")]),
    ("unreachable-pass-except", ".:53 {\n    forward . 10.0.0.1 {\n        except corp.example\n    }\n"
     "    forward corp.example 10.0.0.2\n}\n", {}, []),
    # import-server-in-block
    ("import-server-pass", ".:53 {\n    whoami\n}\nimport custom/*.server\n", {}, []),
    ("import-server-fail", ".:53 {\n    whoami\n    import custom/*.server\n}\n", {},
     [("import-server-in-block", 3, "error")]),
    # unknown-plugin
    ("unknown-pass", ".:53 {\n    errors\n    health\n    forward . /etc/resolv.conf\n}\n", {}, []),
    ("unknown-fail-typo", ".:53 {\n    errors\n    forwrd . 1.1.1.1\n}\n", {}, [("unknown-plugin", 3, "error")]),
    ("unknown-fail-too-new", ".:53 {\n    nomad\n}\n", {"coredns_version": "1.12.4"}, [("unknown-plugin", 2, "error")]),
    ("unknown-pass-new-enough", ".:53 {\n    nomad\n}\n", {"coredns_version": "1.13.0"}, []),
    ("unknown-fail-removed", ".:53 {\n    proxy . 1.1.1.1\n}\n", {}, [("unknown-plugin", 2, "error")]),
    ("unknown-pass-placeholder", ".:53 {\n    {$PLUGIN}\n}\n", {}, []),
    # duplicate-server-address
    ("duplicate-pass", ".:53 {\n    whoami\n}\ncorp.example:53 {\n    whoami\n}\n", {}, []),
    ("duplicate-fail", ".:53 {\n    whoami\n}\ndns://.:53 {\n    log\n}\n", {},
     [("duplicate-server-address", 4, "error")]),
    ("duplicate-fail-trailing-dot", "a.org b.org:53 {\n    whoami\n}\nb.org.:53 {\n    log\n}\n", {},
     [("duplicate-server-address", 4, "error")]),
    ("duplicate-pass-case-and-port", "a.org {\n    whoami\n}\nA.org {\n    log\n}\na.org:54 {\n    log\n}\n", {}, []),
    ("duplicate-pass-bind", ".:53 {\n    bind 127.0.0.1\n}\n.:53 {\n    bind 127.0.0.2\n}\n", {}, []),
    ("duplicate-pass-view", ".:53 {\n    view a {\n        expr true\n    }\n}\n.:53 {\n    whoami\n}\n", {}, []),
    # import-not-found
    ("import-not-found-pass", "(base) {\n    errors\n}\n.:53 {\n    import base\n    import custom/*.override\n}\n", {}, []),
    ("import-not-found-typo", "(base) {\n    errors\n}\n.:53 {\n    import bsae\n}\n", {},
     [("import-not-found", 5, "error")]),
    ("import-not-found-defined-later", ".:53 {\n    import base\n}\n(base) {\n    errors\n}\n", {},
     [("import-not-found", 2, "error")]),
    ("snippet-expanded-pass", "(base) {\n    errors\n}\n.:53 {\n    import base\n}\n", {}, []),
    ("snippet-expanded-fail", "(base) {\n    erors\n}\n.:53 {\n    import base\n}\n", {},
     [("unknown-plugin", 2, "error")]),
]


@pytest.mark.parametrize(("text", "options", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_rule(lint_text: Callable[..., list[Finding]], text: str, options: dict[str, str],
              expected: list[tuple[str, int, str]]) -> None:
    assert summary(lint_text(text, **options)) == expected


def test_finding_text_names_line_rule_and_fix(lint_text: Callable[..., list[Finding]]) -> None:
    (finding,) = lint_text(".:53 {\n    forward . 10.0.0.1\n    forward . /etc/resolv.conf\n}\n")
    assert finding.col == 5
    assert "never reached" in finding.message and "line 2" in finding.message
    assert "next SERVFAIL REFUSED" in finding.hint


def test_default_version_is_newest_and_said(lint_text: Callable[..., list[Finding]]) -> None:
    (finding,) = lint_text(".:53 {\n    forward . 1.1.1.1 1.0.0.1 {\n        failover NOERROR\n    }\n}\n")
    assert "1.14.7" in finding.message and "--coredns-version" in finding.message


# --- platform context, custom builds, rewrite arguments, failover loop --------------
K3S_HOSTS_OVERRIDE = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: coredns-custom
  namespace: kube-system
data:
  hosts.override: |
    hosts {
      10.0.0.10 db.corp.example
      fallthrough
    }
"""


def test_a_hosts_override_next_to_k3s_own_hosts_is_refused_in_platform_context(tmp_path) -> None:
    from gen.lint.run import run_lint

    (tmp_path / "custom.yaml").write_text(K3S_HOSTS_OVERRIDE)
    alone = run_lint([tmp_path / "custom.yaml"], coredns_version="1.13.1")
    assert "plugin-once-per-block" not in {f.rule for f in alone}  # judged alone: no neighbour to clash with
    found = run_lint([tmp_path / "custom.yaml"], platform="k3s", platform_version="v1.34.9+k3s1")
    assert [(f.rule, f.line, f.severity.value) for f in found] == [("plugin-once-per-block", 8, "error")]
    assert "once per Server Block" in found[0].message
    assert run_lint([tmp_path / "custom.yaml"], platform="aks") == []  # AKS's block has no hosts


def test_custom_build_plugins_are_declared_not_unknown(tmp_path) -> None:
    from gen.lint.run import run_lint

    (tmp_path / "Corefile").write_text("corp.example:53 {\n    k8s_gateway corp.example\n}\n")
    (finding,) = run_lint([tmp_path / "Corefile"])
    assert finding.rule == "unknown-plugin" and "--plugin k8s_gateway" in finding.hint
    assert run_lint([tmp_path / "Corefile"], plugins=["k8s_gateway"]) == []


@pytest.mark.parametrize(("rule", "refused"), [
    ("name exact a.example b.example c.example", "invalid arguments for exact rule"),
    ("name a.example b.example c.example d.example", "invalid arguments for a.example rule"),
    ("name a.example b.example c.example d.example e.example", "exceeded the number of arguments for a non-answer rule"),
    ("class CH IN extra", "class rules must have exactly two arguments"),
    ("name fancy a.example b.example", "name rule supports only exact, prefix, suffix, substring, and regex"),
    ("answer name a b", "response rewrites must begin with a name rule"),
    ("name regex (.*)\\.corp {1}.svc answer auto", None),
    ("stop name suffix .corp .svc answer name (.*)\\.svc {1}.corp", None),
    ("name a.example b.example", None),
])
def test_rewrite_arguments_follow_the_rewrite_setup(rule: str, refused: str | None) -> None:
    """Each message is the one CoreDNS 1.13.1 prints for that rule (checked with the binary)."""
    from gen.lint.rules.rewrite_arguments import problem

    found = problem(rule.split())
    assert (found is None) if refused is None else (found is not None and refused in found)


@pytest.mark.parametrize(("version", "warned"), [("1.13.0", True), ("1.14.6", True), ("1.14.7", False), ("1.12.4", False)])
def test_failover_loops_before_1_14_7(tmp_path, version: str, warned: bool) -> None:
    from gen.lint.run import run_lint

    (tmp_path / "Corefile").write_text(".:53 {\n    forward . 10.0.0.1 10.0.0.2 {\n        failover SERVFAIL\n    }\n}\n")
    rules = {f.rule for f in run_lint([tmp_path / "Corefile"], coredns_version=version)}
    assert ("forward-failover-loops" in rules) is warned
