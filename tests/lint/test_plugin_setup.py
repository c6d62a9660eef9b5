"""plugin-setup-refused runs each linked plugin's own setup function (coredns-gen-helper `setups`,
tools/helper/setup) on the directive's tokens, and the real CoreDNS agrees with it.

Before it, lint judged only the options it had tables for (forward's names, kubernetes's, rewrite's
arguments, once-per-block), so everything else a plugin refuses passed lint and stopped CoreDNS:
`forward . quic://1.1.1.1` (HostPortOrFile takes it, forward's setup refuses the transport), a
`cache` option that is not one, `reload 1s`, `health` with a word that is no address.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Callable

import pytest

from gen.corefile.loadcheck import try_load
from gen.finding import Finding, Severity
from gen.lint.run import RULES
from gen.lint.option_releases import SETUP_LINKED
from gen.loopback import free_port
from gen.tools import corefile_binary
from tests.conftest import REPO_ROOT, missing_tool

ID = "plugin-setup-refused"
LINKED = str(SETUP_LINKED)
REFUSING = {r.ID for r in RULES if r.REFUSES}


@pytest.fixture(scope="module", autouse=True)
def helper() -> None:
    if corefile_binary() is None:
        missing_tool("coredns-gen-corefile", RuntimeError("pip install -e . builds it into gen/bin"))


def _block(body: str) -> str:
    """`body` in a server block; each PORT (a listener's) a free loopback port."""
    lines = [line.replace("PORT", str(free_port())) for line in body.splitlines()]
    return ".:53 {\n" + "".join(f"    {line}\n" for line in lines) + "}\n"


# CoreDNS 1.13.1 refuses each (its own message, checked with the binary below); lint passed each before.
REFUSED = {
    "forward . quic://1.1.1.1": "'quic' is not supported as a destination protocol in forward",
    "forward . https://1.1.1.1": "'https' is not supported as a destination protocol in forward",
    "forward .": "Wrong argument count",
    "forward . 1.1.1.1 {\n    health_check\n}": "Wrong argument count",
    "forward . 1.1.1.1 {\n    max_fails -1\n}": "",
    "cache 30 {\n    bogus\n}": "Wrong argument count",
    "cache {\n    serve_stale 1h sometimes\n}": "",
    "reload 1s": "interval value must be greater or equal to 2s",
    "health bogus\nforward . 1.1.1.1": "missing port in address",
    "health {\n    lameduck\n}\nforward . 1.1.1.1": "Wrong argument count",
    "loop bogus\nforward . 1.1.1.1": "Wrong argument count",
    "template IN A example.org {\n    answer \"{{ .Name }\"\n}": "",
    "hosts {\n    10.0.0.1 a.example\n    fallthrough\n}\nhosts\nforward . 1.1.1.1": "only be used once per Server Block",
    "acl {\n    block type\n}\nforward . 1.1.1.1": "",
    # judged with stand-ins for the zone file and the endpoints (lint passed each before)
    "file /etc/coredns/db.example example.org {\n    transfer to 10.0.0.1\n}\nforward . 1.1.1.1": "unknown property 'transfer'",
    "file /etc/coredns/db.example example.org {\n    bogus\n}\nforward . 1.1.1.1": "unknown property 'bogus'",
    "etcd example.org {\n    errors\n}\nforward . 1.1.1.1": "unknown property 'errors'",
    "etcd example.org {\n    endpoint http://127.0.0.1:1\n    credentials admin\n}\nforward . 1.1.1.1": "credentials requires 2",
    "secondary example.org {\n    transfer from ns1.example.org\n}\nforward . 1.1.1.1": "",
    "secondary example.org\nforward . 1.1.1.1": "require a transfer from property",
}
ACCEPTED = [
    "forward . tls://1.1.1.1 {\n    tls_servername cloudflare-dns.com\n    health_check 5s\n}",
    "cache 30 {\n    prefetch 10 1m 10%\n    serve_stale 1h verify\n}\nforward . 1.1.1.1",
    "health 127.0.0.1:PORT {\n    lameduck 5s\n}\nready 127.0.0.1:PORT\nreload 30s\nloop\nforward . 1.1.1.1",
    "rewrite name suffix .a.example .b.example answer auto\nforward . 1.1.1.1",
    "template IN A example.org {\n    answer \"{{ .Name }} 60 IN A 10.0.0.1\"\n    fallthrough\n}",
    "file /etc/coredns/db.example example.org {\n    reload 30s\n}\nforward . 1.1.1.1",
    "etcd example.org {\n    path /skydns\n    endpoint http://127.0.0.1:1\n}\nforward . 1.1.1.1",
    "etcd example.org\nforward . 1.1.1.1",
    "secondary example.org {\n    transfer from 127.0.0.1:1\n}\nforward . 1.1.1.1",
]


def _refusals(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.rule in REFUSING and f.severity is Severity.ERROR]


@pytest.mark.parametrize("body", sorted(REFUSED))
def test_a_refused_option_is_an_error_at_the_linked_release(lint_text: Callable[..., list[Finding]], body: str) -> None:
    """Said once: by this rule, or by the rule that already explains it (a second `hosts`)."""
    (found,) = _refusals(lint_text(_block(body), coredns_version=LINKED))
    if found.rule == ID:
        assert REFUSED[body] in found.message


@pytest.mark.parametrize("body", ACCEPTED)
def test_accepted_options_pass(lint_text: Callable[..., list[Finding]], body: str) -> None:
    assert [f for f in lint_text(_block(body), coredns_version=LINKED) if f.rule == ID] == []


def test_the_finding_points_at_the_line_the_setup_names(lint_text: Callable[..., list[Finding]]) -> None:
    found = [f for f in lint_text(_block("forward . 1.1.1.1\ncache 30 {\n    success 100\n    bogus\n}"),
                                  coredns_version=LINKED) if f.rule == ID]
    assert [(f.line, f.severity) for f in found] == [(5, Severity.ERROR)]  # `bogus`


def test_another_release_is_told_not_judged(lint_text: Callable[..., list[Finding]]) -> None:
    """Another release's setup may read the options differently: said (info), never an error."""
    found = [f for f in lint_text(_block("forward . quic://1.1.1.1"), coredns_version="1.14.7") if f.rule == ID]
    assert [f.severity for f in found] == [Severity.INFO]
    assert "not judged for CoreDNS 1.14.7" in found[0].message


@pytest.mark.parametrize("body", [
    "forward . 1.1.1.1 {\n    tls /etc/ssl/c.pem /etc/ssl/k.pem /etc/ssl/ca.pem\n    bogus\n}",  # reads files
    "reload {$INTERVAL}\nforward . 1.1.1.1",  # a placeholder CoreDNS fills from the pod's environment
    "reload ${INTERVAL}\nforward . 1.1.1.1",  # a Flux variable
    "bind eth0\nforward . 1.1.1.1",  # an interface of the node
    "etcd example.org {\n    tls /etc/ssl/c.pem /etc/ssl/k.pem /etc/ssl/ca.pem\n    bogus\n}",  # reads files
])
def test_what_reads_the_pod_or_its_environment_is_not_judged(lint_text: Callable[..., list[Finding]], body: str) -> None:
    assert [f for f in lint_text(_block(body), coredns_version=LINKED) if f.rule == ID] == []


def test_a_custom_builds_plugin_of_the_same_name_is_not_judged(lint_text: Callable[..., list[Finding]]) -> None:
    assert [f for f in lint_text(_block("cache 30 {\n    bogus\n}\nforward . 1.1.1.1"), coredns_version=LINKED,
                                 plugins=["cache"]) if f.rule == ID] == []


@pytest.mark.coredns
@pytest.mark.parametrize("body", sorted(REFUSED) + ACCEPTED)
def test_the_real_coredns_agrees(body: str, coredns_bin: Path, lint_text: Callable[..., list[Finding]]) -> None:
    """CoreDNS 1.13.1 on loopback, every option as written (listeners only moved to a free port)."""
    text = _block("bind 127.0.0.1\n" + body).replace(".:53 {", f".:{free_port()} {{")
    started = try_load(text, coredns_bin).started
    refused = bool(_refusals(lint_text(text, coredns_version=LINKED)))
    assert refused is not started, text


@pytest.mark.parametrize("body", ["forward . /dev/stdin", "grpc . /dev/stdin", "autopath /dev/stdin",
                                  "file /dev/stdin example.org {\n    reload 30s\n}"])
def test_a_setup_naming_stdin_does_not_hang_lint(tmp_path: Path, body: str) -> None:
    """The setup read the helper's own stdin (its requests): lint waited for an answer forever."""
    (tmp_path / "Corefile").write_text(_block(body))
    proc = subprocess.run([sys.executable, "-m", "gen", "lint", "--coredns-version", LINKED, str(tmp_path / "Corefile")],
                          capture_output=True, text=True, timeout=120, check=False, env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})
    assert "Traceback" not in proc.stderr and ID not in proc.stdout + proc.stderr, proc.stdout + proc.stderr


