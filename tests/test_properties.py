"""Property: whatever text lands in a values file's string field, render either refuses it
(exit 2, `file:line:col: key: problem — fix` lines, no traceback, nothing written) or writes
Corefiles whose parsed structure is exactly what the values asked for.

The oracle here is independent of gen.render.structure: the rendered coredns-custom keys are spliced
into the platform's main Corefile as text, in place of its import lines (CoreDNS splices the
imported files' tokens there), and the whole is parsed; Talos's Corefile is parsed as written.
Hypothesis runs derandomized with a bounded number of examples, so CI is fast and repeatable.
"""

from __future__ import annotations

import copy
import re
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from gen.cli import app
from gen.corefile import CorefileError, Directive, parse_corefile, parse_directives
from gen.corefile.facts import UPSTREAM_KEY
from gen.platforms import get
from gen.render.values import load_values
from tests.helpers import snapshot_tree

BASES: dict[str, dict[str, Any]] = {
    "talos": {"cluster": "prod", "platform": "talos", "platformVersion": "v1.13.9", "clusterDomain": "cluster.local",
              "upstream": {"resolvers": ["10.0.0.1", "10.0.0.2"], "fallback": ["10.0.0.3"]},
              "zones": [{"zone": "corp.example", "upstreams": ["10.1.0.1"], "fallback": ["10.1.0.2"]}]},
    "k3s": {"cluster": "k", "platform": "k3s", "platformVersion": "v1.34.9+k3s1", "clusterDomain": "cluster.local",
            "upstream": {"resolvers": ["10.0.0.1"]},
            "zones": [{"zone": "corp.example", "upstreams": ["10.1.0.1"]}],
            "overrides": [{"name": "log", "lines": ["log {", "class error", "}"]}, {"name": "rw", "lines": ["rewrite name a.example b.example"]}],
            "alert": {"enabled": True, "severity": "critical", "labels": {"team": "dns"}}},
    "rke2": {"cluster": "r", "platform": "rke2", "platformVersion": "v1.34.10+rke2r1", "clusterDomain": "cluster.local",
             "upstream": {"resolvers": ["10.0.0.1"], "fallback": ["10.0.0.2"]},
             "zones": [{"zone": "corp.example", "upstreams": ["10.1.0.1"]}]},
    "eks": {"cluster": "e", "platform": "eks", "platformVersion": "v1.11.1-eksbuild.8", "corednsVersion": "1.11.4",
            "clusterDomain": "cluster.local", "upstream": {"resolvers": ["10.0.0.1"]},
            "zones": [{"zone": "corp.example", "upstreams": ["10.1.0.1"]}]},
    "aks": {"cluster": "a", "platform": "aks", "platformVersion": "1.34", "clusterDomain": "cluster.local",
            "zones": [{"zone": "corp.example", "upstreams": ["10.1.0.1", "10.1.0.2"]}],
            "overrides": [{"name": "log", "lines": ["log", "errors"]}]},
}
FIELDS: list[tuple[str, tuple[Any, ...]]] = [
    ("talos", ("cluster",)), ("talos", ("clusterDomain",)), ("talos", ("upstream", "resolvers", 0)),
    ("talos", ("upstream", "resolvers", 1)), ("talos", ("upstream", "fallback", 0)), ("talos", ("zones", 0, "zone")),
    ("talos", ("zones", 0, "upstreams", 0)), ("talos", ("zones", 0, "fallback", 0)),
    ("talos", ("flux", "name")), ("talos", ("flux", "path")), ("talos", ("flux", "output")), ("talos", ("flux", "namespace")),
    ("talos", ("flux", "interval")), ("talos", ("corednsVersion",)), ("talos", ("platformVersion",)),
    ("k3s", ("upstream", "resolvers", 0)), ("k3s", ("zones", 0, "zone")), ("k3s", ("zones", 0, "upstreams", 0)),
    ("k3s", ("overrides", 0, "name")), ("k3s", ("overrides", 0, "lines", 0)), ("k3s", ("overrides", 0, "lines", 1)),
    ("k3s", ("overrides", 0, "lines", 2)), ("k3s", ("overrides", 1, "lines", 0)), ("k3s", ("alert", "severity")),
    ("k3s", ("alert", "for")), ("k3s", ("alert", "labels", "team")), ("k3s", ("alert", "labels", "KEY")),
    ("rke2", ("upstream", "resolvers", 0)), ("rke2", ("upstream", "fallback", 0)), ("rke2", ("zones", 0, "zone")),
    ("rke2", ("zones", 0, "upstreams", 0)), ("rke2", ("clusterDomain",)),
    ("eks", ("upstream", "resolvers", 0)), ("eks", ("zones", 0, "zone")), ("eks", ("zones", 0, "upstreams", 0)),
    ("eks", ("clusterDomain",)),
    ("aks", ("zones", 0, "zone")), ("aks", ("zones", 0, "upstreams", 1)), ("aks", ("overrides", 0, "lines", 0)),
    ("aks", ("overrides", 0, "lines", 1)), ("aks", ("overrides", 0, "name")), ("aks", ("clusterDomain",)),
]
# Corefile syntax, YAML's line breaks (NEL, LS, PS), control characters, IPv6 zone ids.
SPECIAL = ' \t\n\r\x0b\x0c\x00\x01\x1f\x7f\x85\xa0\u2028\u2029\u3000{}"\'`#%;:,./\\[]()$*@!?=+-_'
CHARS = st.one_of(st.sampled_from(SPECIAL), st.sampled_from("abcz019.-"), st.characters(codec="utf-8"))
NEAR = ["10.0.0.9", "fe80::1", "fe80::1%", "fe80::1%x ", "[fd00::1]:53", "corp.example", "log", "forward .", "forward .:53 1.1.1.1", "}", "{",
        "cache 30 {", "errors", "/etc/resolv.conf", "team", "ok.example/x"]
