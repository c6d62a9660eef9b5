"""verify runs a Corefile from the repository under review (guard --verify): hostile input. The
real CoreDNS must open only its sandbox and reach only loopback (gen/verify/contained.py), and the
report says how it was confined; where namespaces are refused the run is refused with the fix.

Each attack is a Corefile a pull request could carry; every one of them reached the machine before
(the zone file outside the sandbox answered the scenarios' queries; dnstap dialled the test's
listener on the machine's loopback).
"""

from __future__ import annotations

import json
import socket
import threading
from pathlib import Path

import pytest

from gen.errors import ToolError
from gen import confine
from gen.verify.contained import run_contained
from gen.verify.output import format_verify
from gen.verify.run import verify_config
from gen.verify.sandbox import VerifyConfig

pytestmark = pytest.mark.coredns

LEAKED = "10.9.9.9"
ZONE = "coredns-gen-verify.test."  # the names the scenarios ask (gen/verify/scenarios.py)


def _zone_outside(tmp_path: Path) -> Path:
    """A zone file outside every sandbox: a wildcard answering every name the scenarios ask."""
    zone = tmp_path / "outside" / "root.zone"
    zone.parent.mkdir()
    zone.write_text(f"$ORIGIN {ZONE}\n@ 3600 IN SOA ns.leak. admin.leak. 1 7200 3600 1209600 3600\n"
                    f"@ 3600 IN NS ns.leak.\n* 3600 IN A {LEAKED}\n")
    return zone


def _answers(result: object) -> set[str]:
    return {q.answered_by or "" for o in result.outcomes for q in o.queries}  # type: ignore[attr-defined]


@pytest.mark.parametrize("how", ["absolute", "root-relative", "dot-dot"])
def test_a_zone_file_outside_the_sandbox_is_not_read(tmp_path: Path, coredns_bin: Path, how: str) -> None:
    zone = _zone_outside(tmp_path)
    line = {"absolute": f"file {zone} {ZONE}",
            "root-relative": f"root /\n    file {zone.relative_to('/')} {ZONE}",
            "dot-dot": f"file {'../' * 12}{zone.relative_to('/')} {ZONE}"}[how]
    corefile = f".:53 {{\n    {line}\n    forward . 10.0.0.1 10.0.0.2\n}}\n"
    result = verify_config(VerifyConfig(corefile), coredns_bin)
    assert result.outcomes
    assert LEAKED not in _answers(result), "CoreDNS read a zone file outside its sandbox"


def test_dnstap_cannot_dial_out_of_the_network_namespace(tmp_path: Path, coredns_bin: Path) -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    dialled: list[str] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, peer = listener.accept()
            except OSError:
                continue
            dialled.append(str(peer))
            conn.close()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        port = listener.getsockname()[1]
        corefile = f".:53 {{\n    dnstap tcp://127.0.0.1:{port} full\n    forward . 10.0.0.1 10.0.0.2\n}}\n"
        result = verify_config(VerifyConfig(corefile), coredns_bin)
    finally:
        stop.set()
        thread.join(2)
        listener.close()
    assert result.outcomes
    assert dialled == [], "CoreDNS dialled a listener of the machine"


def test_the_report_says_how_coredns_was_confined(coredns_bin: Path) -> None:
    result = verify_config(VerifyConfig(".:53 {\n    forward . 10.0.0.1 10.0.0.2\n}\n"), coredns_bin)
    assert {o.scenario for o in result.outcomes if o.passed} >= {"healthy", "primary-dead", "all-down"}
    assert result.confinement == confine.CONFINED
    assert json.loads(format_verify(result, "json"))["confinement"] == confine.CONFINED
    assert "confinement: namespaces" in format_verify(result, "text").splitlines()[0]


def test_no_namespaces_is_a_refusal_with_the_fix(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No `unshare` (a machine without Linux namespaces): verify never runs CoreDNS unconfined."""
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv(confine.UNCONFINED_ENV, raising=False)
    with pytest.raises(ToolError) as caught:
        run_contained(VerifyConfig(".:53 {\n    forward . 10.0.0.1\n}\n"), tmp_path / "coredns")
    assert "cannot confine CoreDNS" in str(caught.value)
    assert "apparmor_restrict_unprivileged_userns=0" in str(caught.value)
    assert confine.UNCONFINED_ENV in str(caught.value)


def test_a_refused_user_namespace_is_a_refusal_with_the_fix(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """What Ubuntu 24.04's AppArmor default makes `unshare --user` print (a stand-in `unshare`)."""
    fake = tmp_path / "unshare"
    fake.write_text("#!/bin/sh\necho 'unshare: write failed /proc/self/uid_map: Operation not permitted' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv(confine.UNCONFINED_ENV, raising=False)
    with pytest.raises(ToolError) as caught:
        run_contained(VerifyConfig(".:53 {\n    forward . 10.0.0.1\n}\n"), tmp_path / "coredns")
    assert "uid_map: Operation not permitted" in str(caught.value)
    assert "so it is not run" in str(caught.value)


def test_unconfined_only_when_asked_and_said(monkeypatch: pytest.MonkeyPatch, coredns_bin: Path) -> None:
    monkeypatch.setenv(confine.UNCONFINED_ENV, "1")
    result = verify_config(VerifyConfig(".:53 {\n    forward . 10.0.0.1 10.0.0.2\n}\n"), coredns_bin)
    assert {o.scenario for o in result.outcomes if o.passed} >= {"healthy", "primary-dead", "all-down"}
    assert result.confinement == confine.UNCONFINED
