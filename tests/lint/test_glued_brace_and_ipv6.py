"""Two cases where lint's answer pointed elsewhere or missed CoreDNS's refusal.

- `example.com{`: CoreDNS's lexer splits words on spaces only, so the brace is part of the key;
  CoreDNS then serves the zone `example.com{.` (no query matches it) with the rest of the file as
  its body. lint refuses it (exit 2) at the brace's own line and column, with the fix there.
- `tls://[IPv6]` without a port: forward's HostPortOrFile finds no port, no IP (the brackets)
  and no file, and CoreDNS refuses "not an IP address or file"; static lint says so too.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gen.cli import app
from gen.corefile.loadcheck import try_load
from gen.finding import Severity
from gen.lint.run import run_lint
from tests.lint.test_realworld import _binary

GLUED = "example.com{\n    forward . 1.1.1.1\n}\n"
GLUED_CM = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: coredns-custom
  namespace: kube-system
data:
  corp.server: |
    example.com{
        forward . 1.1.1.1
    }
"""


def test_glued_brace_is_bad_input_at_the_brace(tmp_path: Path) -> None:
    path = tmp_path / "Corefile"
    path.write_text(GLUED)
    result = CliRunner().invoke(app, ["lint", str(path)])
    assert result.exit_code == 2
    assert f"{path}:1:12: corefile: the '{{' is glued to `example.com`" in result.output
    assert "fix: put a space before the brace: `example.com {`" in result.output


def test_glued_brace_in_a_configmap_key_points_into_the_yaml(tmp_path: Path) -> None:
    path = tmp_path / "cm.yaml"
    path.write_text(GLUED_CM)
    result = CliRunner().invoke(app, ["lint", str(path), "--platform", "aks"])
    assert result.exit_code == 2
    assert f"{path}:8:16: corefile: the '{{' is glued to `example.com`" in result.output


IPV6 = ".:53 {{\n    forward . {to} {{\n        tls_servername cloudflare-dns.com\n    }}\n}}\n"


@pytest.mark.parametrize(("to", "refused"), [
    ("tls://[2606:4700:4700::1111]", True),
    ("tls://[2606:4700:4700::1111]:853", False),
    ("tls://2606:4700:4700::1111", False),
    ("[2606:4700:4700::1111]", True),
    ("dns://[2606:4700:4700::1111]:53", False),
    ("tls://one.one.one.one", True),
])
def test_static_lint_on_ipv6_upstreams(tmp_path: Path, to: str, refused: bool) -> None:
    path = tmp_path / "Corefile"
    path.write_text(IPV6.format(to=to))
    found = [f for f in run_lint([path], coredns_version="1.13.1") if f.severity is Severity.ERROR]
    assert [f.rule for f in found] == (["forward-upstream-invalid"] if refused else [])
    if refused and to.endswith("]"):
        assert f"`{to}:{853 if to.startswith('tls') else 53}`" in found[0].hint


@pytest.mark.coredns
@pytest.mark.parametrize("version", ["1.13.1", "1.11.3"])
@pytest.mark.parametrize("to", ["tls://[2606:4700:4700::1111]", "tls://[2606:4700:4700::1111]:853",
                                "tls://2606:4700:4700::1111", "[::1]", "tls://one.one.one.one"])
def test_the_real_coredns_agrees(coredns_bin: Path, version: str, to: str) -> None:
    binary = _binary(version, coredns_bin)
    text = IPV6.format(to=to).replace(".:53 {", ".:53 {\n    bind 127.0.0.1")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "Corefile"
        path.write_text(text)
        static = any(f.rule == "forward-upstream-invalid" for f in run_lint([path], coredns_version=version))
    loaded = try_load(text, binary, timeout=10)
    assert loaded.started is not static, loaded.output
    if static:
        assert "not an IP address or file" in loaded.output


@pytest.mark.coredns
def test_coredns_itself_serves_the_glued_key_as_a_zone(coredns_bin: Path) -> None:
    """Why lint refuses it although CoreDNS starts: the zone it serves is `example.com{.`."""
    loaded = try_load(GLUED.replace("example.com{\n", "example.com{\n    bind 127.0.0.1\n"), coredns_bin, timeout=10)
    assert loaded.started and "example.com{." in loaded.output


@pytest.mark.parametrize(("upstream", "refused"), [
    ("${GATEWAY_IP:=192.168.1.1}", False),  # Flux fills it: its default or a value, judged as an address
    ("${GATEWAY_IP}", False),
    ("tls://${GATEWAY_IP:=192.168.1.1}:853", False),
    ("${GATEWAY:=dns.example.com}", True),  # the default CoreDNS would get is a host name
])
def test_a_flux_variable_upstream_is_judged_as_flux_fills_it(tmp_path: Path, upstream: str, refused: bool) -> None:
    path = tmp_path / "Corefile"
    path.write_text(f".:53 {{\n    forward . {upstream}\n}}\n")
    found = [f.rule for f in run_lint([path], coredns_version="1.13.1") if f.severity is Severity.ERROR]
    assert ("forward-upstream-invalid" in found) is refused, found
