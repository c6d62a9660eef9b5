"""Paper cuts, each as a new user met it: a command that found nothing to do exits 2
saying where it looked and what to run instead; a hint that did not work is replaced by one
that does; a starter value cannot pass for a real one."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gen.cli import app
from tests.conftest import REPO_ROOT

PLACEHOLDER_RESOLVER = "192.0.2.53"  # gen.spec.PLACEHOLDER_RESOLVER (a test of the value, so a literal)

runner = CliRunner()


def test_lint_on_an_empty_folder_exits_2_naming_it(tmp_path: Path) -> None:
    result = runner.invoke(app, ["lint", str(tmp_path)])
    assert result.exit_code == 2
    assert f"found nothing to lint in {tmp_path}: no Corefile and no .yaml, .yml or .json file" in result.stderr


def test_lint_on_a_folder_of_other_manifests_exits_2(tmp_path: Path) -> None:
    (tmp_path / "svc.yaml").write_text("apiVersion: v1\nkind: Service\nmetadata: {name: web}\n")
    result = runner.invoke(app, ["lint", str(tmp_path)])
    assert result.exit_code == 2 and "1 file(s) read, none holds a Corefile" in result.stderr


def test_lint_on_a_values_file_points_at_render(tmp_path: Path) -> None:
    result = runner.invoke(app, ["lint", str(REPO_ROOT / "examples/k3s.yaml")])
    assert result.exit_code == 2
    assert "is a coredns-gen values file" in result.stderr and "coredns-gen render VALUES" in result.stderr


def test_lint_on_an_overlay_still_lints() -> None:
    result = runner.invoke(app, ["lint", str(REPO_ROOT / "overlays/talos/prod-talos")])
    assert result.exit_code == 0, result.output


def test_verify_on_a_configmap_points_at_lint_load_in_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cm = REPO_ROOT / "overlays/k3s/edge-k3s/coredns-custom-configmap.yaml"
    (tmp_path / "cm.yaml").write_text(cm.read_text())
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["verify", "cm.yaml", "--repo", str(tmp_path)])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines  # was 8 values-schema errors
    assert "is a Kubernetes manifest (kind: ConfigMap), not a coredns-gen values file" in lines[0]
    assert "coredns-gen lint --load" in lines[0]


@pytest.mark.parametrize("platform", ["talos", "kubeadm", "rke2"])
def test_the_starter_resolver_is_a_marked_placeholder_render_warns_about(platform: str, tmp_path: Path) -> None:
    target = tmp_path / "dns/c1.yaml"
    assert runner.invoke(app, ["new", "--platform", platform, "--cluster", "c1", "--output", str(target),
                               "--repo", str(tmp_path)]).exit_code == 0
    text = target.read_text()
    assert "10.96.0.53" not in text and "10.0.0.53" not in text
    assert f"- {PLACEHOLDER_RESOLVER}" in text and "PLACEHOLDER" in text
    result = runner.invoke(app, ["render", "--repo", str(tmp_path), str(target)])
    assert result.exit_code == 0
    assert f"{PLACEHOLDER_RESOLVER} is the starter's placeholder" in result.stderr


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def test_a_shallow_clone_is_told_how_to_fetch_the_base(tmp_path: Path) -> None:
    """`git clone --depth 1 --branch feature` then `git fetch origin main`: origin/main still does
    not resolve (a single-branch clone writes FETCH_HEAD only), the old hint's very advice."""
    src, clone = tmp_path / "src", tmp_path / "clone"
    src.mkdir()
    _git(src, "init", "-q", "-b", "main")
    (src / "a").write_text("a")
    _git(src, "add", "a")
    _git(src, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "a")
    _git(src, "checkout", "-qb", "feature")
    (src / "b").write_text("b")
    _git(src, "add", "b")
    _git(src, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "b")
    _git(tmp_path, "clone", "-q", "--depth", "1", "--branch", "feature", src.as_uri(), str(clone))
    _git(clone, "fetch", "-q", "origin", "main")
    result = runner.invoke(app, ["guard", "--repo", str(clone), "--base", "origin/main", "--no-cache"])
    assert result.exit_code == 2
    assert "this clone is shallow" in result.stderr
    assert "`git fetch origin main:refs/remotes/origin/main`" in result.stderr and "fetch-depth: 0" in result.stderr
    _git(clone, "fetch", "-q", "origin", "main:refs/remotes/origin/main")  # the advice works
    _git(clone, "rev-parse", "--verify", "origin/main^{commit}")
