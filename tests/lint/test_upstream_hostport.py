"""forward-upstream-invalid asks CoreDNS's own plugin/pkg/parse.HostPortOrFile (coredns-gen-helper
`upstreams`), once per lint run, and never lets it read this machine's files.

The cases below are where the Python port it replaced and CoreDNS disagreed (the port left every
TO with a transport other than dns:// or tls:// alone; CoreDNS's HostPortOrFile refuses
`quic://dns.example` before forward looks at the transport), and where the release judged for
is not the one linked (1.14.2 strips the brackets of an address without a port).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from gen.corefile import helper as corefile_helper
from gen.corefile import upstreams
from gen.corefile.loadcheck import try_load
from gen.errors import ToolError
from gen.finding import Finding, Severity
from gen.lint.run import run_lint
from gen.lint.option_releases import HOSTPORT_LINKED
from gen.tools import corefile_binary
from tests.conftest import REPO_ROOT, missing_tool
from tests.lint.test_realworld import _binary

CORE = ".:53 {{\n    forward . {to}\n}}\n"


@pytest.fixture(scope="module", autouse=True)
def helper() -> Path:
    """The real coredns-gen-helper: skipped at a desk without it, a failure under CI=true."""
    found = corefile_binary()
    if found is None:
        missing_tool("coredns-gen-corefile", RuntimeError("pip install -e . builds it into gen/bin"))
    assert found is not None
    return found


def _lint(tmp_path: Path, to: str, version: str) -> list[Finding]:
    path = tmp_path / "Corefile"
    path.write_text(CORE.format(to=to))
    return [f for f in run_lint([path], coredns_version=version) if f.rule == "forward-upstream-invalid"]


REFUSED_BY_HOSTPORT = ["quic://dns.example", "grpc://dns.example", "https://dns.example", "grpc://", "unix://"]


@pytest.mark.parametrize("to", REFUSED_BY_HOSTPORT)
def test_another_transport_with_no_ip_is_refused(tmp_path: Path, to: str) -> None:
    (found,) = _lint(tmp_path, to, "1.13.1")
    assert found.severity is Severity.ERROR
    assert ("invalid address" if to.endswith("://") else f'not an IP address or file: "{to.split("://")[1]}"') in found.message


@pytest.mark.coredns
@pytest.mark.parametrize("version", ["1.13.1", "1.11.3"])
@pytest.mark.parametrize("to", REFUSED_BY_HOSTPORT)
def test_the_real_coredns_refuses_them_too(coredns_bin: Path, version: str, to: str) -> None:
    text = CORE.format(to=to).replace(".:53 {", ".:53 {\n    bind 127.0.0.1")
    loaded = try_load(text, _binary(version, coredns_bin), timeout=10)
    assert not loaded.started
    assert "invalid address" in loaded.output or "not an IP address or file" in loaded.output, loaded.output


@pytest.mark.parametrize(("version", "severity"), [("1.13.1", Severity.ERROR), ("1.14.1", Severity.ERROR),
                                                   ("1.14.2", Severity.INFO), ("1.14.7", Severity.INFO)])
def test_a_bracketed_address_without_port_is_not_judged_where_coredns_strips_the_brackets(
        tmp_path: Path, version: str, severity: Severity) -> None:
    (found,) = _lint(tmp_path, "tls://[2606:4700:4700::1111]", version)
    assert found.severity is severity
    assert "`tls://[2606:4700:4700::1111]:853`" in found.hint


def test_a_bare_word_is_no_file_even_where_lint_runs_beside_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """HostPortOrFile would read `resolv.conf` from its working directory: the helper's is empty,
    as CoreDNS's own has no such file, so a resolv.conf where lint runs changes nothing."""
    (tmp_path / "resolv.conf").write_text("nameserver 1.1.1.1\n")
    monkeypatch.chdir(tmp_path)
    corefile_helper.close()  # the next helper starts here, beside the file
    monkeypatch.setattr(corefile_helper._CLIENT, "judged", {})
    assert upstreams.judge(["resolv.conf"])["resolv.conf"].verdict == "refused"
    (found,) = _lint(tmp_path, "resolv.conf", "1.13.1")
    assert 'not an IP address or file: "resolv.conf"' in found.message


