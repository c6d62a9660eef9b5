"""Every YAML reader of the project on input nested past each parser's own limit: 101 levels
(ours), 1,000 (libyaml's own, PyYAML >= 6.0.4, met while scanning a flow run before any event)
and 10,000 (Python's recursion limit: ruamel's composer, PyYAML's pure-Python loader, json).
A user's file past a limit is bad input, exit 2 naming file and line; a reader whose answer is
"not readable" (the guard's, kustomize decides then) says so and never raises; nothing is exit 4."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from packaging.version import Version
import yaml
from typer.testing import CliRunner

from gen import yamlio
from gen.cli import app
from gen.guard.repo import manifests
from tests.conftest import REPO_ROOT

runner = CliRunner()
DEPTHS = (101, 1000, 10_000)
FIX_FLAT = "fix: a values file nests a few levels; write the value out flat"
# libyaml refuses this first line, ruamel reads it: libyaml's event stream stops before any depth
REFUSED_BY_LIBYAML = "note: &x: 1\n"


def nested(n: int, style: str, key: str = "cluster") -> tuple[str, int, int]:
    """`key:` holding n collections one inside the other, and the 1-based line and column of the
    first one past 100 levels (the top mapping is level 1)."""
    if style == "flow":
        return f"{key}: " + "[" * n + "]" * n + "\n", 1, len(key) + 2 + 100
    return f"{key}:\n  " + "- " * n + "x\n", 2, 3 + 2 * 99  # block: compact nested sequences


CASES = [pytest.param(n, style, id=f"{style}-{n}") for n in DEPTHS for style in ("flow", "block")]


@pytest.mark.parametrize(("n", "style"), CASES)
@pytest.mark.parametrize("first", ["", REFUSED_BY_LIBYAML], ids=["plain", "after-libyaml-refuses"])
def test_deepest_names_the_first_level_past_the_limit(n: int, style: str, first: str) -> None:
    text, line, col = nested(n, style)
    assert yamlio.deepest(first + text, yamlio.MAX_DEPTH) == (line + first.count("\n"), col)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "dns").mkdir()
    return tmp_path


@pytest.mark.parametrize(("n", "style"), CASES)
@pytest.mark.parametrize("first", ["", REFUSED_BY_LIBYAML], ids=["plain", "after-libyaml-refuses"])
def test_a_deep_values_file_is_bad_input(repo: Path, n: int, style: str, first: str) -> None:
    text, line, col = nested(n, style)
    (repo / "dns/deep.yaml").write_text(first + text)
    result = runner.invoke(app, ["render", "--repo", str(repo), str(repo / "dns/deep.yaml")])
    if n < 1000 and not first:  # libyaml reads it whole (the fast path), then the schema refuses it
        assert result.exit_code == 2, result.output
        assert all(re.match(r"dns/deep\.yaml:\d+:\d+: ", line) for line in result.stderr.splitlines()), result.stderr
        return
    assert (result.exit_code, result.stderr) == (
        2, f"dns/deep.yaml:{line + first.count(chr(10))}:{col}: nested more than 100 levels deep — {FIX_FLAT}\n")


@pytest.mark.parametrize(("n", "style"), CASES)
def test_a_deep_config_file_is_bad_input(repo: Path, n: int, style: str) -> None:
    text, line, col = nested(n, style, key="values")
    (repo / ".coredns-gen.yaml").write_text(text)
    result = runner.invoke(app, ["render", "--repo", str(repo)])
    if n < 1000:  # libyaml reads it whole (the fast path), then the config's own check refuses it
        assert (result.exit_code, result.stderr) == (2, ".coredns-gen.yaml: values: expected a list of glob patterns — fix: e.g. values: [dns/*.yaml]\n")
        return
    assert (result.exit_code, result.stderr) == (2, f".coredns-gen.yaml:{line}:{col}: nested more than 100 levels deep — {FIX_FLAT}\n")


@pytest.mark.parametrize(("n", "style"), CASES)
@pytest.mark.parametrize("first", ["", REFUSED_BY_LIBYAML], ids=["plain", "after-libyaml-refuses"])
def test_a_deep_manifest_given_to_lint_is_bad_input(tmp_path: Path, n: int, style: str, first: str) -> None:
    text, line, col = nested(n, style, key="data")
    (tmp_path / "cm.yaml").write_text(first + text)
    result = runner.invoke(app, ["lint", str(tmp_path / "cm.yaml")])
    assert (result.exit_code, result.stderr) == (
        2, f"{tmp_path}/cm.yaml:{line + first.count(chr(10))}:{col}: yaml: nested more than 100 levels deep — "
           "fix: a manifest nests a few levels; this is not a Kubernetes object\n")


CHART_CONFIG = """apiVersion: helm.cattle.io/v1
kind: HelmChartConfig
metadata:
  name: rke2-coredns
  namespace: kube-system
