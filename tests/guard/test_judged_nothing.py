"""A run whose clusters exist but none of whose Kustomizations builds from this repository is bad
input (exit 2), never a pass; a change that touches no cluster of a fleet that builds still passes.

The shape of aws-samples/eks-multi-cluster-gitops: the Flux repository is a folder of this one
(`repos/gitops-system/`), the bootstrap URL a placeholder (`REPO_PREFIX/gitops-system`), so each
root's `spec.path: ./clusters/mgmt` is no folder at the root here and every build fails with
kustomize-controller's "kustomization path not found". Before, the run exited 0 with "0 of N
clusters touched": a pass with nothing judged.
"""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from gen.cli import app
from gen.errors import UsageError
from tests.guard.conftest import FLUX_SYSTEM, configmap, kustomization

SAMPLE = {
    f"repos/gitops-system/{path.replace('prod', name)}": text
    .replace("ssh://git@example.invalid/fleet", "REPO_PREFIX/gitops-system").replace("./clusters/prod", f"./clusters/{name}")
    for name in ("mgmt", "template") for path, text in FLUX_SYSTEM.items()
}
SAMPLE["repos/gitops-system/clusters/mgmt/kustomization.yaml"] = kustomization("flux-system", "dns.yaml")
SAMPLE["repos/gitops-system/clusters/mgmt/dns.yaml"] = configmap("coredns-custom")
SAMPLE["README.md"] = "sample\n"


@pytest.mark.parametrize("head", [{"README.md": "sample, again\n"},
                                  {"repos/gitops-system/clusters/mgmt/kustomization.yaml": kustomization("flux-system")}],
                         ids=["readme", "prune"])
def test_clusters_none_of_which_builds_here_is_bad_input(flux_repo, guard, head):
    with pytest.raises(UsageError) as caught:
        guard(flux_repo(SAMPLE, head, standard=False))
    text = str(caught.value)
    assert caught.value.exit_code == 2
    assert "judged nothing: no Kustomization of the 2 clusters found builds from this repository" in text
    assert "kustomization path not found" in text
    assert ("guard.sources: [{source: GitRepository/flux-system/flux-system, path: repos/gitops-system}]" in text)


def test_the_cli_exits_2_with_the_message(flux_repo):
    root = flux_repo(SAMPLE, {"README.md": "sample, again\n"}, standard=False)
    result = CliRunner().invoke(app, ["guard", "--repo", str(root), "--base", "base", "--no-cache"],
                                env={"GITHUB_ACTIONS": ""})
    assert result.exit_code == 2, result.output
    assert "judged nothing" in result.stderr and "0 of 2 clusters" not in result.stdout + result.stderr


def test_naming_the_folder_judges_it(flux_repo, guard):
    config = {".coredns-gen.yaml": ("guard:\n  sources:\n    - source: GitRepository/flux-system/flux-system\n"
                                    "      path: repos/gitops-system\n")}
    result = guard(flux_repo({**SAMPLE, **config},
                             {"repos/gitops-system/clusters/mgmt/kustomization.yaml": kustomization("flux-system")},
                             standard=False))
    assert [f.rule for f in result.findings if f.severity.value == "error"] == ["configmap-pruned"]


def test_a_readme_change_in_a_fleet_that_builds_passes(flux_repo, guard):
    """Nothing touched is not nothing judged."""
    files = {"README.md": "x\n", "clusters/prod/kustomization.yaml": kustomization("dns.yaml"),
             "clusters/prod/dns.yaml": configmap("coredns-custom")}
    result = guard(flux_repo(files, {"README.md": "y\n"}))
    assert [f for f in result.findings if f.severity.value == "error"] == []
