"""`lint --load` lets CoreDNS judge every option: the measured misses of static lint (the sandbox
used to drop `kubernetes`, swap every upstream for a fake and leave zone files behind)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gen.finding import Finding
from gen.kubeapi import FakeKubeAPI
from gen.lint.load import load_check
from gen.lint.loadbox import build_loadbox
from gen.lint.run import run_lint

KUBERNETES_UPSTREAM = """\
.:53 {
    errors
    health {
        lameduck 5s
    }
    kubernetes cluster.local in-addr.arpa ip6.arpa {
        pods insecure
        upstream
        fallthrough in-addr.arpa ip6.arpa
    }
    forward . /etc/resolv.conf
    cache 30
    loop
    reload
}
"""
ZONE = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: coredns
  namespace: kube-system
data:
  Corefile: |
    example.org:53 {
        file /etc/coredns/example.db
    }
  example.db: |
    $ORIGIN example.org.
    @ 3600 IN SOA ns1 admin 1 7200 3600 1209600 3600
    www IN A RECORD
"""


def _load(tmp_path: Path, name: str, text: str, binary: Path) -> list[Finding]:
    path = tmp_path / name
    path.write_text(text)
    return [f for f in run_lint([path], load=load_check(binary)) if f.rule == "coredns-refused"]


@pytest.mark.coredns
def test_removed_kubernetes_upstream_is_refused(tmp_path: Path, coredns_bin: Path) -> None:
    found = _load(tmp_path, "Corefile", KUBERNETES_UPSTREAM, coredns_bin)
    assert [(f.line, "unknown property 'upstream'" in f.message) for f in found] == [(8, True)]
    fixed = _load(tmp_path, "Corefile", KUBERNETES_UPSTREAM.replace("        upstream\n", ""), coredns_bin)
    assert fixed == []


@pytest.mark.coredns
def test_kubernetes_options_with_kubeconfig_and_context_load(tmp_path: Path, coredns_bin: Path) -> None:
    text = KUBERNETES_UPSTREAM.replace("        upstream\n", "        kubeconfig /etc/k8s/config prod\n        ttl 30\n")
    assert _load(tmp_path, "Corefile", text, coredns_bin) == []
    bad = text.replace("ttl 30", "ttl 9000")
    assert ["ttl must be in range" in f.message for f in _load(tmp_path, "Corefile", bad, coredns_bin)] == [True]


@pytest.mark.coredns
def test_forward_to_a_host_name_is_refused(tmp_path: Path, coredns_bin: Path) -> None:
    found = _load(tmp_path, "Corefile", ".:53 {\n    forward . dns.google\n}\n", coredns_bin)
    assert [(f.line, 'not an IP address or file: "dns.google"' in f.message) for f in found] == [(2, True)]


@pytest.mark.coredns
def test_bad_record_in_a_zone_file_key_is_refused(tmp_path: Path, coredns_bin: Path) -> None:
    found = _load(tmp_path, "cm.yaml", ZONE.replace("RECORD", "not-an-address"), coredns_bin)
    assert len(found) == 1 and 'bad A A: "not-an-address"' in found[0].message
    assert "/etc/coredns/example.db" in found[0].message and "coredns-gen-load-" not in found[0].message
    assert _load(tmp_path, "cm.yaml", ZONE.replace("RECORD", "192.0.2.1"), coredns_bin) == []


def test_only_what_leaves_the_machine_is_replaced(tmp_path: Path) -> None:
    main = ("example.org:5300 {\n    bind 10.0.0.1\n    forward . 10.0.0.1:5353 tls://[2001:db8::1] dns.google /etc/resolv.conf {\n"
            "        max_fails 3\n    }\n    kubernetes cluster.local {\n        endpoint https://10.0.0.9:6443\n"
            "        upstream\n    }\n    hosts /etc/coredns/NodeHosts\n}\n")
    with FakeKubeAPI() as api:
        box = build_loadbox(tmp_path, main, {}, api=api)
        text = box.corefile.read_text()
        assert f"endpoint {api.url}" in text
    port = box.ports["5300"]
    assert text.startswith(f"example.org:{port} {{\n    bind 127.0.0.1\n")
    resolv = tmp_path / "etc/resolv.conf"
    assert f"forward . 127.0.0.1:5353 tls://[::1] dns.google {resolv} {{\n        max_fails 3\n" in text
    assert "        upstream\n" in text and "10.0.0" not in text and "2001:db8" not in text
    assert resolv.read_text().endswith("nameserver 127.0.0.1\n")


@pytest.mark.coredns
@pytest.mark.parametrize("listener", ["health bogus", "ready bogus", "prometheus localhost", "health :99999"])
def test_a_listener_address_coredns_refuses_stays_refused(tmp_path: Path, coredns_bin: Path, listener: str) -> None:
    """The sandbox moved every listener to a loopback port, so `health bogus` started there and
    `lint --load` passed what CoreDNS refuses in the pod (and dropped static lint's refusal)."""
    text = f".:53 {{\n    {listener}\n    forward . 10.0.0.1\n}}\n"
    path = tmp_path / "Corefile"
    path.write_text(text)
    found = run_lint([path], coredns_version="1.13.1", load=load_check(coredns_bin))
    assert [f.line for f in found if f.rule == "coredns-refused"] != [], found
    fine = _load(tmp_path, "Corefile", text.replace(listener, listener.split()[0] + " :8080"), coredns_bin)
    assert fine == []


@pytest.mark.parametrize(("address", "movable"), [
    ("", True), (":8080", True), ("localhost:9153", True), ("[::1]:8181", True), ("0.0.0.0:65535", True),
    ("bogus", False), (":bogus", False), ("localhost", False), (":99999", False), ("::1:8080", False), (":", False),
])
def test_only_an_address_coredns_listens_on_is_moved(address: str, movable: bool) -> None:
    from gen.loopback import movable_listener

    assert movable_listener(address) is movable
