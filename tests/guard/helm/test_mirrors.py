"""Chart mirrors: `guard.charts` and --chart-mirror checked as bad input, and applied by origin prefix."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from gen.cli import app
from gen.config import load_config
from gen.errors import UsageError
from gen.guard.helm.sources import ChartLocation, mirrored


def test_config_mirrors_are_read(tmp_path: Path) -> None:
    (tmp_path / ".coredns-gen.yaml").write_text("guard:\n  charts:\n    oci://ghcr.io/bjw-s-labs/helm/: file:ci/charts\n")
    assert load_config(tmp_path).guard_charts == {"oci://ghcr.io/bjw-s-labs/helm": "file:ci/charts"}


@pytest.mark.parametrize("text", ["guard:\n  charts: [a]\n", "guard:\n  charts:\n    ghcr.io/x: oci://m\n",
                                  "guard:\n  charts:\n    oci://ghcr.io/x: ftp://m\n"])
def test_bad_config_mirrors_are_bad_input(tmp_path: Path, text: str) -> None:
    (tmp_path / ".coredns-gen.yaml").write_text(text)
    with pytest.raises(UsageError) as err:
        load_config(tmp_path)
    assert "guard.charts" in str(err.value)


def test_a_bad_chart_mirror_flag_exits_2(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["guard", "--repo", str(tmp_path), "--base", "HEAD", "--chart-mirror", "no-equals"])
    assert result.exit_code == 2, result.output
    assert "ORIGIN=MIRROR" in result.output


def test_the_longest_origin_prefix_wins_and_keeps_the_chart_path() -> None:
    loc = ChartLocation("oci", url="oci://ghcr.io/bjw-s-labs/helm", name="app-template", version="4.1.1")
    got = mirrored(loc, {"oci://ghcr.io": "oci://wide.example", "oci://ghcr.io/bjw-s-labs": "oci+http://127.0.0.1:5000/b"})
    assert (got.kind, got.url, got.plain_http, got.mirror_of) == ("oci", "oci://127.0.0.1:5000/b/helm", True,
                                                                 "oci://ghcr.io/bjw-s-labs/helm")
    # a prefix must end at a path segment
    assert mirrored(loc, {"oci://ghcr.io/bjw": "oci://x"}) == loc


def test_an_oci_repository_mirrored_to_a_folder_names_its_chart_last() -> None:
    loc = ChartLocation("oci", url="oci://ghcr.io/coredns/charts/coredns", tag="1.46.2")
    got = mirrored(loc, {"oci://ghcr.io/coredns/charts": "file:/srv/mirror"})
    assert (got.kind, got.url, got.name, got.version) == ("http", "file:///srv/mirror", "coredns", "1.46.2")


def test_charts_pull_fills_a_mirror_the_guard_then_judges_from(tmp_path: Path, http_charts, flux_repo, guard) -> None:
    """`charts-pull` fetches what the HelmReleases name into FOLDER/<origin>/ with an index; the
    guard, given that folder as the origin's mirror, judges without the origin."""
    from tests.guard.helm.conftest import chart_copy
    from tests.guard.helm.test_remote_charts import (
        COREDNS_VALUES,
        _apps,
        helm_release,
        helm_repository,
    )

    origin = http_charts([chart_copy(tmp_path, "coredns")])
    base = _apps(helm_repository("coredns", origin), helm_release("coredns", "kube-system", "coredns", "1.46.2",
                                                                   "coredns", COREDNS_VALUES))
    root = flux_repo(base, {"apps/doc-1.yaml": helm_release("coredns", "kube-system", "coredns", "1.46.2", "coredns",
                                                            COREDNS_VALUES.replace("parameters: 30", "parameters: 60"))})
    mirror = tmp_path / "mirror"
    result = CliRunner().invoke(app, ["charts-pull", str(mirror), "--repo", str(root)])
    assert result.exit_code == 0, result.output
    folder = mirror / "http" / origin.split("://")[1].replace(":", "_")
    assert sorted(p.name for p in folder.iterdir()) == ["coredns-1.46.2.tgz", "index.yaml"]
    assert f"{origin}: file:{folder}" in result.output
    judged = guard(root, chart_mirrors=((origin, f"file:{folder}"),))
    assert not [f for f in judged.findings if f.severity.value == "error"], judged.findings
    [view] = [v for v in judged.views if v.rule == "corefile-diff"]
    assert "+    cache 60" in view.details["diff"]


def test_charts_pull_writes_only_inside_the_mirror_folder(tmp_path: Path, http_charts, flux_repo) -> None:
    """A HelmRepository url with `..` segments (`http://host/../../..`, which a server may well
    answer) used to name the folder charts-pull writes into: the archive and index.yaml landed
    outside FOLDER. Every origin's folder is inside it."""
    from gen.guard.helm.pull import origin_folder
    from tests.guard.helm.conftest import chart_copy
    from tests.guard.helm.test_remote_charts import (
        COREDNS_VALUES,
        _apps,
        helm_release,
        helm_repository,
    )

    origin = http_charts([chart_copy(tmp_path, "coredns")])
    base = _apps(helm_repository("coredns", origin + "/../../.."),
                 helm_release("coredns", "kube-system", "coredns", "1.46.2", "coredns", COREDNS_VALUES))
    root = flux_repo(base, {})
    mirror = tmp_path / "mirror"
    before = sorted(p.name for p in tmp_path.iterdir())
    result = CliRunner().invoke(app, ["charts-pull", str(mirror), "--repo", str(root)])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*before, "mirror"])
    assert [p.name for p in mirror.rglob("*.tgz")] == ["coredns-1.46.2.tgz"]
    for url in ("://x", "/abs://h/p", "https://h/./../x"):
        folder = (mirror / origin_folder(url)).resolve()
        assert folder.is_relative_to(mirror.resolve()) and folder != mirror.resolve(), url