TEXT = st.one_of(st.text(CHARS, max_size=24), st.text(st.sampled_from('ab .{}#"\t%'), max_size=16),
                 st.builds(lambda base, tail: base + tail, st.sampled_from(NEAR), st.text(CHARS, max_size=12)),
                 st.builds(lambda head, base: head + base, st.text(CHARS, max_size=8), st.sampled_from(NEAR)))
PROBLEM_LINE = re.compile(r"^v\.yaml(:\d+(:\d+)?)?: (\S[^:]*: )?.+ — fix: .+$")


def _set(data: dict[str, Any], path: tuple[Any, ...], value: str) -> None:
    node: Any = data
    for part in path[:-1]:
        node = node.setdefault(part, {}) if isinstance(part, str) else node[part]
    if path[-1] == "KEY":  # a label key, not a value
        node[value] = "x"
    else:
        node[path[-1]] = value


def _shape(d: Directive) -> tuple[Any, ...]:
    return (d.name, tuple(d.args), None if d.block is None else tuple(_shape(x) for x in d.block))


def _forwards(to: list[str], fallback: list[str], on: list[str], policy: str) -> list[tuple[Any, ...]]:
    if not fallback:
        return [("forward", (".", *to), (("policy", (policy,), None),))]
    return [("forward", (".", *to, *fallback), (("policy", (policy,), None), ("next", tuple(on), None))),
            ("forward", (".", *fallback), None)]


def _zone(z: Any) -> tuple[Any, ...]:
    body = [("errors", (), None), *([("cache", (str(z.cache),), None)] if z.cache else [])]
    return ((f"{z.zone}:53",), tuple(body + _forwards(list(z.upstreams), list(z.fallback), list(z.fallback_on), z.policy)))


def _asked_and_rendered(values: Any, root: Path) -> tuple[list[Any], list[Any]]:
    """(the structure the values ask for, the structure of what was rendered), as tuples."""
    folder = root / values.overlay_dir
    platform = get(values.platform)
    if values.platform in ("talos", "rke2", "eks"):  # the whole Corefile is ours (as written, or as the platform loads it)
        if values.platform == "talos":
            text = yaml.safe_load((folder / "coredns-configmap.yaml").read_text())["data"]["Corefile"]
        else:
            text = platform.main_corefile(values)
        got = parse_corefile(text, filename="Corefile").server_blocks
        default = [d for d in got[0].directives if d.name != "forward"]
        stock = parse_corefile(platform.main_corefile(values._replace(upstream=None, zones=())), filename="stock").server_blocks[0]
        up = values.upstream
        asked = [(tuple(stock.keys), tuple(_shape(d) for d in stock.directives if d.name != "forward"),
                  tuple(_forwards(list(up.resolvers), list(up.fallback), list(up.fallback_on), "sequential"))),
                 *(_zone(z) + ((),) for z in values.zones)]
        rendered = [(tuple(got[0].keys), tuple(_shape(d) for d in default),
                     tuple((d.name, tuple(d.args), tuple((x.name, tuple(x.args), None) for x in d.block or [] if x.name in ("policy", "next"))
                            if d.block is not None else None) for d in got[0].directives if d.name == "forward")),
                    *((tuple(b.keys), tuple(_shape(d) for d in b.directives), ()) for b in got[1:])]
        return asked, rendered
    doc = yaml.safe_load((folder / "coredns-custom-configmap.yaml").read_text())
    data: dict[str, str] = doc["data"]
    main = platform.main_corefile(values)
    lines = []
    for line in main.splitlines():  # splice as CoreDNS does: the imported files' text in place of the import
        if re.fullmatch(r"\s*import \S*\*\.override\s*", line):
            lines += [data[k] for k in sorted(data) if k.endswith(".override")]
        elif re.fullmatch(r"\s*import \S*\*\.server\s*", line):
            lines += [data[k] for k in sorted(data) if k.endswith(".server")]
        else:
            lines.append(line + "\n")
    got = parse_corefile("".join(lines), filename="spliced").server_blocks
    stock = parse_corefile(main, filename="stock").server_blocks
    overrides: dict[str, list[tuple[Any, ...]]] = {
        f"{o.name}.override": [_shape(d) for d in parse_directives("\n".join(o.lines), filename="x")] for o in values.overrides}
    if values.upstream is not None:
        up = values.upstream
        overrides[UPSTREAM_KEY] = _forwards(list(up.resolvers), list(up.fallback), list(up.fallback_on), "sequential")[:1]
    asked = []
    for block in stock:
        body: list[tuple[Any, ...]] = []
        for d in block.directives:
            if d.name == "import" and d.args[0].endswith("*.override"):
                body += [shape for key in sorted(overrides) for shape in overrides[key]]
            elif d.name != "import":
                body.append(_shape(d))
        asked.append((tuple(block.keys), tuple(body)))
    asked += sorted((_zone(z) for z in values.zones), key=lambda b: f"{b[0][0][:-3]}.server")
    return asked, [(tuple(b.keys), tuple(_shape(d) for d in b.directives)) for b in got]


