"""The wiring contract (docs/lint.md, `wiring-*`) on good and broken manifests (files, `kubectl get -o yaml` lists, k3s)."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest

from gen.finding import Finding
from gen.lint.run import run_lint
from tests.lint.conftest import summary

REPO = Path(__file__).resolve().parents[2]

GOOD = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: coredns
  namespace: kube-system
data:
  Corefile: |
    .:53 {
        errors
        health {
           lameduck 5s
        }
        ready
        kubernetes cluster.local in-addr.arpa ip6.arpa {
           pods insecure
           fallthrough in-addr.arpa ip6.arpa
        }
        prometheus :9153
        forward . /etc/resolv.conf
        cache 30
        loop
        reload
        loadbalance
    }
    import custom/*.server
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: coredns-custom
  namespace: kube-system
data:
  zoneroute.server: |
    corp.example:53 {
        forward . 10.0.0.1
    }
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: coredns
  namespace: kube-system
spec:
  template:
    spec:
      containers:
      - name: coredns
        image: registry.k8s.io/coredns/coredns:v1.11.3
        args: [ "-conf", "/etc/coredns/Corefile" ]
        volumeMounts:
        - name: config-volume
          mountPath: /etc/coredns
          readOnly: true
        - name: custom-config-volume
          mountPath: /etc/coredns/custom
          readOnly: true
      volumes:
      - name: config-volume
        configMap:
          name: coredns
      - name: custom-config-volume
        configMap:
          name: coredns-custom
          optional: true
"""


def _swap(old: str, new: str) -> str:
    assert old in GOOD, old
    return GOOD.replace(old, new, 1)


def test_good_manifest_is_clean(lint_text: Callable[..., list[Finding]]) -> None:
    assert lint_text(GOOD, name="wiring.yaml") == []


def test_absolute_import_path_is_the_contract_too(lint_text: Callable[..., list[Finding]]) -> None:
    assert lint_text(_swap("    import custom/*.server", "    import /etc/coredns/custom/*.server"),
                     name="wiring.yaml") == []


BROKEN = [
    ("no-import", _swap("    import custom/*.server\n", ""), [("wiring-import-server", 7, "error")]),
    ("import-inside-block", _swap("        loadbalance\n    }\n    import custom/*.server\n",
                                  "        loadbalance\n        import custom/*.server\n    }\n"),
     [("wiring-import-server", 7, "error"), ("import-server-in-block", 24, "error"),
      ("unknown-plugin", 34, "error")]),
    ("wrong-mount-path", _swap("mountPath: /etc/coredns/custom", "mountPath: /etc/coredns/extra"),
     [("wiring-mount-path", 55, "error")]),
    ("not-mounted", _swap("        - name: custom-config-volume\n          mountPath: /etc/coredns/custom\n"
                          "          readOnly: true\n", ""), [("wiring-mount-path", 50, "error")]),
    ("no-volume", _swap("      - name: custom-config-volume\n        configMap:\n          name: coredns-custom\n"
                        "          optional: true\n", ""), [("wiring-mount-path", 38, "error")]),
    ("writable", _swap("          mountPath: /etc/coredns/custom\n          readOnly: true\n",
                       "          mountPath: /etc/coredns/custom\n"), [("wiring-mount-readonly", 54, "error")]),
    ("readonly-false", _swap("          mountPath: /etc/coredns/custom\n          readOnly: true\n",
                             "          mountPath: /etc/coredns/custom\n          readOnly: false\n"),
     [("wiring-mount-readonly", 56, "error")]),
    ("subpath", _swap("          mountPath: /etc/coredns/custom\n",
                      "          mountPath: /etc/coredns/custom\n          subPath: zoneroute.server\n"),
     [("wiring-mount-subpath", 56, "error")]),
    ("items", _swap("          name: coredns-custom\n",
                    "          name: coredns-custom\n          items:\n          - key: zoneroute.server\n"
                    "            path: zoneroute.server\n"), [("wiring-mount-subpath", 64, "error")]),
    ("no-reload", _swap("        reload\n", ""), [("wiring-reload", 7, "error")]),
    ("old-coredns", _swap("coredns:v1.11.3", "coredns:1.6.9"), [("wiring-reload", 48, "error")]),
    ("untagged-image", _swap("coredns:v1.11.3", "coredns"), [("wiring-reload", 48, "warning")]),
    ("dns-port-flag", _swap('args: [ "-conf", "/etc/coredns/Corefile" ]',
                            'args: [ "-conf", "/etc/coredns/Corefile", "-dns.port", "1053" ]'),
     [("wiring-port-53", 49, "error")]),
    ("listens-elsewhere", _swap("    .:53 {", "    .:5353 {"), [("wiring-port-53", 8, "error")]),
    ("root-zone-moved-off-53", _swap("    .:53 {", "    .:5353 {").replace("    import custom/*.server\n",
                                                                    "    import custom/*.server\n    internal.example:53 {\n        whoami\n    }\n"),
     [("wiring-port-53", 8, "error")]),
    ("custom-missing-optional", "---\n".join(d for i, d in enumerate(GOOD.split("---\n")) if i != 1),
     [("wiring-custom-configmap", 50, "info")]),
    ("custom-missing-not-optional",
     "---\n".join(d for i, d in enumerate(_swap("          optional: true\n", "").split("---\n")) if i != 1),
     [("wiring-custom-configmap", 50, "error")]),
]


@pytest.mark.parametrize(("text", "expected"), [b[1:] for b in BROKEN], ids=[b[0] for b in BROKEN])
def test_broken_manifest(lint_text: Callable[..., list[Finding]], text: str,
                         expected: list[tuple[str, int, str]]) -> None:
    assert summary(lint_text(text, name="wiring.yaml")) == expected


def test_kubectl_get_list_output(lint_text: Callable[..., list[Finding]]) -> None:
    """`kubectl get cm,deploy -o yaml`: a List of live objects (with uid); coredns-custom absent."""
    docs = GOOD.split("---\n")
    items = [docs[0], docs[2].replace("  namespace: kube-system\n", "  namespace: kube-system\n  uid: 1234\n", 1)]
    text = "apiVersion: v1\nkind: List\nitems:\n" + "".join(
        "- " + doc.replace("\n", "\n  ").rstrip() + "\n" for doc in items)
    findings = lint_text(text, name="dump.yaml")
    assert [(f.rule, f.severity.value) for f in findings] == [("wiring-custom-configmap", "warning")]


@pytest.mark.parametrize("path", sorted((REPO / "gen" / "data" / "k3s").glob("*.yaml")),
                         ids=lambda p: p.name)
def test_k3s_manifests_meet_the_contract(path: Path) -> None:
    """k3s creates no coredns-custom (its volume is optional): lint says that was not judged."""
    assert [(f.rule, f.severity.value) for f in run_lint([path])] == [("wiring-custom-configmap", "info")]


def test_k3s_manifest_with_subpath_is_refused(tmp_path: Path) -> None:
    text = (REPO / "gen/data/k3s/k3s-v1.34.9+k3s1-coredns.yaml").read_text()
    broken = text.replace("          mountPath: /etc/coredns/custom\n",
                          "          mountPath: /etc/coredns/custom\n          subPath: x.server\n")
    (tmp_path / "k3s.yaml").write_text(broken)
    assert [f for f in summary(run_lint([tmp_path / "k3s.yaml"])) if f[2] != "info"] == [("wiring-mount-subpath", 141, "error")]


def test_corefile_alone_has_no_wiring_findings(lint_text: Callable[..., list[Finding]]) -> None:
    assert lint_text(".:53 {\n    errors\n}\n") == []
