"""The releases users run today (issue 22's fifteen): each renders without `corednsVersion`, or is
refused for a reason a source gives (k3s v1.33.1's override order) or because no source for its
row was found (the policy for releases newer than the tables).

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
    ("k3s", "v1.32.13+k3s1"), ("k3s", "v1.34.8+k3s1"), ("k3s", "v1.35.2+k3s1"), ("k3s", "v1.36.0+k3s1"),
    ("rke2", "v1.32.0+rke2r1"), ("rke2", "v1.33.7+rke2r3"), ("rke2", "v1.34.3+rke2r3"), ("rke2", "v1.35.0+rke2r1"),
    ("eks", "v1.11.4-eksbuild.28"),  # EKS 1.29's default add-on; the schema of v1.11.1-eksbuild.8 stands in
    ("kubeadm", "v1.36.0"), ("kubeadm", "v1.37.2"),
]
# k3s v1.33.1 imports *.override after its own forward (manifests/coredns.yaml at d78e666f; k3s
# issue #12979 reports it on v1.33.4): it renders zones, and `upstream:` is refused for that reason.
RENDERS_WITHOUT_UPSTREAM = [("k3s", "v1.33.1+k3s1")]
# No row: no source for it was found (gen/data/SOURCES.md); the policy refuses a newer minor or
# an add-on version whose configuration schema is not vendored (AWS publishes it only through its API).
NOT_YET = [
    ("eks", "v1.13.2-eksbuild.19", "tables do not hold yet"),
    ("eks", "v1.14.3-eksbuild.11", "tables do not hold yet"),
    ("aks", "1.37", "tables do not hold yet"),  # not in the supported-versions page or the AKS changelog read
]


def _render(root: Path, platform: str, release: str, upstream: bool = True) -> tuple[int, str]:
    text = (f"cluster: c\nplatform: {platform}\nplatformVersion: \"{release}\"\n"
            "zones:\n  - zone: corp.example\n    upstreams: [10.0.0.1]\n")
    if platform in UPSTREAM and upstream:
        text += "upstream:\n  resolvers: [10.0.0.53]\n"
    (root / "v.yaml").write_text(text)
    result = CliRunner().invoke(app, ["render", "--repo", str(root), str(root / "v.yaml")])
    return result.exit_code, result.stderr


@pytest.mark.parametrize(("platform", "release"), RENDERS)
def test_release_renders_without_coredns_version(platform: str, release: str, tmp_path: Path) -> None:
    code, err = _render(tmp_path, platform, release)
    assert code == 0, err


@pytest.mark.parametrize(("platform", "release"), RENDERS_WITHOUT_UPSTREAM)
def test_release_whose_override_comes_last_renders_zones_and_refuses_upstream(platform: str, release: str, tmp_path: Path) -> None:
    code, err = _render(tmp_path, platform, release, upstream=False)
    assert code == 0, err
    code, err = _render(tmp_path, platform, release)
    assert code == 2 and f"k3s {release} imports *.override after its own forward, so this forward is never reached" in err, err


def test_issue_22_lists_fifteen_releases() -> None:
    assert len(RENDERS) + len(RENDERS_WITHOUT_UPSTREAM) + len(NOT_YET) == 15


@pytest.mark.parametrize(("platform", "release", "why"), NOT_YET)
def test_release_without_a_sourced_row_is_refused_by_the_policy(platform: str, release: str, why: str, tmp_path: Path) -> None:
    code, err = _render(tmp_path, platform, release)
    assert code == 2 and why in err, err


# eksctl's default add-on per EKS minor (pkg/addons/default/assets/coredns-1.<minor>.json at
# eksctl 99984adb): 1.29 eksbuild.28, 1.30 eksbuild.33, 1.31 and 1.32 eksbuild.48 (CoreDNS 1.11.4);
# 1.33-1.36 take v1.13.2-eksbuild.19 and v1.14.3-eksbuild.11, refused above (no schema).
@pytest.mark.parametrize("release", ["v1.11.4-eksbuild.28", "v1.11.4-eksbuild.33", "v1.11.4-eksbuild.48"])
def test_upstream_renders_on_the_eks_default_add_ons_with_coredns_1_11_4(release: str, tmp_path: Path) -> None:
    code, err = _render(tmp_path, "eks", release)
    assert code == 0, err


def test_upstream_works_on_an_eks_add_on_with_coredns_1_11_4(tmp_path: Path) -> None:
    """The forward pair (`next`) reaches the add-on's configurationValues: CoreDNS 1.11.4 has it."""
    code, err = _render(tmp_path, "eks", "v1.11.4-eksbuild.28")
    assert code == 0, err
    document = tmp_path / "overlays" / "eks" / "c" / "coredns-addon-configuration-values.json"
    corefile = json.loads(document.read_text())["corefile"]
    assert "forward . 10.0.0.53 /etc/resolv.conf {" in corefile and "next SERVFAIL REFUSED" in corefile