@settings(max_examples=300, deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(field=st.sampled_from(FIELDS), text=TEXT)
@example(field=("talos", ("upstream", "resolvers", 0)), text="fe80::1%x 127.0.0.2:5301")  # the hostile cases
@example(field=("talos", ("upstream", "resolvers", 0)), text="fe80::1%x #")
@example(field=("k3s", ("overrides", 0, "lines", 0)), text="# {")
@example(field=("aks", ("overrides", 0, "lines", 0)), text="forward dns://. 1.1.1.1")
@example(field=("talos", ("zones", 0, "zone")), text=".".join(["a" * 60] * 5))
def test_any_text_in_any_field_is_refused_or_means_what_it_says(field: tuple[str, tuple[Any, ...]], text: str) -> None:
    platform, path = field
    data = copy.deepcopy(BASES[platform])
    _set(data, path, text)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "v.yaml").write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
        before = snapshot_tree(root)
        result = CliRunner().invoke(app, ["render", "--repo", str(root), str(root / "v.yaml")])
        assert result.exit_code in (0, 2), (result.exit_code, result.output, result.exception)
        assert "Traceback" not in result.output
        if result.exit_code == 2:
            assert snapshot_tree(root) == before
            problems = result.stderr.splitlines()
            assert problems and all(PROBLEM_LINE.match(p) for p in problems), problems
            return
        try:
            asked, rendered = _asked_and_rendered(load_values(root / "v.yaml", repo=root), root)
        except CorefileError as err:
            pytest.fail(f"rendered with exit 0, but the Corefile CoreDNS would load does not parse: {err}")
        assert rendered == asked


BASES["gardener"] = {"cluster": "g", "platform": "gardener", "platformVersion": "1.34", "corednsVersion": "1.14.7",
                     "clusterDomain": "cluster.local", "upstream": {"resolvers": ["10.0.0.53"]},
                     "overrides": [{"name": "log", "lines": ["log"]}]}
# Measured in CoreDNS 1.13.1: inside a quoted token CoreDNS's lexer takes `\` and the next
# character as a pair, so `"\\"` ends at its third character; these lines closed the default server
# block and opened a `com.` block forwarding every .com name to 6.6.6.6, and rendered with exit 0
# (the last line's `}` is the one our old lexer saw close `com {`; CoreDNS's import closes it).
INJECTION = ['log "\\\\" " { "\\\\""', "}", "com {", "forward . 6.6.6.6", 'log "\\\\" " } "\\\\""']
LINE = st.one_of(TEXT, st.sampled_from(INJECTION), st.text(st.sampled_from('a \\"{}#'), max_size=12))


