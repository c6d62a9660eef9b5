"""`coredns-gen lint` exit codes (0 clean/warnings, 1 error finding or --strict warning, 2 bad input) and formats."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gen.cli import app

runner = CliRunner()
CLEAN = ".:53 {\n    errors\n    forward . /etc/resolv.conf\n}\n"
ERROR = ".:53 {\n    forward . 10.0.0.1\n    forward . /etc/resolv.conf\n}\n"
WARNING = ".:53 {\n    forward . 10.0.0.1 10.0.0.2 {\n        failover NOERROR\n    }\n}\n"  # at 1.13.1


def _file(tmp_path: Path, text: str, name: str = "Corefile") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_clean_exits_0_and_prints_nothing(tmp_path: Path) -> None:
    result = runner.invoke(app, ["lint", _file(tmp_path, CLEAN)])
    assert (result.exit_code, result.stdout) == (0, "")
    assert result.stderr == "lint: judged for CoreDNS 1.14.7 (newest known; pass --coredns-version)\n"


def test_the_assumed_version_follows_the_platform_release(tmp_path: Path) -> None:
    result = runner.invoke(app, ["lint", _file(tmp_path, CLEAN), "--platform", "k3s", "--platform-version", "v1.34.9+k3s1"])
    assert result.stderr == "lint: judged for CoreDNS 1.14.4 (k3s 1.34.9's default), platform k3s 1.34.9\n"


def test_error_finding_exits_1(tmp_path: Path) -> None:
    path = _file(tmp_path, ERROR)
    result = runner.invoke(app, ["lint", path])
    assert result.exit_code == 1
    assert result.stdout.startswith(f"{path}:3:5: error: this `forward .` is never reached")
    assert "(forward-unreachable)\n  fix: add `next SERVFAIL REFUSED`" in result.stdout


def test_warning_exits_0_unless_strict(tmp_path: Path) -> None:
    path = _file(tmp_path, WARNING)
    result = runner.invoke(app, ["lint", path, "--coredns-version", "1.13.1"])
    assert result.exit_code == 0 and ": warning: " in result.stdout
    strict = runner.invoke(app, ["lint", path, "--coredns-version", "1.13.1", "--strict"])
    assert strict.exit_code == 1
    assert runner.invoke(app, ["lint", path, "--coredns-version", "1.13.2"]).exit_code == 1


@pytest.mark.parametrize(("args", "message"), [
    (["--platform", "bsd"], "--platform: unknown platform 'bsd'"),
    (["--platform", "gke"], "--platform: gke is not supported: GKE clusters resolve with kube-dns or Cloud DNS"),
    (["--coredns-version", "latest"], "--coredns-version: `latest` is not a version"),
    (["--format", "xml"], "--format: unknown format `xml`"),
], ids=["platform", "refused-platform", "version", "format"])
def test_bad_options_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    result = runner.invoke(app, ["lint", _file(tmp_path, CLEAN), *args])
    assert result.exit_code == 2 and message in result.stderr


def test_malformed_corefile_exits_2_with_position(tmp_path: Path) -> None:
    path = _file(tmp_path, ".:53 {\n    errors\n")
    result = runner.invoke(app, ["lint", path])
    assert result.exit_code == 2
    assert result.stderr.strip() == (f"{path}:2: corefile: CoreDNS refuses it: Syntax error: Unexpected token 'errors', expecting '}}' "
                                     "— fix: close every '{' with a '}'")


def test_missing_file_exits_2(tmp_path: Path) -> None:
    result = runner.invoke(app, ["lint", str(tmp_path / "nope")])
    assert result.exit_code == 2 and "does not exist" in result.stderr


def test_json_github_sarif(tmp_path: Path) -> None:
    path = _file(tmp_path, ERROR)
    data = json.loads(runner.invoke(app, ["lint", path, "--format", "json"]).stdout)
    assert [(d["rule"], d["line"], d["column"], d["severity"]) for d in data] == [("forward-unreachable", 3, 5, "error")]
    github = runner.invoke(app, ["lint", path, "--format", "github"]).stdout
    assert github.startswith(f"::error file={path},line=3,col=5,title=forward-unreachable::")
    sarif = json.loads(runner.invoke(app, ["lint", path, "--format", "sarif"]).stdout)
    rules = sarif["runs"][0]["tool"]["driver"]["rules"]
    assert any(r["id"] == "forward-unreachable" and "never runs" in r["shortDescription"]["text"] for r in rules)
    assert sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"] == {"startLine": 3, "startColumn": 5}


def test_several_files_and_deterministic_order(tmp_path: Path) -> None:
    a, b = _file(tmp_path, ERROR, "b.Corefile"), _file(tmp_path, ".:53 {\n    whoam\n}\n", "a.Corefile")
    first = runner.invoke(app, ["lint", a, b]).stdout
    assert first == runner.invoke(app, ["lint", b, a]).stdout
    assert first.index("a.Corefile") < first.index("b.Corefile")


def test_a_version_gated_finding_for_a_platform_release_does_not_crash(tmp_path: Path) -> None:
    """`next` on Talos 1.8 (the README's example): a finding naming the platform's CoreDNS, not KeyError (exit 4)."""
    path = _file(tmp_path, ".:53 {\n    forward . 10.0.0.1 10.0.0.2 {\n        next SERVFAIL\n    }\n}\n")
    result = runner.invoke(app, ["lint", path, "--platform", "talos", "--platform-version", "v1.8.0"])
    assert result.exit_code == 1, result.output
    assert "CoreDNS 1.11.3 (talos 1.8.0's CoreDNS) refuses it" in result.stdout
    assert "(forward-next-unsupported)" in result.stdout


@pytest.mark.parametrize("zone", ["local", "cluster.local", "arpa", "10.in-addr.arpa"])
def test_a_block_that_takes_cluster_dns_is_an_error(zone: str, tmp_path: Path) -> None:
    """Measured in CoreDNS 1.13.1: such a block answered kube-dns.kube-system.svc.cluster.local (or reverse names)."""
    text = (".:53 {\n    kubernetes cluster.local in-addr.arpa ip6.arpa\n    forward . 10.0.0.1\n}\n"
            f"{zone}:53 {{\n    forward . 10.9.9.9\n}}\n")
    result = runner.invoke(app, ["lint", _file(tmp_path, text)])
    assert result.exit_code == 1, result.output
    assert "(zone-shadows-kubernetes)" in result.stdout and f"`{zone}:53` takes" in result.stdout
