"""The structural proof (gen.render.structure): rendered Corefiles are parsed back and compared with
what the values asked for; a difference is bad input at the value's line, exit 2, nothing written.

The value checks (gen.render.injection, gen.render.addresses) refuse every hostile value first, so to show the
proof holds on its own these tests switch them off or hand it tampered output.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import pytest
import yaml

from gen import yamlio
from gen.render import addresses, injection, render_check, structure
from gen.platforms import get
from gen.rendered import RenderedFile
from gen.render.cluster import render_cluster
from gen.render.values import load_values, values_from_data
from tests.conftest import REPO_ROOT
from tests.helpers import render_refused
from tests.test_injection import AKS, K3S, TALOS

HINT = ("write the value as plain text that stays one Corefile token (override lines as whole directives); if it already "
        "is, this is a coredns-gen bug: please report it with the values file")
TALOS_CM = "Corefile of ConfigMap kube-system/coredns (overlays/talos/prod/coredns-configmap.yaml)"
K3S_CM = "overlays/k3s/k/coredns-custom-configmap.yaml"
AKS_CM = "overlays/aks/a/coredns-custom-configmap.yaml"


@pytest.fixture
def without_value_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Render as if the values stage let every Corefile-bound value through unlexed."""

    def nothing(*args: Any) -> Iterator[Any]:
        return iter(())

    monkeypatch.setattr(injection, "check", nothing)
    monkeypatch.setattr(addresses, "one_token_problem", lambda text: None)
    monkeypatch.setattr(addresses, "split_address", lambda text: (text, None))


