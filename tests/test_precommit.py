"""The published pre-commit hook, run for real by pre-commit against a temporary GitOps repo."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT, missing_tool
from tests.helpers import git


@pytest.fixture(scope="module")
def pre_commit() -> str:
    found = shutil.which("pre-commit")
    if not found:
        missing_tool("pre-commit", FileNotFoundError("pre-commit not on PATH (pip install pre-commit)"))
    return str(found)


def test_render_check_hook_passes_clean_repo_and_fails_hand_edit(tmp_path: Path, pre_commit: str, git_bin: str) -> None:
    from typer.testing import CliRunner

    from gen.cli import app

    (tmp_path / "dns").mkdir()
    text = (REPO_ROOT / "examples/k3s.yaml").read_text().replace("output: examples/clusters/", "output: clusters/")
    (tmp_path / "dns/edge.yaml").write_text(text)
    (tmp_path / ".coredns-gen.yaml").write_text("values:\n  - dns/*.yaml\n")
    git(tmp_path, "init", "-q")
    assert CliRunner().invoke(app, ["render", "--repo", str(tmp_path)]).exit_code == 0
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "dns")

    def run_hook() -> subprocess.CompletedProcess[str]:
        return subprocess.run([pre_commit, "try-repo", str(REPO_ROOT), "coredns-gen-render-check", "--all-files"],
                              cwd=tmp_path, capture_output=True, text=True, timeout=600)

    clean = run_hook()
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "Passed" in clean.stdout

    hpa = tmp_path / "overlays/k3s/edge-k3s/coredns-hpa.yaml"
    hpa.write_text(hpa.read_text().replace("minReplicas: 2", "minReplicas: 1"))
    edited = run_hook()
    assert edited.returncode == 1
    assert "Failed" in edited.stdout
    assert "overlays/k3s/edge-k3s/coredns-hpa.yaml" in edited.stdout


@pytest.mark.slow
def test_guard_hook_judges_against_the_remotes_default_branch(tmp_path: Path, pre_commit: str, git_bin: str) -> None:
    """The published guard hook compares with origin/HEAD, not a hard-coded origin/main: a fleet
    whose default branch is `live` gets a real verdict (configmap-pruned), with the helper that
    pre-commit's pip install built into the package (no COREDNS_GEN_HELPER)."""
    import os

    from tests.guard.conftest import FLUX_SYSTEM, configmap, flux_ks, kustomization
    from tests.helpers import build_tree

    seed, bare, clone = tmp_path / "seed", tmp_path / "fleet.git", tmp_path / "clone"
    seed.mkdir()
    git(seed, "init", "-q", "-b", "live")
    build_tree(seed, {**FLUX_SYSTEM, "clusters/prod/platform.yaml": flux_ks("platform", "./platform"),
                      "platform/kustomization.yaml": kustomization("coredns-custom.yaml"),
                      "platform/coredns-custom.yaml": configmap("coredns-custom")})
    git(seed, "add", "-A")
    git(seed, "commit", "-qm", "fleet")
    git(tmp_path, "clone", "-q", "--bare", str(seed), str(bare))
    git(tmp_path, "clone", "-q", str(bare), str(clone))
    assert git(clone, "rev-parse", "--abbrev-ref", "origin/HEAD").strip() == "origin/live"
    build_tree(clone, {"platform/kustomization.yaml": kustomization()})
    git(clone, "commit", "-qam", "drop the ConfigMap")

    env = {k: v for k, v in os.environ.items() if k != "COREDNS_GEN_HELPER"}
    env["COREDNS_GEN_CACHE_DIR"] = str(tmp_path / "cache")
    proc = subprocess.run([pre_commit, "try-repo", str(REPO_ROOT), "coredns-gen-guard", "--hook-stage", "manual",
                           "--all-files"], cwd=clone, env=env, capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Failed" in proc.stdout and "(configmap-pruned)" in proc.stdout
    assert "not installed" not in proc.stdout