spec:
  valuesContent: |-
    {}
"""


@pytest.mark.parametrize("n", [1000, 10_000])
@pytest.mark.parametrize("style", ["flow", "block"])
def test_rke2_chart_values_past_libyamls_limit_given_to_lint(tmp_path: Path, n: int, style: str) -> None:
    """valuesContent is read by libyaml (the chart's values may nest; 101 levels are data), whose
    own limit is then the line: the message says so instead of "not valid YAML"."""
    text = nested(n, style, key="extra")[0].rstrip("\n").replace("\n", "\n    ")
    (tmp_path / "hcc.yaml").write_text(CHART_CONFIG.format(text))
    result = runner.invoke(app, ["lint", str(tmp_path / "hcc.yaml")])
    if Version(yaml.__version__) < Version("6.0.4"):  # its libyaml reads any depth: then the chart's values are data
        assert result.exit_code in (0, 1), result.output
        return
    assert (result.exit_code, result.stderr) == (2, f"{tmp_path}/hcc.yaml:7: spec.valuesContent: valuesContent is nested too deeply "
                                                    "to read (past libyaml's own limit) — fix: fix the chart values (YAML, as `helm --values` reads it)\n")


def test_eks_configuration_values_past_pythons_recursion_limit_given_to_lint(tmp_path: Path) -> None:
    values = '{"extra": ' + "[" * 10_000 + "]" * 10_000 + "}"
    (tmp_path / "addon.yaml").write_text(
        "apiVersion: eks.services.k8s.aws/v1alpha1\nkind: Addon\nmetadata:\n  name: coredns\n  namespace: kube-system\n"
        f"spec:\n  name: coredns\n  configurationValues: '{values}'\n")
    result = runner.invoke(app, ["lint", str(tmp_path / "addon.yaml")])
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(f"{tmp_path}/addon.yaml:8: spec.configurationValues: configurationValues is nested too deeply "
                                    "to read (past Python's recursion limit)")


GUARD_CASES = [pytest.param(loader, n, style, id=f"{loader}-{style}-{n}") for loader in ("libyaml", "pure-python")
               for n in DEPTHS for style in ("flow", "block")
               if not (loader == "pure-python" and n > 1000)]  # it recurses out at ~1000 levels; 10,000 adds time, not a path


@pytest.mark.parametrize(("guard_loader", "n", "style"), GUARD_CASES)
def test_the_guards_readers_say_unreadable_and_never_raise(monkeypatch: pytest.MonkeyPatch, guard_loader: str, n: int, style: str) -> None:
    """A file none of our readers can read is "not YAML" to the guard (kustomize, which Flux
    runs, decides about it); the same file read in full is the same data. The guard's reader as
    it is, and as it is on a machine whose PyYAML has no libyaml."""
    monkeypatch.setattr(manifests, "_Loader", yaml.CSafeLoader if guard_loader == "libyaml" else yaml.SafeLoader)
    manifests._docs_cached.cache_clear()
    text = "kind: ConfigMap\nmetadata:\n  name: x\n" + nested(n, style, key="data")[0]
    docs = manifests.try_docs(text)
    if docs is not None:
        data = docs[0]["data"]
        for _ in range(n - 1):
            (data,) = data
        assert data == (["x"] if style == "block" else [])
    if guard_loader == "pure-python" and n >= 1000:
        assert docs is None
    where = manifests.doc_index(text)
    assert where in ({}, {("ConfigMap", "x"): (1, {"kind": 1, "metadata": 2, "metadata.name": 3, "data": 4})})
    assert manifests.key_lines(text) in ({}, {"kind": 1, "metadata": 2, "data": 4})
    assert manifests.entry_lines(text) in ({}, {"data": {}})
    assert manifests.generator_line(text, "x") is None


def test_every_yaml_reader_is_covered_here() -> None:
    """A new reader of YAML (or JSON inside YAML) is added to the tests above, and then here."""
    readers = sorted(str(p.relative_to(REPO_ROOT)) for p in (REPO_ROOT / "gen").rglob("*.py")
                     if any(call in p.read_text(encoding="utf-8") for call in (
                         "yaml.load", "yaml.safe_load", "yaml.compose", "yaml.parse", "load_all(", "load_all_safe(",
                         "load_fast(", "load_positioned(", "read_document(", "read_mapping(")))
    assert readers == [
        "gen/adopt/prove.py",  # valuesContent import already read through rke2's reader (exit 2 when too deep)
        "gen/adopt/run.py",  # the same valuesContent: test_a_deep_values_content_given_to_import_is_bad_input
        "gen/config.py",  # read_mapping: test_a_deep_config_file_is_bad_input
        "gen/document.py",  # the values and config files' reader: the tests above
        "gen/guard/repo/manifests.py",  # test_the_guards_readers_say_unreadable_and_never_raise
        "gen/guard/topology.py",  # --discover --write: the config is read by read_mapping first (config.py)
        "gen/kustomization_reach.py",  # a kustomization.yaml beside a Flux file: test_a_deep_kustomization_beside_the_flux_file_is_no_crash
        "gen/lint/reader.py",  # test_a_deep_manifest_given_to_lint_is_bad_input
        "gen/platforms/k3s.py",  # our own vendored manifest only
        "gen/platforms/rke2.py",  # test_rke2_chart_values_past_libyamls_limit_given_to_lint
        "gen/platforms/rke2_chart.py",  # our own template's output only
        "gen/render/artifact.py",  # GitRepository manifests of the repo: test_a_deep_manifest_in_the_repo_does_not_stop_render
        "gen/render/project.py",  # read_document of a values file already read
        "gen/render/upgrade_drift.py",  # a values file at another revision: not known when it does not read
        "gen/render/values.py",  # test_a_deep_values_file_is_bad_input
        "gen/yamlio.py",  # the loaders themselves
    ]


@pytest.mark.parametrize("n", DEPTHS)
@pytest.mark.parametrize("style", ["flow", "block"])
def test_a_deep_kustomization_beside_the_flux_file_is_no_crash(tmp_path: Path, n: int, style: str) -> None:
    """gen/kustomization_reach.py reads the kustomization.yaml beside a Flux file render writes: one nested past
    libyaml's limit, or an alias bomb, is not read (no warning), never a crash or a hang."""
    from gen.kustomization_reach import missing_entry

    (tmp_path / "clusters").mkdir()
    (tmp_path / "clusters/kustomization.yaml").write_text(nested(n, style, key="resources")[0])
    missing_entry(tmp_path, "clusters/coredns.yaml")  # (read or not: either way it returns)
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8)) + "resources: [*i]\n"
    (tmp_path / "clusters/kustomization.yaml").write_text(bomb)
    assert missing_entry(tmp_path, "clusters/coredns.yaml") is None  # refused by the loader, not read


def test_a_deep_values_content_given_to_import_is_bad_input(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from gen.cli import app

    deep = "a: " + "[" * 10000 + "]" * 10000
    path = tmp_path / "hcc.yaml"
    path.write_text("apiVersion: helm.cattle.io/v1\nkind: HelmChartConfig\nmetadata:\n  name: rke2-coredns\n"
                    f"  namespace: kube-system\nspec:\n  valuesContent: |-\n    {deep}\n")
    result = CliRunner().invoke(app, ["import", str(path), "--platform", "rke2", "--platform-version",
                                      "v1.34.3+rke2r3", "--cluster", "x"])
    assert result.exit_code == 2, result.output
    assert "nested too deeply" in result.output


def test_a_deep_values_file_at_another_revision_is_not_known_never_a_crash() -> None:
    from gen.render.upgrade_drift import _read

    assert _read("a: " + "[" * 10000 + "]" * 10000) is None
