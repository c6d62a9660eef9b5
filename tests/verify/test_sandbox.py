"""The Corefile adaptation: only ports, upstreams, paths and cluster-only plugins change."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from gen.corefile import parse_corefile, parse_directives
from gen.errors import UsageError
from gen.verify import sandbox as sandbox_mod
from gen.verify.sandbox import Sandbox, VerifyConfig, build_sandbox, upstream_kind

TALOS = """\
.:53 {
    errors
    health {
        lameduck 5s
    }
    ready
    prometheus :9153
    kubernetes cluster.local in-addr.arpa ip6.arpa {
        pods insecure
    }
    forward . 10.96.0.53 /etc/resolv.conf {
       policy sequential
       next SERVFAIL REFUSED
    }
    forward . /etc/resolv.conf
    cache 30
    loop
    reload
}
corp.example.com:53 {
    forward . 10.20.0.10:5353
}
metrics.example:1053 {
    bind 0.0.0.0
    prometheus :9153
    forward . 10.20.0.10:5353
}
"""

K3S = """\
.:53 {
    hosts /etc/coredns/NodeHosts {
        fallthrough
    }
    import /etc/coredns/custom/*.override
    forward . /etc/resolv.conf
}
import /etc/coredns/custom/*.server
"""


Build = Callable[..., Sandbox]


@pytest.fixture
def built(tmp_path: Path) -> Iterator[Build]:
    boxes: list[Sandbox] = []

    def build(config: VerifyConfig, **kw: Any) -> Sandbox:
        box = build_sandbox(tmp_path / f"b{len(boxes)}", config, **kw)
        boxes.append(box)
        return box

    yield build
    for box in boxes:
        box.stop()


def test_talos_adaptation(built: Build) -> None:
    box = built(VerifyConfig(TALOS))
    cf = parse_corefile(box.corefile.read_text(), filename="x")
    root, corp, metrics, warmup = cf.server_blocks
    # the warm-up block: its own port and fake, never one of the cluster's upstreams
    assert warmup.keys == [f".:{box.warmup_port}"] and box.warmup is not None
    assert [d.args for d in warmup.find("forward")] == [[".", box.warmup.address]]
    assert box.ready == root.find("ready")[0].args[0] and not warmup.find("ready")
    names = [d.name for d in root.directives]
    assert "kubernetes" not in names and "loop" not in names
    assert names[0] == "bind" and root.directives[0].args == ["127.0.0.1"]
    assert [d.args for d in metrics.find("bind")] == [["127.0.0.1"]]
    # one local port per cluster port: 53 is shared by two blocks, 1053 gets its own
    assert set(box.ports) == {"53", "1053"} and box.ports["53"] != box.ports["1053"]
    assert root.keys == [f".:{box.ports['53']}"] and corp.keys == [f"corp.example.com:{box.ports['53']}"]
    health = root.find("health")[0]
    assert health.block is None and health.args[0].startswith("127.0.0.1:")
    # the same original address stays one address (CoreDNS shares it too)
    assert root.find("prometheus")[0].args == metrics.find("prometheus")[0].args
    first, second = root.find("forward")
    assert first.args[1] == box.fakes["10.96.0.53"].address
    nxt = first.option("next")
    assert nxt is not None and nxt.args == ["SERVFAIL", "REFUSED"]
    assert corp.find("forward")[0].args[1] == box.fakes["10.20.0.10:5353"].address
    assert list(box.fakes) == ["10.96.0.53", "/etc/resolv.conf", "10.20.0.10:5353"]


def test_a_corefile_without_ready_gets_it_in_the_warm_up_block(built: Build) -> None:
    box = built(VerifyConfig(".:53 {\n    forward . 10.0.0.1\n}\n"))
    warmup = parse_corefile(box.corefile.read_text(), filename="x").server_blocks[-1]
    assert [d.args for d in warmup.find("ready")] == [[box.ready]] and box.ready.startswith("127.0.0.1:")


def test_resolv_conf_file_or_inline(built: Build, monkeypatch: pytest.MonkeyPatch) -> None:
    box = built(VerifyConfig(TALOS))
    fake = box.fakes["/etc/resolv.conf"]
    if box.resolv_conf == "file":
        generated = box.root / "etc/resolv.conf"
        assert f"nameserver {fake.host}\n" in generated.read_text() and fake.port == 53
        assert str(generated) in box.corefile.read_text()
    monkeypatch.setattr(sandbox_mod, "can_bind_port_53", lambda _host: False)
    inline = built(VerifyConfig(TALOS))
    assert inline.resolv_conf == "inline"
    assert f"forward . {inline.fakes['/etc/resolv.conf'].address}\n" in inline.corefile.read_text()


def test_k3s_imports_and_hosts_move_under_the_sandbox(built: Build) -> None:
    custom = {"lab.example.net.server": "lab.example.net:53 {\n    forward . 192.168.20.10\n}\n",
              "upstream.override": "forward . 192.168.10.53 /etc/resolv.conf {\n    next SERVFAIL\n}\n",
              "notes.txt": "kept verbatim\n"}
    box = built(VerifyConfig(K3S, custom))
    text = box.corefile.read_text()
    assert f"import {box.root}/etc/coredns/custom/*.override" in text
    assert f"import {box.root}/etc/coredns/custom/*.server" in text
    assert (box.root / "etc/coredns/NodeHosts").read_text() == ""
    custom_dir = box.root / "etc/coredns/custom"
    override = parse_directives((custom_dir / "upstream.override").read_text(), filename="o")
    assert override[0].args[1] == box.fakes["192.168.10.53"].address
    server = parse_corefile((custom_dir / "lab.example.net.server").read_text(), filename="s")
    assert server.server_blocks[0].keys == [f"lab.example.net:{box.ports['53']}"]
    assert (custom_dir / "notes.txt").read_text() == "kept verbatim\n"


def test_drop_leaves_out_the_named_forward(built: Build) -> None:
    box = built(VerifyConfig(TALOS), drop=frozenset({("Corefile", 15)}))
    root = parse_corefile(box.corefile.read_text(), filename="x").server_blocks[0]
    assert len(root.find("forward")) == 1 and root.find("forward")[0].option("next") is not None


@pytest.mark.parametrize("token,kind", [
    ("10.0.0.1", "ip"), ("10.0.0.1:5353", "ip"), ("dns://10.0.0.1", "ip"), ("[2001:db8::1]:53", "ip"),
    ("2001:db8::1", "ip"), ("/etc/resolv.conf", "file"), ("tls://1.1.1.1", "unsupported"),
])
def test_upstream_kinds(token: str, kind: str) -> None:
    assert upstream_kind(token) == kind


def test_tls_upstream_is_bad_input(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"^Corefile:2:5: forward: cannot fake upstream .tls://1.1.1.1."):
        build_sandbox(tmp_path, VerifyConfig(".:53 {\n    forward . tls://1.1.1.1\n}\n"))
