"""Values cannot change what a Corefile means: each is lexed as CoreDNS would lex it.

Every refusal: the exact `file:line:col: key: problem — fix` line, exit 2, and no file changed.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from gen.cli import app
from tests.helpers import render_refused

TALOS = "cluster: prod\nplatform: talos\nplatformVersion: v1.13.9\nupstream:\n  resolvers: [10.96.0.53]\n"
K3S = "cluster: k\nplatform: k3s\nplatformVersion: v1.34.9+k3s1\n"
AKS = "cluster: a\nplatform: aks\nplatformVersion: '1.34'\n"
LONG = ".".join(["a" * 60] * 5)  # 304 characters
SHOWN_LONG = repr(LONG[:80]) + "… (304 characters)"

ADDRESS_FIX = "write an IP address or IP:port, e.g. 10.0.0.10 or 10.0.0.10:5353"
ZONE_ID = ("has an IPv6 zone id ({}), which names a network interface of one machine, not an address every CoreDNS pod "
           "can reach — fix: drop the '%…' part and give the global or unique-local IPv6 address, e.g. fd00::53")
AKS_ROOT = ("aks 1.34 imports *.override after its own forward, so this forward is never reached "
            "— fix: forward specific domains with a `zones:` entry instead")
TOO_LONG = ("is longer than a DNS name can be: at most 253 characters (255 octets on the wire); no query can reach a longer "
            "zone, and from 255 characters CoreDNS refuses the file (\"specified zone is too long\") — fix: shorten it: at most 253 "
            "characters, 63 between dots")
FORWARD_MAX = ("CoreDNS allows at most 15 in one forward (\"more than 15 TOs configured\") — fix: list at most 15 together "
               "with the fallback, which shares this forward")
KEY_FIX = ("write an optional DNS prefix and '/', then at most 63 letters, digits, '-', '_' or '.' that start and end with "
           "a letter or digit, e.g. team or example.com/team")
VALUE_FIX = "use at most 63 letters, digits, '-', '_' or '.' that start and end with a letter or digit (or leave it empty)"
INJECTION = "which would end the default server block early (Corefile injection) — fix: remove the stray '}'"
SIZE_FIX = "shorten or drop the values that fill it; this part of the file holds the most"


def _list(items: list[str]) -> str:
    return "[" + ", ".join(items) + "]"


CASES: dict[str, tuple[str, list[str]]] = {
    # IPv6 zone ids: `ipaddress` takes any text after `%`, spaces and `#` included.
    "zone-id-adds-an-upstream": (
        TALOS.replace("[10.96.0.53]", "['fe80::1%x 127.0.0.2:5301']"),
        ["v.yaml:5:15: upstream.resolvers[0]: 'fe80::1%x 127.0.0.2:5301' would be 2 Corefile tokens ('fe80::1%x', "
         f"'127.0.0.2:5301'), not one — fix: {ADDRESS_FIX}"],
    ),
    "zone-id-comments-the-line-out": (
        TALOS.replace("[10.96.0.53]", "['fe80::1%x #']"),
        [f"v.yaml:5:15: upstream.resolvers[0]: 'fe80::1%x #' would reach CoreDNS as 'fe80::1%x' ('#' starts a comment) — fix: {ADDRESS_FIX}"],
    ),
    "zone-id-forty-upstreams": (
        TALOS.replace("[10.96.0.53]", "['fe80::1%x " + " ".join(f"10.0.0.{i}" for i in range(1, 41)) + "']"),
        ["v.yaml:5:15: upstream.resolvers[0]: 'fe80::1%x 10.0.0.1 10.0.0.2 10.0.0.3 10.0.0.4 10.0.0.5 10.0.0.6 10.0.0.7 "
         f"10.0.0.'… (400 characters) would be 41 Corefile tokens ('fe80::1%x', '10.0.0.1', '10.0.0.2', …), not one — fix: {ADDRESS_FIX}"],
    ),
    "zone-id": (
        TALOS.replace("[10.96.0.53]", "['fe80::1%eth0', '[fe80::1%eth0]:53']")
        + "zones:\n  - zone: corp.example\n    upstreams: ['fd00::1%1']\n",
        ["v.yaml:5:15: upstream.resolvers[0]: 'fe80::1%eth0' " + ZONE_ID.format("'%eth0'"),
         "v.yaml:5:31: upstream.resolvers[1]: '[fe80::1%eth0]:53' " + ZONE_ID.format("'%eth0'"),
         "v.yaml:8:17: zones[0].upstreams[0]: 'fd00::1%1' " + ZONE_ID.format("'%1'")],
    ),
    # Braces as the lexer sees them: `# {` is a comment, the `}` after it ends the default block.
    "override-braces-behind-comments": (
        K3S + "overrides:\n  - name: evil\n    lines: ['# {', '}', 'evil.test:53 {', 'forward . 6.6.6.6', '# }']\n",
        ["v.yaml:6:20: overrides[0].lines[1]: closes a block it did not open (as CoreDNS reads the lines: text after '#' "
         f"is a comment), {INJECTION}"],
    ),
    "override-unclosed-after-comment": (
        K3S + "overrides:\n  - name: log\n    lines: ['log { # }']\n",
        ["v.yaml:6:5: overrides[0].lines: leaves 1 block(s) open (as CoreDNS reads the lines: text after '#' is a comment) "
         "— fix: close every '{' with a '}' line inside the same override"],
    ),
    "override-brace-on-a-directive-line": (
        AKS + "overrides:\n  - name: log\n    lines: ['log }']\n",
        [f"v.yaml:6:13: overrides[0].lines[0]: closes a block it did not open, {INJECTION}"],
    ),
    "override-quotes": (
        K3S + "overrides:\n  - name: q\n    lines: ['log \"a', 'b\"']\n  - name: r\n    lines: ['errors \"x']\n",
        ['v.yaml:6:13: overrides[0].lines[0]: opens a quoted token that runs onto the next line — fix: close the `"` on the same line',
         "v.yaml:8:13: overrides[1].lines[0]: opens a '\"' it never closes, which would swallow the rest of the Corefile "
         '— fix: close the quoted text on the same line with `"`'],
    ),
    # The root forward, however CoreDNS lets it be spelled (it normalises the FROM zone).
    "aks-root-forward-spellings": (
        AKS + "overrides:\n  - name: fwd\n    lines: ['forward .:53 1.1.1.1', 'forward dns://. 1.1.1.1', "
        "'forward tls://.:853 1.1.1.1', 'forward \"dns://.:53\" 1.1.1.1', 'forward corp.example 10.0.0.1']\n",
        [f"v.yaml:6:{col}: overrides[0].lines[{i}]: {AKS_ROOT}" for i, col in enumerate([13, 37, 64, 95])],
    ),
    "k3s-old-order-root-forward-spelled-otherwise": (
        "cluster: k\nplatform: k3s\nplatformVersion: v1.32.9+k3s1\ncorednsVersion: 1.12.3\n"
        "overrides:\n  - name: fwd\n    lines: ['forward dns://.:53 1.1.1.1']\n",
        ["v.yaml:7:13: overrides[0].lines[0]: k3s v1.32.9+k3s1 imports *.override after its own forward, so this forward "
         "is never reached — fix: upgrade k3s to v1.32.10+, v1.33.6+, v1.34.2+ or v1.35+, which import *.override before their own "
         "forward (k3s PR #12980); until then forward specific domains with `zones:`"],
    ),
    # Limits CoreDNS and Kubernetes enforce.
    "zone-too-long": (
        TALOS + f"zones:\n  - zone: {LONG}\n    upstreams: [10.0.0.2]\n  - zone: {'b' * 64}.example\n    upstreams: [10.0.0.2]\n",
        [f"v.yaml:7:11: zones[0].zone: {SHOWN_LONG} {TOO_LONG}",
         f"v.yaml:9:11: zones[1].zone: '{'b' * 64}.example' has a label of 64 characters; DNS labels have "
         "at most 63 — fix: shorten it: at most 253 characters, 63 between dots"],
    ),
    "cluster-domain-too-long": (TALOS + f"clusterDomain: {LONG}\n", [f"v.yaml:6:16: clusterDomain: {SHOWN_LONG} {TOO_LONG}"]),
    "aks-zone-key-too-long": (
        AKS + f"zones:\n  - zone: {'.'.join(['a' * 60] * 4)}.abcdef\n    upstreams: [10.0.0.2]\n",
        [f"v.yaml:5:11: zones[0].zone: the coredns-custom key {'a' * 40}….server would be 257 characters; Kubernetes allows "
         "at most 253 in a ConfigMap key — fix: use a zone of at most 246 characters"],
    ),
    "more-than-15-upstreams-per-forward": (
        TALOS.replace("[10.96.0.53]", _list([f"10.0.0.{i}" for i in range(1, 15)]) + "\n  fallback: [10.0.1.1, 10.0.1.2]")
        + "zones:\n  - zone: corp.example\n    upstreams: " + _list([f"10.0.2.{i}" for i in range(1, 11)])
        + "\n    fallback: " + _list([f"10.0.3.{i}" for i in range(1, 7)]) + "\n",
        [f"v.yaml:5:3: upstream.resolvers: the forward would list 16 upstreams (14 here + 2 fallback); {FORWARD_MAX}",
         f"v.yaml:9:5: zones[0].upstreams: the forward would list 16 upstreams (10 here + 6 fallback); {FORWARD_MAX}"],
    ),
    "fifteen-resolvers-and-the-default-fallback": (
        TALOS.replace("[10.96.0.53]", _list([f"10.0.0.{i}" for i in range(1, 16)])),
        [f"v.yaml:5:3: upstream.resolvers: the forward would list 16 upstreams (15 here + 1 fallback); {FORWARD_MAX}"],
    ),
    "alert-labels": (
        K3S + "alert:\n  enabled: true\n  labels:\n    '}{ x': y\n    team: 'a b'\n    example.com/tier: '" + "v" * 64
        + "'\n    Bad_Prefix/x: y\n    a/b/c: y\n    '/x': y\n    ok.example/fine-1: fine_2.x\n",
        ["v.yaml:7:5: alert.labels: label key '}{ x' has a name with characters other than letters, digits, '-', '_' and "
         f"'.' or that does not start and end with a letter or digit — fix: {KEY_FIX}",
         "v.yaml:8:11: alert.labels.team: label value 'a b' has characters other than letters, digits, '-', '_' and '.' "
         f"or does not start and end with a letter or digit — fix: {VALUE_FIX}",
         f"v.yaml:9:23: alert.labels.example.com/tier: label value '{'v' * 64}' is 64 characters long; at most 63 — fix: {VALUE_FIX}",
         "v.yaml:10:5: alert.labels: label key 'Bad_Prefix/x' has a prefix 'Bad_Prefix' that is not a DNS subdomain "
         f"(lower case, at most 253 characters) — fix: {KEY_FIX}",
         f"v.yaml:11:5: alert.labels: label key 'a/b/c' has more than one '/' — fix: {KEY_FIX}",
         f"v.yaml:12:5: alert.labels: label key '/x' has an empty prefix before '/' — fix: {KEY_FIX}"],
    ),
    "configmap-over-1-mib": (
        K3S + "overrides:\n  - name: big\n    lines:\n      - log\n      - '# " + "x" * 1_100_000 + "'\n",
        ["v.yaml:8:9: overrides[0].lines[1]: the rendered ConfigMap kube-system/coredns-custom "
         "(overlays/k3s/k/coredns-custom-configmap.yaml) would hold 1,100,019 bytes of data; Kubernetes stores at most "
         f"1,048,576 (1 MiB) in one ConfigMap — fix: {SIZE_FIX}"],
    ),
    "flux-object-over-1-mib": (
        TALOS + "flux:\n  source:\n    kind: GitRepository\n    url: https://example.com/dns.git\n    ref:\n"
        "      branch: '" + "b" * 1_100_000 + "'\n",
        ["v.yaml:11:15: flux.source.ref.branch: the rendered GitRepository flux-system/coredns-prod "
         "(clusters/prod/coredns.yaml) would hold 1,100,209 bytes; Kubernetes stores at most 1,048,576 (1 MiB) in one "
         f"GitRepository — fix: {SIZE_FIX}"],
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_values_that_would_change_a_corefile_are_refused(name: str, tmp_path: Path) -> None:
    text, expected = CASES[name]
    assert render_refused(tmp_path, text) == expected


def _render(tmp_path: Path, text: str) -> str:
    (tmp_path / "v.yaml").write_text(text)
    result = CliRunner().invoke(app, ["render", "--repo", str(tmp_path), str(tmp_path / "v.yaml")])
    assert result.exit_code == 0, result.stderr
    return "".join(p.read_text() for p in sorted((tmp_path / "overlays").rglob("*.yaml")))


def test_braces_inside_comments_and_quotes_are_no_braces(tmp_path: Path) -> None:
    """`log {` / `# }` / `}` is one balanced block: the `}` after `#` is a comment, as in CoreDNS."""
    text = _render(tmp_path, K3S + "overrides:\n  - name: log\n    lines: ['log {', '# }', '}', 'errors # {', "
                                   "'template ANY ANY { rcode NXDOMAIN }']\n")
    assert "log.override: |\n    log {\n    # }\n    }\n    errors # {\n    template ANY ANY { rcode NXDOMAIN }\n" in text


def test_limits_themselves_are_accepted(tmp_path: Path) -> None:
    """15 upstreams in a forward, a 253-character zone with 63-character labels, Kubernetes-valid labels."""
    zone = ".".join(["a" * 63] * 3 + ["b" * 61])
    resolvers = _list([f"10.0.0.{i}" for i in range(1, 15)])
    text = _render(tmp_path, TALOS.replace("[10.96.0.53]", resolvers) + f"zones:\n  - zone: {zone}\n    upstreams: [10.0.0.2]\n")
    assert f"forward . {' '.join(f'10.0.0.{i}' for i in range(1, 15))} /etc/resolv.conf {{" in text
    assert f"{zone}:53 {{" in text
    text = _render(tmp_path, K3S + "alert:\n  enabled: true\n  labels: {ok.example/fine-1: fine_2.x, team: '', "
                                   f"{'n' * 63}: {'v' * 63}}}\n")
    assert "ok.example/fine-1: fine_2.x" in text and f"{'n' * 63}: {'v' * 63}" in text


def test_a_size_problem_points_at_the_part_of_the_file_that_fills_the_object() -> None:
    from gen.render.render_check import largest_part

    many_zones = {"cluster": "c", "zones": [{"zone": f"z{i}.example", "upstreams": ["10.0.0.1"]} for i in range(500)]}
    assert largest_part(many_zones) == ["zones"]  # no one zone holds the bytes: the list does
    one_line = {"cluster": "c", "overrides": [{"name": "a", "lines": ["log"]}, {"name": "b", "lines": ["log", "x" * 999]}]}
    assert largest_part(one_line) == ["overrides", 1, "lines", 1]
