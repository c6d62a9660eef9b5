"""`coredns-gen verify` exit codes and output formats (the contract CI relies on)."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from gen.cli import app

REPO = Path(__file__).resolve().parents[2]
runner = CliRunner()


def _verify(*args: str) -> Result:
    return runner.invoke(app, ["verify", *args, "--repo", str(REPO)])


@pytest.mark.coredns
def test_json_is_stable_and_exit_0(coredns_bin: Path) -> None:
    res = _verify(str(REPO / "examples/aks.yaml"), "--coredns", str(coredns_bin), "--format", "json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert list(doc) == ["cluster", "platform", "coredns_version", "binary_version", "resolv_conf", "passed", "scenarios"]
    assert (doc["cluster"], doc["platform"], doc["passed"]) == ("aks-westeu", "aks", True)
    first = doc["scenarios"][0]
    assert list(first) == ["zone", "scenario", "expectation", "passed", "detail", "queries"]
    assert list(first["queries"][0]) == ["name", "transport", "rcode", "answered_by", "reached", "latency_ms", "ok"]
    assert str(REPO) not in res.stdout and "/tmp" not in res.stdout


def test_missing_binary_is_exit_3_with_install_hint(tmp_path: Path) -> None:
    res = _verify(str(REPO / "examples/talos.yaml"), "--coredns", str(tmp_path / "nope"))
    assert res.exit_code == 3
    assert "go install github.com/coredns/coredns@v1.13.1" in res.stderr


def test_bad_values_is_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("cluster: x\nplatform: nope\n")
    res = _verify(str(bad))
    assert res.exit_code == 2 and "bad.yaml" in res.stderr


def test_unknown_format_is_exit_2() -> None:
    res = _verify(str(REPO / "examples/talos.yaml"), "--format", "xml")
    assert res.exit_code == 2 and "--format" in res.stderr


def test_refused_corefile_is_exit_1(tmp_path: Path) -> None:
    """A CoreDNS that will not load the config is a failed scenario (the tool did its job)."""
    fake = tmp_path / "coredns"
    fake.write_text("#!/bin/sh\n[ \"$1\" = -version ] && { echo CoreDNS-1.13.1; exit 0; }\n"
                    "echo 'plugin/forward: refusing this Corefile' >&2; exit 1\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    res = _verify(str(REPO / "examples/talos.yaml"), "--coredns", str(fake))
    assert res.exit_code == 1, res.output
    assert "load" in res.stdout and "refusing this Corefile" in res.stdout