@settings(max_examples=150, deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(platform=st.sampled_from(["k3s", "aks", "gardener"]), lines=st.lists(LINE, min_size=1, max_size=5))
@example(platform="k3s", lines=INJECTION)
@example(platform="aks", lines=INJECTION)
@example(platform="gardener", lines=INJECTION)
@example(platform="k3s", lines=[*INJECTION[:2], "local {", *INJECTION[3:]])
def test_override_lines_are_refused_or_mean_what_they_say(platform: str, lines: list[str]) -> None:
    """Whole override line lists (the injection spans several lines): render refuses them, or the
    Corefile CoreDNS's own parser reads is exactly the structure the values ask for."""
    data = copy.deepcopy(BASES[platform])
    data["overrides"] = [{"name": "log", "lines": lines}]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "v.yaml").write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
        result = CliRunner().invoke(app, ["render", "--repo", str(root), str(root / "v.yaml")])
        assert result.exit_code in (0, 2), (result.exit_code, result.output, result.exception)
        if result.exit_code == 2:
            assert all(PROBLEM_LINE.match(p) for p in result.stderr.splitlines()), result.stderr
            return
        try:
            asked, rendered = _asked_and_rendered(load_values(root / "v.yaml", repo=root), root)
        except CorefileError as err:
            pytest.fail(f"rendered with exit 0, but the Corefile CoreDNS would load does not parse: {err}")
        assert rendered == asked


@pytest.mark.parametrize("platform", ["k3s", "aks", "gardener"])
def test_the_measured_injection_is_refused(platform: str, tmp_path: Path) -> None:
    data = copy.deepcopy(BASES[platform])
    data["overrides"] = [{"name": "log", "lines": INJECTION}]
    (tmp_path / "v.yaml").write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    result = CliRunner().invoke(app, ["render", "--repo", str(tmp_path), str(tmp_path / "v.yaml")])
    assert result.exit_code == 2, result.output
    assert "overrides[0].lines" in result.stderr and not (tmp_path / "overlays").exists()


def _k3s_with(overrides: list[dict[str, Any]], root: Path) -> Any:
    data = copy.deepcopy(BASES["k3s"])
    data["overrides"] = overrides
    (root / "v.yaml").write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return CliRunner().invoke(app, ["render", "--repo", str(root), str(root / "v.yaml")])


def test_a_domain_forward_override_is_imported_before_our_root_forward(tmp_path: Path) -> None:
    """Measured on k3s v1.34.9 and Gardener (CoreDNS 1.13.1, 1.14.6): `zz-corp.override` with
    `forward corp.example.com 10.9.9.9` sorted after `upstream.override`, whose root forward
    answered x.corp.example.com. CoreDNS imports overrides in Go's filepath.Glob order (bytewise)."""
    result = _k3s_with([{"name": "zz-corp", "lines": ["forward corp.example.com 10.9.9.9"]}], tmp_path)
    assert result.exit_code == 0, result.output
    data = yaml.safe_load((tmp_path / "overlays/k3s/k/coredns-custom-configmap.yaml").read_text())["data"]
    order = sorted(k for k in data if k.endswith(".override"))  # (Go sorts names bytewise; these are ASCII)
    assert order[-1] == UPSTREAM_KEY and "zz-corp.override" in order


def test_an_override_that_would_sort_after_our_root_forward_is_refused(tmp_path: Path) -> None:
    result = _k3s_with([{"name": "zzzzz", "lines": ["forward corp.example.com 10.9.9.9"]}], tmp_path)
    assert result.exit_code == 2
    assert "overrides[0].name: override zzzzz would be imported after zzzz-coredns-gen-upstream.override" in result.stderr


@pytest.mark.parametrize("zone", ["local", "cluster.local", "svc.cluster.local", "arpa", "in-addr.arpa", "10.in-addr.arpa", "ip6.arpa"])
def test_a_zone_that_takes_over_cluster_dns_is_refused(zone: str, tmp_path: Path) -> None:
    """Measured in CoreDNS 1.13.1: `zone: local` answered kube-dns.kube-system.svc.cluster.local from its upstream."""
    data = copy.deepcopy(BASES["k3s"])
    data["zones"] = [{"zone": zone, "upstreams": ["10.1.0.1"]}]
    (tmp_path / "v.yaml").write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    result = CliRunner().invoke(app, ["render", "--repo", str(tmp_path), str(tmp_path / "v.yaml")])
    assert result.exit_code == 2, result.output
    assert f"zones[0].zone: zone {zone} would shadow the cluster's own records" in result.stderr


@pytest.mark.parametrize("line", ["import /etc/coredns/custom/*.override", "import /etc/coredns/custom/*.server", "(snip) {"])
def test_imports_and_snippets_in_an_override_are_refused(line: str, tmp_path: Path) -> None:
    lines = [line, "log", "}"] if line.endswith("{") else [line]
    result = _k3s_with([{"name": "x", "lines": lines}], tmp_path)
    assert result.exit_code == 2, result.output
    assert "overrides[0].lines[0]" in result.stderr