CASES = {
    "an-upstream-that-is-two": (
        TALOS.replace("[10.96.0.53]", "['fe80::1%x 127.0.0.2:5301']"),
        [f"v.yaml:5:15: upstream.resolvers[0]: the rendered {TALOS_CM} would not mean what the values say: CoreDNS would "
         "read `forward . fe80::1%x 127.0.0.2:5301 /etc/resolv.conf {` where the values ask for "
         f"`forward . \"fe80::1%x 127.0.0.2:5301\" /etc/resolv.conf {{` — fix: {HINT}"],
    ),
    "an-upstream-that-comments-the-line-out": (
        TALOS.replace("[10.96.0.53]", "['fe80::1%x #']"),
        [f"v.yaml:5:15: upstream.resolvers[0]: the rendered {TALOS_CM} would not mean what the values say: CoreDNS would "
         f"refuse it: unexpected '}}' with no matching '{{' (line 30 of the rendered text) — fix: {HINT}"],
    ),
    "a-zone-upstream-with-a-brace": (
        TALOS + "zones:\n  - zone: corp.example\n    upstreams: ['10.0.0.1 }']\n",
        [f"v.yaml:8:17: zones[0].upstreams[0]: the rendered {TALOS_CM} would not mean what the values say: CoreDNS would "
         "refuse it: Unexpected '}' because no matching opening brace (line 35 of the rendered text) — fix: " + HINT],
    ),
    "k3s-braces-behind-comments": (
        K3S + "overrides:\n  - name: evil\n    lines: ['# {', '}', 'evil.test:53 {', 'forward . 6.6.6.6', '# }']\n",
        [f"v.yaml:6:20: overrides[0].lines[1]: the rendered coredns-custom key evil.override ({K3S_CM}) would not mean what "
         f"the values say: the lines are no whole directives: unexpected '}}' with no matching '{{' — fix: {HINT}"],
    ),
    "aks-block-left-open": (
        AKS + "overrides:\n  - name: log\n    lines: ['log { # }']\n",
        [f"v.yaml:6:13: overrides[0].lines[0]: the rendered coredns-custom key log.override ({AKS_CM}) would not mean what "
         f"the values say: the lines are no whole directives: '{{' is never closed — fix: {HINT}"],
    ),
    "k3s-upstream-with-a-space": (
        K3S + "upstream:\n  resolvers: ['10.0.0.1 10.0.0.2']\n",
        [f"v.yaml:5:15: upstream.resolvers[0]: the rendered coredns-custom key zzzz-coredns-gen-upstream.override ({K3S_CM}) would not mean "
         "what the values say: CoreDNS would read `forward . 10.0.0.1 10.0.0.2 /etc/resolv.conf {` where the values ask for "
         f"`forward . \"10.0.0.1 10.0.0.2\" /etc/resolv.conf {{` — fix: {HINT}"],
    ),
    "rke2-zone-upstream-that-is-two": (
        "cluster: r\nplatform: rke2\nplatformVersion: v1.34.10+rke2r1\nzones:\n  - zone: corp.example\n"
        "    upstreams: ['fe80::1%x 6.6.6.6']\n",
        ["v.yaml:6:17: zones[0].upstreams[0]: the rendered Corefile rke2 loads from overlays/rke2/r/rke2-coredns-helmchartconfig.yaml "
         "would not mean what the values say: CoreDNS would read `forward . fe80::1%x 6.6.6.6 {` where the values ask for "
         f"`forward . \"fe80::1%x 6.6.6.6\" {{` — fix: {HINT}"],
    ),
    "eks-resolver-that-comments-the-line-out": (
        "cluster: e\nplatform: eks\nplatformVersion: v1.11.1-eksbuild.8\ncorednsVersion: 1.11.4\n"
        "upstream:\n  resolvers: ['fe80::1%x #']\n",
        ["v.yaml:6:15: upstream.resolvers[0]: the rendered Corefile eks loads from overlays/eks/e/coredns-addon-configuration-values.json "
         f"would not mean what the values say: CoreDNS would refuse it: unexpected '}}' with no matching '{{' (line 21 of the "
         f"rendered text) — fix: {HINT}"],
    ),
    "talos-zone-lines-braces-behind-comments": (
        TALOS + "zones:\n  - zone: corp.example\n    upstreams: [10.0.0.1]\n"
        "    lines: ['# {', '}', 'evil.test:53 {', 'forward . 6.6.6.6', '# }']\n",
        ["v.yaml:9:20: zones[0].lines[1]: the rendered server block of zone corp.example would not mean what the values say: "
         f"the lines are no whole directives: unexpected '}}' with no matching '{{' — fix: {HINT}"],
    ),
    "a-flux-variable-beside-a-second-upstream": (  # the proof reads each variable as one placeholder word
        TALOS + "flux:\n  postBuild: {substitute: {GW: 10.0.0.2}}\nzones:\n  - zone: corp.example\n"
        "    upstreams: ['${GW} 6.6.6.6']\n",
        [f"v.yaml:10:17: zones[0].upstreams[0]: the rendered {TALOS_CM} would not mean what the values say: CoreDNS would read "
         f"`forward . flux-variable 6.6.6.6 {{` where the values ask for `forward . \"flux-variable 6.6.6.6\" {{` — fix: {HINT}"],
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_the_proof_refuses_what_the_value_checks_would_have(name: str, tmp_path: Path, without_value_checks: None) -> None:
    text, expected = CASES[name]
    assert render_refused(tmp_path, text) == expected


def _render(example: str) -> tuple[Any, list[RenderedFile]]:
    values = load_values(REPO_ROOT / f"examples/{example}.yaml", repo=REPO_ROOT)
    return values, render_cluster(values)


def _tamper(files: list[RenderedFile], name: str, key: str, change: Any) -> list[RenderedFile]:
    out = []
    for f in files:
        objects = []
        for obj in f.objects:
            if obj.get("kind") == "ConfigMap" and obj["metadata"]["name"] == name:
                obj = {**obj, "data": {**obj["data"], key: change(obj["data"][key])}}
            objects.append(obj)
        out.append(f._replace(objects=tuple(objects)))
    return out


def _origins(values: Any, files: list[RenderedFile]) -> list[tuple[Any, ...]]:
    return [diff.origin for diff, _ in structure.differences(values, files, render_check.owned_corefile(values, files))]


def test_every_example_renders_what_its_values_ask() -> None:
    for example in ("talos", "k3s", "aks", "rke2", "eks"):
        values, files = _render(example)
        assert _origins(values, files) == [], example


OPTIONS = {"maxFails": 3, "expire": "30s", "healthCheck": "5s", "maxConcurrent": 500, "forceTcp": True}


@pytest.mark.parametrize("example", ["talos", "k3s", "aks", "rke2", "eks", "kubeadm", "gardener"])
def test_forward_options_render_what_they_ask_on_every_platform(example: str) -> None:
    """upstream.forward and zones[].forward land in the first stanza on every platform that has
    that stanza (AKS has no upstream); on Talos maxConcurrent replaces the stock Corefile's own."""
    data = yaml.safe_load((REPO_ROOT / f"examples/{example}.yaml").read_text())
    if "upstream" in data:
        data["upstream"]["forward"] = OPTIONS
    data.setdefault("zones", [{"zone": "corp.example", "upstreams": ["10.0.0.1"]}])
    for zone in data["zones"]:
        zone["forward"] = {"preferUdp": True, "maxFails": 0}
    values = values_from_data(data, f"examples/{example}.yaml")
    files = render_cluster(values)
    port = get(example).SERVER_PORT
    assert [d.origin for d, _ in structure.differences(values, files, render_check.owned_corefile(values, files), port)] == []
    text = "".join(yamlio.dump(o) for f in files for o in f.objects)
    assert "max_fails 0" in text and "prefer_udp" in text
    if "upstream" in data:
        assert "max_fails 3" in text and "force_tcp" in text and "max_concurrent 1000" not in text


@pytest.mark.parametrize(("change", "origin"), [
    (lambda t: t.replace("forward . 10.96.0.53 ", "forward . 10.96.0.54 "), ("upstream", "resolvers", 0)),
    (lambda t: t.replace("max_fails 3", "max_fails 30"), ("zones", 0, "forward")),
    (lambda t: t.replace("next SERVFAIL REFUSED", "next SERVFAIL"), ("upstream", "fallbackOn", 1)),
    (lambda t: t.replace("corp.example.com:53", "corp.example.org:53"), ("zones", 0, "zone")),
    (lambda t: t.replace("10.20.0.11", "10.20.0.11 6.6.6.6"), ("zones", 0, "upstreams", 1)),
    (lambda t: t.replace("    loop\n", ""), ()),
    (lambda t: t.replace("kubernetes cluster.local", "kubernetes cluster.evil"), ("clusterDomain",)),
    (lambda t: t + "evil.test:53 {\n    forward . 6.6.6.6\n}\n", ("zones", 0, "zone")),
], ids=["resolver", "zone-option", "fallback-on", "zone-key", "zone-upstream", "stock-directive", "cluster-domain", "extra-block"])
def test_a_talos_corefile_that_says_something_else_is_caught(change: Any, origin: tuple[Any, ...]) -> None:
    values, files = _render("talos")
    assert _origins(values, _tamper(files, "coredns", "Corefile", change)) == [origin]


def test_the_proof_is_about_structure_not_bytes() -> None:
    """Re-indented, commented, blank-lined: the same structure, no difference."""
    values, files = _render("talos")

    def reformat(text: str) -> str:
        return "# a comment {\n" + "\n".join("\t" + line.strip() + "  # }" if line.strip() else "" for line in text.splitlines()) + "\n"

    assert _origins(values, _tamper(files, "coredns", "Corefile", reformat)) == []


@pytest.mark.parametrize(("key", "change", "origin"), [
    ("zzzz-coredns-gen-upstream.override", lambda t: t.replace("192.168.10.54", "192.168.10.55"), ("upstream", "resolvers", 1)),
    ("lab.example.net.server", lambda t: t.replace("cache 60", "cache 61"), ("zones", 0, "cache")),
    ("log-errors.override", lambda t: t + "}\nevil.test:53 {\n", ("overrides", 0, "lines")),
], ids=["upstream-override", "zone-server", "override"])
def test_a_coredns_custom_key_that_says_something_else_is_caught(key: str, change: Any, origin: tuple[Any, ...]) -> None:
    values, files = _render("k3s")
    assert _origins(values, _tamper(files, "coredns-custom", key, change)) == [origin]
