"""`coredns-gen guard` through the CLI: exit codes 0/1/2/3 and every output format."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gen.cli import app
from tests.conftest import REPO_ROOT
from tests.guard.conftest import configmap, flux_ks, kustomization
from tests.helpers import git

PLATFORM = {
    "clusters/prod/platform.yaml": flux_ks("platform", "./platform"),
    "platform/kustomization.yaml": kustomization("coredns-custom.yaml"),
    "platform/coredns-custom.yaml": configmap("coredns-custom"),
}
DROP = {"platform/kustomization.yaml": kustomization()}


def invoke(root: Path, *args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    runner = CliRunner()
    result = runner.invoke(app, ["guard", "--repo", str(root), "--base", "base", *args],
                           env={"GITHUB_ACTIONS": "", **(env or {})})
    return result.exit_code, result.stdout, result.stderr


def test_exit_0_when_nothing_in_place_is_lost(flux_repo):
    root = flux_repo(PLATFORM, {"platform/other.yaml": configmap("unused", namespace="default")})
    code, out, err = invoke(root)
    assert (code, out) == (0, "")
    assert err.startswith("guard ") and err.endswith(
        ": 0 of 1 clusters touched and judged (2 Flux Kustomizations at base, 2 at head); "
        "0 errors, 0 warnings, 0 allowed\n")


def test_exit_1_and_text_report_when_refused(flux_repo):
    code, out, err = invoke(flux_repo(PLATFORM, DROP))
    assert code == 1
    assert "1 of 1 clusters touched and judged" in err and "1 errors, 0 warnings" in err
    lines = out.splitlines()
    assert lines[0].startswith("platform/kustomization.yaml:3: error: ConfigMap kube-system/coredns-custom would be deleted by Flux")
    assert lines[0].endswith("(configmap-pruned)")
    assert lines[1].startswith("  fix: put '- coredns-custom.yaml' back under resources:")


def test_json_format_is_stable(flux_repo):
    code, out, _ = invoke(flux_repo(PLATFORM, DROP), "--format", "json")
    assert code == 1
    data = [f for f in json.loads(out) if f["rule"] != "corefile-diff"]  # the Corefile view: test_corefile_view.py
    assert list(data[0]) == ["rule", "severity", "file", "line", "column", "message", "hint", "details"]
    assert data[0]["details"] == {
        "cause": "platform/kustomization.yaml no longer lists 'coredns-custom.yaml' under resources:",
        "cluster": "clusters/prod/flux-system/gotk-sync.yaml",
        "fate": "deleted",
        "kustomization": "flux-system/platform",
        "object": "kube-system_coredns-custom__ConfigMap",
    }


def test_github_format_is_the_default_under_actions(flux_repo):
    code, out, _ = invoke(flux_repo(PLATFORM, DROP), env={"GITHUB_ACTIONS": "true"})
    assert code == 1
    assert out.startswith("::error file=platform/kustomization.yaml,line=3,title=configmap-pruned::ConfigMap kube-system/coredns-custom")


def test_sarif_format(flux_repo):
    code, out, _ = invoke(flux_repo(PLATFORM, DROP), "--format", "sarif")
    doc = json.loads(out)
    assert code == 1 and doc["version"] == "2.1.0"
    result = doc["runs"][0]["results"][0]
    assert result["ruleId"] == "configmap-pruned" and result["level"] == "error"
    assert {r["id"] for r in doc["runs"][0]["tool"]["driver"]["rules"]} >= {"configmap-pruned", "k3s-hpa-min-replicas"}


def test_allowed_removal_exits_0_and_is_still_reported(flux_repo):
    code, out, _ = invoke(flux_repo(PLATFORM, DROP), "--allow", "kube-system_coredns-custom__ConfigMap")
    assert code == 0
    assert ": allowed: ConfigMap kube-system/coredns-custom would be deleted" in out


@pytest.mark.parametrize("args,needle", [
    (["--format", "xml"], "--format: unknown format `xml`"),
    (["--head", "no-such-ref"], "--head: 'no-such-ref' is not a commit"),
    (["--path", "../elsewhere"], "--path: ../elsewhere is outside the repository"),
], ids=["format", "ref", "path"])
def test_exit_2_on_bad_input(flux_repo, args, needle):
    code, out, err = invoke(flux_repo(PLATFORM, DROP), *args)
    assert code == 2 and out == ""
    assert needle in err


def test_exit_2_on_bad_repo_config(flux_repo):
    root = flux_repo(PLATFORM, {**DROP, ".coredns-gen.yaml": "guard:\n  allow: nope\n"})
    code, _, err = invoke(root)
    assert code == 2 and "guard.allow" in err


def test_exit_2_when_no_flux_kustomization_is_found(flux_repo):
    root = flux_repo({"k/cm.yaml": configmap("x")}, {"k/cm.yaml": None}, standard=False)
    code, out, err = invoke(root)
    assert code == 2 and out == ""
    assert "no Flux Kustomization (kustomize.toolkit.fluxcd.io) found at base or HEAD" in err


def test_exit_2_without_base(tmp_path):
    result = CliRunner().invoke(app, ["guard", "--repo", str(tmp_path)])
    assert result.exit_code == 2


def test_exit_2_outside_git(tmp_path):
    code, _, err = invoke(tmp_path)
    assert code == 2 and "not inside a git repository" in err


def test_exit_3_when_the_helper_is_missing(flux_repo, monkeypatch, tmp_path):
    """No model of Flux's build stands in for it: nothing is judged, exit 3 with the fix."""
    root = flux_repo(PLATFORM, DROP)
    monkeypatch.setenv("COREDNS_GEN_HELPER", str(tmp_path / "not-there"))
    code, out, err = invoke(root, "--no-cache")
    assert code == 3 and out == "" and "is not installed" in err and "go build" in err