@pytest.mark.parametrize("to", ["/etc/resolv.conf", "./resolv.conf", "../../etc/resolv.conf", "dns://etc/resolv.conf"])
def test_a_file_named_with_a_slash_is_left_to_the_cluster(tmp_path: Path, to: str) -> None:
    assert upstreams.judge([to])[to].verdict == "file"
    assert _lint(tmp_path, to, "1.13.1") == []


def test_every_upstream_of_a_run_is_asked_in_one_round_trip(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One question to the helper process the run already reads its Corefiles with: no second process."""
    asked: list[list[str]] = []
    real = upstreams.judge_upstreams

    def counted(tos: list[str]) -> dict[str, dict[str, str]]:
        asked.append(list(tos))
        return real(tos)

    monkeypatch.setattr(upstreams, "judge_upstreams", counted)
    monkeypatch.setattr(corefile_helper._CLIENT, "judged", {})
    (tmp_path / "Corefile").write_text(
        ".:53 {\n    forward . 10.9.0.1 tls://dns.example\n}\n"
        "a.example {\n    forward . ${UP:=10.9.0.2} 10.9.0.1\n}\n"
        "b.example {\n    forward . <my-dns>\n}\n")
    spawned = []
    popen = subprocess.Popen

    def counting_popen(*args: Any, **kwargs: Any) -> Any:
        spawned.append(args[0])
        return popen(*args, **kwargs)

    corefile_helper.close()
    monkeypatch.setattr(subprocess, "Popen", counting_popen)
    found = run_lint([tmp_path / "Corefile"], coredns_version="1.13.1")
    assert [f.line for f in found if f.rule == "forward-upstream-invalid"] == [2, 8]
    assert asked == [["10.9.0.1", "tls://dns.example", "10.9.0.2", "192.0.2.1", "10.9.0.1", "<my-dns>"]]
    assert [argv[1:] for argv in spawned] == [["corefile"]]


def test_without_the_helper_nothing_is_judged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    corefile_helper.close()
    monkeypatch.setenv("COREDNS_GEN_HELPER", str(tmp_path / "absent"))
    with pytest.raises(ToolError, match="coredns-gen-corefile not found"):
        upstreams.judge(["tls://never-asked-before.example"])
    corefile_helper.close()


def test_a_helper_that_does_not_judge_upstreams_is_a_tool_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An older helper reads the request and answers no upstreams: that is no verdict."""
    old = tmp_path / "coredns-gen-helper"
    old.write_text("#!/bin/sh\nwhile read -r line; do echo '{\"results\": []}'; done\n")
    old.chmod(0o755)
    corefile_helper.close()
    monkeypatch.setenv("COREDNS_GEN_HELPER", str(old))
    with pytest.raises(ToolError, match="did not judge the upstreams"):
        upstreams.judge(["tls://also-never-asked.example"])
    corefile_helper.close()


def test_the_linked_release_is_the_one_lint_names() -> None:
    """gen/lint/option_releases.py HOSTPORT_LINKED names the coredns/coredns module tools/helper/go.mod pins."""
    gomod = (REPO_ROOT / "tools" / "helper" / "go.mod").read_text()
    assert f"\tgithub.com/coredns/coredns v{HOSTPORT_LINKED} " in gomod


@pytest.mark.slow
def test_the_helper_go_tests_pass() -> None:
    """tools/helper/upstream's own tests: the verdicts, and that a `/` asked as `_` takes the same
    branch of HostPortOrFile (the one claim the helper makes beyond calling it)."""
    go = shutil.which("go")
    if go is None:
        missing_tool("go", RuntimeError("the helper's Go tests need the Go toolchain"))
    assert go is not None
    env = {**os.environ, "GOTOOLCHAIN": os.environ.get("GOTOOLCHAIN") or "go1.27.3", "CGO_ENABLED": "0"}
    proc = subprocess.run([go, "test", "-count=1", "./upstream/"], cwd=REPO_ROOT / "tools" / "helper", env=env,
                          capture_output=True, text=True, timeout=900, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