@pytest.mark.parametrize("body", [
    "forward . RESOLV {\n    max_fails 3\n}",  # a file of this machine that is no resolv.conf: was refused by its content
    "grpc . RESOLV",
    "autopath cluster.local RESOLV",
])
def test_a_file_a_setup_would_open_is_not_read_from_the_lint_machine(
        lint_text: Callable[..., list[Finding]], body: str, tmp_path: Path) -> None:
    """forward's, grpc's and autopath's setups read the file their arguments name, on the machine
    lint runs on; that file is the pod's. The setup is judged on a stand-in (the rest of its
    options still are), and the file is judged only by `lint --load`."""
    garbage = tmp_path / "not-resolv.conf"
    garbage.write_text("this is no resolv.conf\x00\n" * 3)
    found = lint_text(_block(body.replace("RESOLV", str(garbage))), coredns_version=LINKED)
    assert [f for f in found if f.rule == ID] == []


def test_a_stand_in_still_judges_the_other_options(lint_text: Callable[..., list[Finding]]) -> None:
    found = lint_text(_block("forward . /etc/resolv.conf {\n    max_fails -1\n}"), coredns_version=LINKED)
    assert [f.rule for f in found if f.rule == ID] == [ID]


def test_etcd_is_judged_without_dialling_its_endpoint(lint_text: Callable[..., list[Finding]]) -> None:
    """etcd's setup builds a client of its endpoints (and, with credentials, logs in at once): the
    helper hands it a socket that does not exist, so a lint run dials nothing the Corefile names."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(1.5)
    port = listener.getsockname()[1]
    try:
        found = lint_text(_block(f"etcd example.org {{\n    endpoint http://127.0.0.1:{port}\n    credentials a b\n    bogus\n}}"),
                          coredns_version=LINKED)
        assert [f.rule for f in found if f.rule == ID] == [ID]  # `bogus` judged all the same
        with pytest.raises(TimeoutError):
            listener.accept()[0].close()
    finally:
        listener.close()


KEYS_REFUSED = [".example.org:53", "example..org:53"]
KEYS_ACCEPTED = ["example.org:53", "example.org.:53", ".:53", "10.0.0.0/24:53", "dns://example.org:53"]


@pytest.mark.parametrize("key", KEYS_REFUSED)
def test_a_server_key_coredns_refuses_is_an_error_at_the_block(lint_text: Callable[..., list[Finding]], key: str) -> None:
    """CoreDNS normalizes each key before any plugin runs (InspectServerBlocks) and refuses an empty label."""
    text = f"{key} {{\n    forward . 1.1.1.1\n}}\n"
    (found,) = _refusals(lint_text(text, coredns_version=LINKED))
    assert (found.rule, found.line) == (ID, 1)
    assert key in found.message


@pytest.mark.parametrize("key", KEYS_ACCEPTED)
def test_server_keys_coredns_accepts_pass(lint_text: Callable[..., list[Finding]], key: str) -> None:
    assert _refusals(lint_text(f"{key} {{\n    forward . 1.1.1.1\n}}\n", coredns_version=LINKED)) == []


@pytest.mark.coredns
@pytest.mark.parametrize("key", KEYS_REFUSED + KEYS_ACCEPTED)
def test_the_real_coredns_agrees_on_keys(key: str, coredns_bin: Path, lint_text: Callable[..., list[Finding]]) -> None:
    text = f"{key.rsplit(':', 1)[0]}:{free_port()} {{\n    bind 127.0.0.1\n    forward . 1.1.1.1\n}}\n"
    started = try_load(text, coredns_bin).started
    assert bool(_refusals(lint_text(text, coredns_version=LINKED))) is not started, text
