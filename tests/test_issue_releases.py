"""The releases users run today (issue 22's list): each renders without `corednsVersion`, or is
refused by the policy for releases newer than the tables because no source for its row was read.

A values file with the release, one resolver (where the platform takes `upstream:`) and one zone,
rendered through the CLI as a user runs it. When a row is added for a release in NOT_YET, move
it to RENDERS.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gen.cli import app

UPSTREAM = {"k3s", "rke2", "eks", "kubeadm"}  # AKS owns its root forward; the others take `upstream:`
RENDERS = [
    ("k3s", "v1.32.13+k3s1"), ("k3s", "v1.34.8+k3s1"),  # later patches: a stand-in, with the warning
    ("rke2", "v1.32.0+rke2r1"), ("rke2", "v1.33.7+rke2r3"), ("rke2", "v1.34.3+rke2r3"), ("rke2", "v1.35.0+rke2r1"),
    ("eks", "v1.11.4-eksbuild.28"),  # EKS 1.29's default add-on; the schema of v1.11.1-eksbuild.8 stands in
]
# No row: the platform's own source for it was not read yet (gen/data/SOURCES.md); the policy
# refuses a newer minor, or asks for `corednsVersion:` below the first known patch of a minor.
NOT_YET = [
    ("k3s", "v1.33.1+k3s1", "no known CoreDNS version"), ("k3s", "v1.35.2+k3s1", "no known CoreDNS version"),
    ("k3s", "v1.36.0+k3s1", "no known CoreDNS version"),
    ("eks", "v1.13.2-eksbuild.19", "tables do not hold yet"), ("eks", "v1.14.3-eksbuild.11", "tables do not hold yet"),
    ("kubeadm", "v1.36.0", "tables do not hold yet"), ("kubeadm", "v1.37.2", "tables do not hold yet"),
    ("aks", "1.37", "tables do not hold yet"),
]


def _render(root: Path, platform: str, release: str) -> tuple[int, str]:
    text = (f"cluster: c\nplatform: {platform}\nplatformVersion: \"{release}\"\n"
            "zones:\n  - zone: corp.example\n    upstreams: [10.0.0.1]\n")
    if platform in UPSTREAM:
        text += "upstream:\n  resolvers: [10.0.0.53]\n"
    (root / "v.yaml").write_text(text)
    result = CliRunner().invoke(app, ["render", "--repo", str(root), str(root / "v.yaml")])
    return result.exit_code, result.stderr


@pytest.mark.parametrize(("platform", "release"), RENDERS)
def test_release_renders_without_coredns_version(platform: str, release: str, tmp_path: Path) -> None:
    code, err = _render(tmp_path, platform, release)
    assert code == 0, err


@pytest.mark.parametrize(("platform", "release", "why"), NOT_YET)
def test_release_without_a_sourced_row_is_refused_by_the_policy(platform: str, release: str, why: str, tmp_path: Path) -> None:
    code, err = _render(tmp_path, platform, release)
    assert code == 2 and why in err, err


def test_upstream_works_on_an_eks_add_on_with_coredns_1_11_4(tmp_path: Path) -> None:
    """The forward pair (`next`) reaches the add-on's configurationValues: CoreDNS 1.11.4 has it."""
    code, err = _render(tmp_path, "eks", "v1.11.4-eksbuild.28")
    assert code == 0, err
    document = tmp_path / "overlays" / "eks" / "c" / "coredns-addon-configuration-values.json"
    corefile = json.loads(document.read_text())["corefile"]
    assert "forward . 10.0.0.53 /etc/resolv.conf {" in corefile and "next SERVFAIL REFUSED" in corefile
