"""Lint and the real CoreDNS agree: what lint says CoreDNS refuses, the binary refuses; the fix loads.

The binary is CoreDNS v1.13.1 (fixture `coredns_bin`), so lint runs with --coredns-version
1.13.1 here. Refusals that only older or newer releases show (`next` before 1.11.4, `failover`
before 1.13.0, two forwards before 1.9.4, `failover NOERROR` from 1.13.2) cannot be proved with
this binary; for those we prove the other half: 1.13.1 loads the file and lint, targeting 1.13.1,
reports no refusal. Each Corefile is adapted for a loopback run (gen.corefile.loadcheck).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from gen.corefile import parse_corefile
from gen.corefile.loadcheck import LoadResult, adapt_for_loopback, free_port, try_load, write_resolv_conf
from gen.finding import Finding, Severity
from gen.lint.run import RULES, run_lint
from gen.lint.reader import load_inputs
from gen.lint.option_releases import TESTED_BINARY
from tests.corefile.test_parser import MALFORMED

pytestmark = pytest.mark.coredns
REPO = Path(__file__).resolve().parents[2]
REFUSING = {r.ID for r in RULES if r.REFUSES}
SERVER_FILE = {"custom/corp.server": "corp.example:{$CORP_PORT} {\n    bind 127.0.0.1\n    whoami\n}\n"}


def _load(binary: Path, text: str, files: dict[str, str] | None = None) -> LoadResult:
    with tempfile.TemporaryDirectory() as tmp:
        resolv = write_resolv_conf(Path(tmp))
        adapted = adapt_for_loopback(parse_corefile(text, filename="Corefile"), resolv).render()
        return try_load(adapted, binary, files=files, env={"CORP_PORT": str(free_port())})


def _lint_refuses(tmp_path: Path, text: str) -> list[Finding]:
    path = tmp_path / "Corefile"
    path.write_text(text)
    return [f for f in run_lint([path], coredns_version=str(TESTED_BINARY))
            if f.rule in REFUSING and f.severity is Severity.ERROR]


# (id, Corefile, files beside it, does CoreDNS 1.13.1 load it?)
CASES: list[tuple[str, str, dict[str, str], bool]] = [
    ("unknown-plugin-fail", ".:53 {\n    forwrd . 10.0.0.1\n}\n", {}, False),
    ("unknown-plugin-fixed", ".:53 {\n    forward . 10.0.0.1\n}\n", {}, True),
    ("removed-plugin-fail", ".:53 {\n    proxy . 10.0.0.1\n}\n", {}, False),
    ("option-unknown-fail", ".:53 {\n    forward . 10.0.0.1 {\n        bogus\n    }\n}\n", {}, False),
    ("option-too-new-fail", ".:53 {\n    forward . 10.0.0.1 {\n        max_connect_attempts 3\n    }\n}\n", {}, False),
    ("option-fixed", ".:53 {\n    forward . 10.0.0.1 {\n        max_fails 3\n    }\n}\n", {}, True),
    ("import-server-in-block-fail", ".:53 {\n    whoami\n    import custom/*.server\n}\n", SERVER_FILE, False),
    ("import-server-top-level-fixed", ".:53 {\n    whoami\n}\nimport custom/*.server\n", SERVER_FILE, True),
    ("duplicate-address-fail", ".:53 {\n    whoami\n}\ndns://.:53 {\n    log\n}\n", {}, False),
    ("duplicate-address-fixed", ".:53 {\n    whoami\n}\ncorp.example:53 {\n    log\n}\n", {}, True),
    ("import-not-found-fail", "(base) {\n    errors\n}\n.:53 {\n    import bsae\n}\n", {}, False),
    ("import-snippet-defined-later-fail", ".:53 {\n    import base\n}\n(base) {\n    errors\n}\n", {}, False),
    ("import-snippet-fixed", "(base) {\n    errors\n}\n.:53 {\n    import base\n}\n", {}, True),
    ("next-loads-on-1.13.1", ".:53 {\n    forward . 10.0.0.1 {\n        next SERVFAIL REFUSED\n    }\n"
     "    forward . /etc/resolv.conf\n}\n", {}, True),
    ("failover-loads-on-1.13.1", ".:53 {\n    forward . 10.0.0.1 10.0.0.2 {\n        failover SERVFAIL\n    }\n}\n", {}, True),
    ("failover-noerror-loads-on-1.13.1", ".:53 {\n    forward . 10.0.0.1 10.0.0.2 {\n        failover NOERROR\n    }\n}\n",
     {}, True),
    ("view-loads-on-1.13.1", ".:53 {\n    whoami\n    view all {\n        expr true\n    }\n}\n", {}, True),
]


@pytest.mark.parametrize(("text", "files", "loads"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_lint_agrees_with_coredns(coredns_bin: Path, tmp_path: Path, text: str, files: dict[str, str],
                                  loads: bool) -> None:
    result = _load(coredns_bin, text, files)
    assert result.started is loads, result.output
    refusals = _lint_refuses(tmp_path, text)
    assert (not refusals) is loads, refusals


def test_refusal_reasons_match_coredns(coredns_bin: Path) -> None:
    """The message lint quotes is what CoreDNS prints."""
    assert "Unknown directive 'forwrd'" in _load(coredns_bin, CASES[0][1]).output
    assert "unknown property 'bogus'" in _load(coredns_bin, CASES[3][1]).output
    assert "unknown property 'max_connect_attempts'" in _load(coredns_bin, CASES[4][1]).output
    assert "Unknown directive 'corp.example:" in _load(coredns_bin, CASES[6][1], SERVER_FILE).output
    assert "- it is already defined" in _load(coredns_bin, CASES[8][1]).output
    assert "File to import not found: bsae" in _load(coredns_bin, CASES[10][1]).output


def test_empty_server_glob_inside_a_block_still_loads(coredns_bin: Path) -> None:
    """Why import-server-in-block is an error even before the first fragment exists."""
    assert _load(coredns_bin, ".:53 {\n    whoami\n    import custom/*.server\n}\n").started


def test_semantic_rules_are_not_refusals(coredns_bin: Path, tmp_path: Path) -> None:
    """forward-next-ignored and forward-unreachable: CoreDNS loads these; lint reports them as errors."""
    for text, rule in [(".:53 {\n    forward . 10.0.0.1 {\n        next SERVFAIL\n    }\n}\n", "forward-next-ignored"),
                       (".:53 {\n    forward . 10.0.0.1\n    forward . /etc/resolv.conf\n}\n", "forward-unreachable")]:
        assert _load(coredns_bin, text).started
        path = tmp_path / "Corefile"
        path.write_text(text)
        assert [f.rule for f in run_lint([path])] == [rule]


STOCK = sorted((REPO / "gen" / "data").glob("*/*.Corefile"))
K3S = sorted((REPO / "gen" / "data" / "k3s").glob("*.yaml"))


@pytest.mark.parametrize("path", STOCK + K3S, ids=lambda p: p.name)
def test_stock_corefiles_load(coredns_bin: Path, path: Path) -> None:
    text = path.read_text()
    if path.suffix == ".yaml":
        text = load_inputs([path]).configmaps[0].data["Corefile"].text
    result = _load(coredns_bin, text)
    assert result.started, result.output


# Our parser is stricter than CoreDNS's on these: CoreDNS starts, silently dropping or
# misreading part of the file (a glued `example.com{` serves the zone `example.com{.`).
STRICTER = {"}\n", "{\n  whoami\n}\n", ".:53\nwhoami\n}\n", "example.com{\n  forward . 1.1.1.1\n}\n"}


@pytest.mark.parametrize(("text", "message"), MALFORMED, ids=[m[1].split(": ", 2)[2] for m in MALFORMED])
def test_malformed_corefiles_are_refused_by_coredns_too(coredns_bin: Path, text: str, message: str) -> None:
    port = free_port()
    result = try_load(text.replace(".:53", f".:{port}").replace("a.org,", f"a.org:{port},"), coredns_bin, timeout=10)
    assert result.started is (text in STRICTER), result.output


def test_stricter_cases_are_real_cases() -> None:
    assert STRICTER <= {text for text, _ in MALFORMED}
