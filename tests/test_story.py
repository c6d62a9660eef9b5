"""The whole user story in one real GitOps repo: new -> render -> commit -> a risky edit -> gates.

Render and guard are built by different modules; this proves they agree on what a rendered
overlay is, with real git, real kustomize (through the guard) and the CLI exit codes CI sees.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gen.cli import app
from tests.guard.conftest import FLUX_SYSTEM
from tests.helpers import build_tree, git

runner = CliRunner()



@pytest.fixture
def fleet(tmp_path: Path, git_bin: str, kustomize_argv: list[str]) -> Path:
    """A bootstrapped two-cluster fleet whose DNS is rendered by coredns-gen and committed."""
    for cluster, platform in (("prod", "talos"), ("edge", "k3s")):
        build_tree(tmp_path, {path.replace("clusters/prod/", f"clusters/{cluster}/"): text.replace("./clusters/prod", f"./clusters/{cluster}")
                              for path, text in FLUX_SYSTEM.items()})
        result = runner.invoke(app, ["new", "--platform", platform, "--cluster", cluster, "-o", str(tmp_path / f"dns/{cluster}.yaml"), "--repo", str(tmp_path)])
        assert result.exit_code == 0, result.output
    (tmp_path / ".coredns-gen.yaml").write_text("values: [dns/*.yaml]\n")
    assert runner.invoke(app, ["render", "--repo", str(tmp_path)]).exit_code == 0
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "dns")
    return tmp_path


def _guard(repo: Path) -> tuple[int, list[dict[str, object]]]:
    result = runner.invoke(app, ["guard", "--repo", str(repo), "--base", "HEAD~1", "--format", "json", "--no-cache"])
    return result.exit_code, json.loads(result.stdout or "[]")


def test_a_clean_render_is_in_sync_and_a_dns_change_passes_the_guard(fleet: Path) -> None:
    assert runner.invoke(app, ["render", "--repo", str(fleet), "--check"]).exit_code == 0
    values = fleet / "dns/prod.yaml"
    values.write_text(values.read_text().replace("192.0.2.53", "10.96.0.54"))  # the starter's placeholder
    assert runner.invoke(app, ["render", "--repo", str(fleet), "--check"]).exit_code == 1  # values changed, files not yet
    assert runner.invoke(app, ["render", "--repo", str(fleet)]).exit_code == 0
    git(fleet, "commit", "-qam", "new resolver")
    code, findings = _guard(fleet)
    assert (code, [f for f in findings if f["rule"] != "corefile-diff"]) == (0, [])
    (view,) = findings  # the reviewer sees the resolver change in the Corefile Talos's CoreDNS loads
    assert view["details"]["cluster_name"] == "prod"
    assert "+    forward . 10.96.0.54 /etc/resolv.conf {" in view["details"]["diff"]


def test_deleting_the_talos_overlay_is_refused(fleet: Path) -> None:
    git(fleet, "rm", "-rq", "overlays/talos")
    git(fleet, "commit", "-qm", "tidy up")
    code, findings = _guard(fleet)
    assert code == 1
    assert [(f["rule"], f["severity"]) for f in findings] == [("build-failed", "error")]


def test_a_hand_rewritten_kustomization_is_caught_by_the_drift_gate_and_reported_by_the_guard(fleet: Path) -> None:
    """Dropping coredns-custom from resources: render --check refuses the hand edit; the guard
    explains that Flux would orphan (prune: disabled) rather than delete the ConfigMap."""
    (fleet / "overlays/k3s/edge/kustomization.yaml").write_text(
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- coredns-hpa.yaml\n")
    check = runner.invoke(app, ["render", "--repo", str(fleet), "--check"])
    assert check.exit_code == 1 and "overlays/k3s/edge/kustomization.yaml" in check.stdout
    git(fleet, "commit", "-qam", "hpa only")
    code, findings = _guard(fleet)
    by_rule = {(f["rule"], f["details"].get("object", "")) for f in findings}  # type: ignore[union-attr]
    assert code == 0  # nothing Flux would delete is a ConfigMap
    assert any(rule == "object-orphaned" for rule, _ in by_rule)
    assert any(rule == "object-pruned" for rule, _ in by_rule)  # the PDB really goes
