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
    assert list(doc) == ["cluster", "platform", "coredns_version", "binary_version", "resolv_conf", "confinement", "passed",
                         "scenarios"]
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


def test_refused_corefile_is_exit_1(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A CoreDNS that will not load the config is a failed scenario (the tool did its job). The
    stand-in is a shell script, and the confined run's jail holds no shell: run unconfined."""
    monkeypatch.setenv("COREDNS_GEN_VERIFY_UNCONFINED", "1")
    fake = tmp_path / "coredns"
    fake.write_text("#!/bin/sh\n[ \"$1\" = -version ] && { echo CoreDNS-1.13.1; exit 0; }\n"
                    "echo 'plugin/forward: refusing this Corefile' >&2; exit 1\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    res = _verify(str(REPO / "examples/talos.yaml"), "--coredns", str(fake))
    assert res.exit_code == 1, res.output
    assert "load" in res.stdout and "refusing this Corefile" in res.stdout


# --coredns-version: verify runs the CoreDNS the cluster runs (or the release asked for), found in the
# cache folder or built there once with `go install` (gen/verify/binary.py). The tests use the releases
# scripts/setup-dev builds (1.13.1 as `coredns`, 1.11.3 as `coredns-1.11.3`) and never the network.
KUBEADM = ("cluster: lab\nplatform: kubeadm\nplatformVersion: v1.35.0\n"
           "zones:\n  - zone: corp.example\n    upstreams: [10.0.0.1]\n")


def _cached(name: str) -> Path:
    from gen.tools import cache_bin
    from tests.conftest import missing_tool

    path = cache_bin() / name
    if not path.is_file():
        missing_tool(f"{path}", RuntimeError("scripts/setup-dev builds it"))
    return path


def _verify_in(root: Path, values: str, *args: str) -> Result:
    (root / "v.yaml").write_text(values)
    return runner.invoke(app, ["verify", str(root / "v.yaml"), "--repo", str(root), *args])


@pytest.mark.coredns
def test_coredns_version_runs_that_release_from_the_cache_folder(tmp_path: Path) -> None:
    _cached("coredns-1.11.3")
    res = _verify_in(tmp_path, KUBEADM, "--coredns-version", "1.11.3")
    assert res.exit_code == 0, res.output
    assert res.stdout.startswith("verify lab (kubeadm, CoreDNS 1.13.1): ran CoreDNS 1.11.3,"), res.stdout


@pytest.mark.coredns
def test_by_default_verify_runs_the_release_the_cluster_runs(tmp_path: Path) -> None:
    """`corednsVersion: 1.13.1` (setup-dev's `coredns`): that binary, found by its -version, and no note."""
    _cached("coredns")
    res = _verify_in(tmp_path, KUBEADM + "corednsVersion: 1.13.1\n", "--format", "json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert (doc["coredns_version"], doc["binary_version"]) == ("1.13.1", "1.13.1")


@pytest.mark.pipeline  # runs `go install` of CoreDNS (offline: it compiles what the module cache holds)
def test_a_release_not_on_the_machine_is_built_and_offline_the_build_fails_naming_the_command(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Empty cache folder, Go with the module proxy switched off: exit 3, the `go install` that failed
    and what to do; nothing is left in the cache folder."""
    import shutil

    go = shutil.which("go")
    if go is None:
        from tests.conftest import missing_tool

        missing_tool("go", RuntimeError("scripts/setup-dev needs it"))
    cache = tmp_path / "bin"
    monkeypatch.setenv("COREDNS_GEN_BIN", str(cache))
    monkeypatch.setenv("PATH", str(Path(str(go)).parent))  # go, and no coredns
    for name, value in (("GOPROXY", "off"), ("GOFLAGS", "-mod=mod"), ("GOTOOLCHAIN", "local"),
                        ("GOMODCACHE", str(tmp_path / "mod")), ("GOPATH", str(tmp_path / "gopath"))):
        monkeypatch.setenv(name, value)
    res = _verify_in(tmp_path, KUBEADM, "--coredns-version", "1.14.6")
    assert res.exit_code == 3, res.output
    assert "verify: building CoreDNS 1.14.6 into" in res.stderr
    assert f"CoreDNS 1.14.6 is not in {cache}, and building it failed: `go install github.com/coredns/coredns@v1.14.6` exited 1" in res.stderr
    assert "GOPROXY=off" in res.stderr  # go's own reason
    assert "build it where the Go module proxy is reachable" in res.stderr
    assert not (cache / "coredns-1.14.6").exists() and [p.name for p in cache.iterdir()] == []


def test_without_go_the_missing_release_is_exit_3_saying_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COREDNS_GEN_BIN", str(tmp_path / "bin"))
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    res = _verify_in(tmp_path, KUBEADM, "--coredns-version", "1.14.6")
    assert res.exit_code == 3, res.output
    assert f"CoreDNS 1.14.6 is not in {tmp_path / 'bin'}, and go, which builds it there, is not on PATH" in res.stderr


def test_a_coredns_version_that_is_not_a_release_is_exit_2(tmp_path: Path) -> None:
    res = _verify_in(tmp_path, KUBEADM, "--coredns-version", "latest")
    assert res.exit_code == 2 and "'latest' is not a CoreDNS release" in res.stderr


@pytest.mark.coredns
def test_a_binary_of_another_release_than_asked_is_exit_3(tmp_path: Path, coredns_bin: Path) -> None:
    res = _verify_in(tmp_path, KUBEADM, "--coredns", str(coredns_bin), "--coredns-version", "1.11.3")
    assert res.exit_code == 3 and "not the 1.11.3 --coredns-version asks for" in res.stderr, res.output