def test_exit_3_when_git_is_missing(flux_repo, monkeypatch):
    root = flux_repo(PLATFORM, DROP)
    monkeypatch.setenv("PATH", "/nonexistent")
    code, _, err = invoke(root)
    assert code == 3 and "git not found" in err


def test_the_build_cache_is_where_the_environment_says_when_the_command_runs(flux_repo, tmp_path):
    """COREDNS_GEN_CACHE_DIR is read when a run starts, not when gen is imported: a wrapper or a
    test that sets it later must never write into the user's real ~/.cache."""
    chosen = tmp_path / "late-cache"
    code, _, _ = invoke(flux_repo(PLATFORM, DROP), env={"COREDNS_GEN_CACHE_DIR": str(chosen)})
    assert code == 1
    assert list(chosen.rglob("*.pack")), "no build was cached where COREDNS_GEN_CACHE_DIR points"


@pytest.mark.parametrize("where", ["docs", "platform"])
def test_a_committed_file_whose_name_is_not_utf8_is_judged_or_refused(flux_repo, where):
    """git holds file names as bytes: a Latin-1 name crashed the guard's listing (exit 4), even
    for a file no build reads (judged: exit 0). In a folder Flux builds without a
    kustomization.yaml it is read, and the helper's answer cannot name it: refused, exit 2."""
    base = {"clusters/prod/platform.yaml": flux_ks("platform", "./platform"),
            "platform/coredns-custom.yaml": configmap("coredns-custom")}
    root = flux_repo(base, {})
    folder = os.path.join(os.fsencode(root), where.encode())
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, b"caf\xe9.yaml"), "w") as handle:
        handle.write(configmap("cafe", namespace="default"))
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "latin-1")
    proc = subprocess.run([sys.executable, "-m", "gen", "guard", "--repo", str(root), "--base", "base"],
                          capture_output=True, timeout=300, check=False,
                          env={**os.environ, "PYTHONPATH": str(REPO_ROOT), "GITHUB_ACTIONS": ""})
    stderr = proc.stderr.decode("utf-8", "replace")
    assert "Traceback" not in stderr, stderr
    if where == "docs":
        assert proc.returncode == 0, stderr
    else:
        assert proc.returncode == 2, stderr
        assert "the file name 'platform/caf\\udce9.yaml' is not UTF-8" in stderr and "git mv" in stderr
