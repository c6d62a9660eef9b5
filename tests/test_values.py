"""Bad values files: exact `file:line:col: key: problem — fix` lines, exit 2, nothing written."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

import pytest
from typer.testing import CliRunner

from gen.cli import app
from gen.render.values import normal_posix
from tests.helpers import render_refused

GOOD_TALOS = """\
cluster: prod
platform: talos
platformVersion: v1.13.9
upstream:
  resolvers: [10.96.0.53]
"""

EXPECTED_LINE_BREAKS = [  # a trailing line break must fail like any other: JSON Schema's `$` ends the input
    "v.yaml:1:10: cluster: 'prod\\n' is not a DNS-1123 label — fix: use lower-case letters, digits and '-', at most 63 characters, e.g. prod-talos",
    "v.yaml:6:14: upstream.fallback[0]: '/etc/resolv.conf\\n' is not a plain file path — fix: use an absolute path such as /etc/resolv.conf",
    "v.yaml:8:11: zones[0].zone: 'corp.example.com\\n' is not a plain DNS zone name (spaces, braces, quotes, newlines and {$…} placeholders would inject Corefile syntax) — fix: use dot-separated labels of letters, digits, '-' and '_', e.g. corp.example.com",
    "v.yaml:9:17: zones[0].upstreams[0]: port '٥٣' is not a number — fix: write an IP address or IP:port, e.g. 10.0.0.10 or 10.0.0.10:5353",
    "v.yaml:11:11: flux.output: 'clusters/a\\nb/coredns.yaml' contains a line break — fix: write it on one line, without control characters",
    "v.yaml:12:9: flux.path: './overlays/talos/prod\\u2028' contains a line break — fix: write it on one line, without control characters",
    "v.yaml:13:9: flux.name: 'a\\x07' is not a DNS-1123 name — fix: use e.g. coredns",
]

CASES = {
    "unknown-platform": (
        "cluster: prod\nplatform: bsd\nplatformVersion: v1.0.0\n",
        ["v.yaml:2:11: platform: 'bsd' is not one of talos, k3s, aks, rke2, eks, kubeadm, gardener — fix: use one of talos, k3s, aks, rke2, eks, kubeadm, gardener"],
    ),
    "unknown-talos-version": (
        GOOD_TALOS.replace("v1.13.9", "v1.7.2"),
        ["v.yaml:3:18: platformVersion: unknown Talos version v1.7.2 — fix: use one of v1.8.x, v1.9.x, v1.10.x, v1.11.x, "
         "v1.12.x, v1.13.x, v1.14.x (the Corefile Talos generates is vendored per minor release)"],
    ),
    "unknown-aks-version": (
        "cluster: a\nplatform: aks\nplatformVersion: '1.20'\n",
        ["v.yaml:3:18: platformVersion: unknown AKS Kubernetes version 1.20 — fix: use one of 1.32, 1.33, 1.34, 1.35, 1.36"],
    ),
    "malformed-ip-and-port": (
        GOOD_TALOS.replace("[10.96.0.53]", "[10.96.0.53:530000, 10.0.0.256, 'fd00::1:99999']"),
        ["v.yaml:5:15: upstream.resolvers[0]: port 530000 is out of range — fix: use 1–65535, e.g. 10.0.0.10 or 10.0.0.10:5353",
         "v.yaml:5:34: upstream.resolvers[1]: '10.0.0.256' is not an IP address — fix: write an IP address or IP:port, e.g. 10.0.0.10 or 10.0.0.10:5353",
         "v.yaml:5:46: upstream.resolvers[2]: 'fd00::1:99999' is not an IP address — fix: write an IP address or IP:port, e.g. 10.0.0.10 or 10.0.0.10:5353"],
    ),
    "zone-injection": (
        GOOD_TALOS + "zones:\n  - zone: 'a.com {'\n    upstreams: [10.0.0.1]\n  - zone: \"b.com\\n}\"\n    upstreams: [10.0.0.1]\n"
        "  - zone: '{$HOME}'\n    upstreams: [10.0.0.1]\n  - zone: 'x y.com'\n    upstreams: [10.0.0.1]\n",
        [f"v.yaml:{line}:11: zones[{i}].zone: {value} is not a plain DNS zone name (spaces, braces, quotes, newlines and {{$…}} "
         "placeholders would inject Corefile syntax) — fix: use dot-separated labels of letters, digits, '-' and '_', e.g. corp.example.com"
         for i, (line, value) in enumerate([(7, "'a.com {'"), (9, "'b.com\\n}'"), (11, "'{$HOME}'"), (13, "'x y.com'")])],
    ),
    "line-breaks-and-control-characters": (
        'cluster: "prod\\n"\nplatform: talos\nplatformVersion: v1.13.9\nupstream:\n  resolvers: [10.96.0.53]\n'
        '  fallback: ["/etc/resolv.conf\\n"]\nzones:\n  - zone: "corp.example.com\\n"\n    upstreams: ["10.0.0.1:\u0665\u0663"]\n'
        'flux:\n  output: "clusters/a\\nb/coredns.yaml"\n  path: "./overlays/talos/prod\\u2028"\n  name: "a\\x07"\n',
        EXPECTED_LINE_BREAKS,
    ),
    "duplicate-key": (
        GOOD_TALOS + "cluster: other\n",
        ['v.yaml:6:1: invalid YAML: found duplicate key "cluster" with value "other" (original value: "prod") — fix: YAML forbids repeating a key; keep one'],
    ),
    "alias-bomb": (
        "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
        "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: [*d, *d, *d, *d, *d, *d, *d, *d, *d]\n",
        ["v.yaml:1:4: anchors and aliases are not supported in values files — fix: write the values out in full"],
    ),
    "not-a-mapping": (
        "- cluster: prod\n",
        ["v.yaml:1:1: the document is a list, not a mapping — fix: start with `cluster:`, `platform:` and `platformVersion:` keys"],
    ),
    "wrong-types": (
        "cluster: 7\nplatform: talos\nplatformVersion: v1.13.9\nupstream:\n  resolvers: 10.0.0.1\nzones: {}\n",
        ["v.yaml:1:10: cluster: expected a string, got an integer — fix: use lower-case letters, digits and '-', at most 63 characters, e.g. prod-talos",
         "v.yaml:5:14: upstream.resolvers: expected a list, got a string — fix: write a list",
         "v.yaml:6:1: zones: expected a list, got a mapping — fix: write a list"],
    ),
    "empty-file": ("\n# only a comment\n", ["v.yaml:1:1: file is empty — fix: start from `coredns-gen new --platform talos --cluster NAME`"]),
    "next-needs-1.11.4": (
        GOOD_TALOS.replace("v1.13.9", "v1.8.4"),
        ["v.yaml:3:18: platformVersion: CoreDNS 1.11.3 (talos v1.8.4's default) does not support forward `next` (added in 1.11.4); "
         "the fallback stanza would make CoreDNS refuse the whole Corefile — fix: upgrade to Talos v1.9 or later (CoreDNS ≥ 1.12.0), "
         "or, if you pinned a newer CoreDNS image with cluster.coreDNS.image, set `corednsVersion:` to that tag (≥ 1.11.4)"],
    ),
    "aks-root-forward-override": (
        "cluster: a\nplatform: aks\nplatformVersion: '1.34'\noverrides:\n  - name: fwd\n    lines:\n      - forward . 8.8.8.8\n",
        ["v.yaml:7:9: overrides[0].lines[0]: aks 1.34 imports *.override after its own forward, so this forward is never "
         "reached — fix: forward specific domains with a `zones:` entry instead"],
    ),
    "k3s-old-order-upstream": (
        "cluster: k\nplatform: k3s\nplatformVersion: v1.32.9+k3s1\ncorednsVersion: 1.12.3\nupstream:\n  resolvers: [10.0.0.1]\n",
        ["v.yaml:5:1: upstream: k3s v1.32.9+k3s1 imports *.override after its own forward, so this forward is never reached — "
         "fix: upgrade k3s to v1.32.10+, v1.33.6+, v1.34.2+ or v1.35+, which import *.override before their own forward (k3s PR #12980); "
         "until then forward specific domains with `zones:`"],
    ),
    "unknown-key-typo": (
        GOOD_TALOS + "clusterDomian: corp.local\n",
        ["v.yaml:6:1: clusterDomian: unknown key 'clusterDomian' — fix: did you mean 'clusterDomain'?"],
    ),
    "override-breaks-out-of-block": (
        "cluster: k\nplatform: aks\nplatformVersion: '1.34'\noverrides:\n  - name: evil\n    lines: ['}', 'evil.com {']\n",
        ["v.yaml:6:13: overrides[0].lines[0]: closes a block it did not open, which would end the default server block early "
         "(Corefile injection) — fix: remove the stray '}'"],
    ),
    "zone-shadows-cluster-domain": (
        GOOD_TALOS + "zones:\n  - zone: svc.cluster.local\n    upstreams: [10.0.0.1]\n",
        ["v.yaml:7:11: zones[0].zone: zone svc.cluster.local would shadow the cluster's own records: it is within cluster.local., "
         "which the kubernetes plugin serves, and CoreDNS would send those queries to this zone's upstreams — fix: pick a zone "
         "outside cluster.local, in-addr.arpa and ip6.arpa (neither equal to, within, nor containing them)"],
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_values_are_refused_with_exact_lines(name: str, tmp_path: Path) -> None:
    text, expected = CASES[name]
    assert render_refused(tmp_path, text) == expected


def test_missing_file(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["render", "--repo", str(tmp_path), str(tmp_path / "nope.yaml")])
    assert result.exit_code == 2
    assert result.stderr == "nope.yaml: file not found — fix: check the path; run `coredns-gen new` to start one\n"


def test_problems_of_every_file_are_reported_together(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(CASES["unknown-platform"][0])
    (tmp_path / "b.yaml").write_text(CASES["empty-file"][0])
    result = CliRunner().invoke(app, ["render", "--repo", str(tmp_path), str(tmp_path / "a.yaml"), str(tmp_path / "b.yaml")])
    assert result.exit_code == 2
    assert [line.split(":")[0] for line in result.stderr.splitlines()] == ["a.yaml", "b.yaml"]


def test_fast_schema_gate_agrees_with_jsonschema_on_every_case() -> None:
    """The fastjsonschema gate may only skip jsonschema when jsonschema would find nothing."""
    from gen.render.values import _CHECKER
    from gen.yamlio import UnprintableScalarError, load_fast
    from tests.conftest import REPO_ROOT
    from tests.test_yamlio import _ruamel

    texts = [text for text, _ in CASES.values()] + [p.read_text() for p in REPO_ROOT.glob("examples/*.yaml")]
    texts += [p.read_text() for p in REPO_ROOT.glob("tests/cases/*/values.yaml")]
    texts += [GOOD_TALOS + extra for extra in ("autoscaling: {minReplicas: true}\n", "alert: {enabled: 1}\n",
                                               "zones: [{zone: a.b, upstreams: [1.1.1.1], cache: 1.5}]\n",
                                               "flux: {source: {kind: GitRepository, url: 'https://x', ref: {}}}\n",
                                               "flux: {source: {kind: GitRepository, url: 'https://x', ref: {branch: a, tag: b}}}\n",
                                               "upstream: {resolvers: [a], fallbackOn: [SERVFAIL, SERVFAIL]}\n",
                                               'clusterDomain: "corp.local\\n"\n', 'corednsVersion: "1.12.0\\n"\n',
                                               'zones: [{zone: "a.b\\n", upstreams: [1.1.1.1]}]\n')]
    texts += [GOOD_TALOS.replace("cluster: prod", 'cluster: "prod\\n"')]
    checked = 0
    for text in texts:
        try:
            docs = load_fast(text)
        except UnprintableScalarError:
            docs = [_ruamel(text)]  # line breaks in values: exactly what the gate must agree on
        except Exception:
            continue
        for doc in docs:
            fast_ok = True
            try:
                _CHECKER.checker.compile()(doc)
            except Exception:
                fast_ok = False
            assert fast_ok == _CHECKER.checker.validator.is_valid(doc), text
            checked += 1
    assert checked >= 20


@pytest.mark.parametrize(("pattern", "python"), [("^[a-z]+$", "^[a-z]+\\Z"), ("^a\\$b$", "^a\\$b\\Z"), ("^[$]x$", "^[$]x\\Z"),
                                                 ("^(a|b)$|^c$", "^(a|b)\\Z|^c\\Z")])
def test_schema_patterns_keep_ecma_end_of_input(pattern: str, python: str) -> None:
    import re

    from gen.validation import ecma_pattern

    assert ecma_pattern(pattern) == python
    assert not re.search(python, "a\n") and not re.search(python, "c\n")


def test_a_file_the_gate_refuses_is_never_passed_unexplained(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from gen.render.values import _CHECKER

    monkeypatch.setattr(_CHECKER.checker, "is_valid", lambda document: False)
    monkeypatch.setattr(_CHECKER.checker, "iter_errors", lambda document: iter(()))
    (tmp_path / "v.yaml").write_text(GOOD_TALOS)
    result = CliRunner().invoke(app, ["render", "--repo", str(tmp_path), str(tmp_path / "v.yaml")])
    assert result.exit_code == 2
    assert result.stderr == "v.yaml: fails the values schema, but no check could say where — fix: this is a coredns-gen bug; please report it with the file\n"


def test_a_tab_in_an_override_line_is_fine(tmp_path: Path) -> None:
    """Tabs indent Corefile lines; only line breaks and other control characters are refused."""
    (tmp_path / "v.yaml").write_text("cluster: k\nplatform: aks\nplatformVersion: '1.34'\noverrides:\n  - name: log\n"
                                     "    lines: [\"log {\", \"\\tclass error\", \"}\"]\n")
    result = CliRunner().invoke(app, ["render", "--repo", str(tmp_path), str(tmp_path / "v.yaml")])
    assert result.exit_code == 0, result.stderr
    text = (tmp_path / "overlays/aks/k/coredns-custom-configmap.yaml").read_text()
    assert "log.override" in text and "class error" in text


@pytest.mark.parametrize("name", sorted(CASES))
def test_positions_from_libyaml_agree_with_ruamel(name: str, tmp_path: Path) -> None:
    """A file libyaml reads is explained from libyaml's positions (ruamel is ~50x slower on a
    file with many problems): both must name the same lines, columns and words."""
    from gen.render import values as v
    from gen.document import quick_document
    from gen.yamlio import load_positioned

    text, _ = CASES[name]
    (tmp_path / "v.yaml").write_text(text)
    if quick_document(text) is None:
        pytest.skip("libyaml does not read this one: ruamel explains it")
    fast = v._check(load_positioned(text), "v.yaml", all_printable=True)[1]
    slow = v._check(v.read_document(tmp_path / "v.yaml", "v.yaml", text), "v.yaml")[1]
    assert sorted(map(str, fast)) == sorted(map(str, slow))


@pytest.mark.parametrize("path", ["clusters/prod/coredns.yaml", "a/./b.yaml", "./a.yaml", "a//b.yaml", "a/b/", "a/.", ".", "",
                                  "/abs/x.yaml", "//x.yaml", "///x.yaml", "a/../b.yaml", "a/.b/c.yaml", "a/..", "./", "a/./"])
def test_a_flux_output_is_normalised_as_pathlib_does(path: str) -> None:
    assert normal_posix(path) == str(PurePosixPath(path))
