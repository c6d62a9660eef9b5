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
    # eksctl's EKS CoreDNS images (pkg/addons/default/assets at eksctl 99984adb): 1.29, 1.33-1.34, 1.35-1.36.
    # .28 has its own schema; .19 and .11 are not in plumdog/eks-addon-configuration@36866d29, so the
    # schema of the newest build below them stands in (every 1.13/1.14 build there has the same one).
    ("eks", "v1.11.4-eksbuild.28"), ("eks", "v1.13.2-eksbuild.19"), ("eks", "v1.14.3-eksbuild.11"),
    ("kubeadm", "v1.36.0"), ("kubeadm", "v1.37.2"),
]
# k3s v1.33.1 imports *.override after its own forward (manifests/coredns.yaml at 471b3307; k3s
# issue #12979 reports it on v1.33.4): it renders zones, and `upstream:` is refused for that reason.
RENDERS_WITHOUT_UPSTREAM = [("k3s", "v1.33.1+k3s1")]
# No row: no source for it was found (gen/data/SOURCES.md); the policy refuses a newer minor.
NOT_YET = [
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


# The EKS add-ons with CoreDNS >= 1.11.4 that EKS 1.29-1.36 default to: eksctl's images (coredns-1.<minor>.json
# at eksctl 99984adb: 1.29 eksbuild.28, 1.30 .33, 1.31-1.32 .48, 1.33-1.34 v1.13.2-eksbuild.19, 1.35-1.36
# v1.14.3-eksbuild.11) and AWS's `defaultVersion` (plumdog/eks-addon-configuration data/coredns/addon.json at
# 36866d29: 1.30-1.32 v1.11.4-eksbuild.40, 1.33-1.34 v1.12.4-eksbuild.18, 1.35 v1.13.2-eksbuild.11, 1.36
# v1.14.3-eksbuild.3; 1.29's v1.11.1-eksbuild.4 runs CoreDNS 1.11.1, without `next`).
EKS_DEFAULTS = ["v1.11.4-eksbuild.28", "v1.11.4-eksbuild.33", "v1.11.4-eksbuild.48", "v1.13.2-eksbuild.19", "v1.14.3-eksbuild.11",
                "v1.11.4-eksbuild.40", "v1.12.4-eksbuild.18", "v1.13.2-eksbuild.11", "v1.14.3-eksbuild.3"]


@pytest.mark.parametrize("release", EKS_DEFAULTS)
def test_upstream_renders_on_the_eks_default_add_ons(release: str, tmp_path: Path) -> None:
    code, err = _render(tmp_path, "eks", release)
    assert code == 0, err
    document = tmp_path / "overlays" / "eks" / "c" / "coredns-addon-configuration-values.json"
    corefile = json.loads(document.read_text())["corefile"]
    assert "forward . 10.0.0.53 /etc/resolv.conf {" in corefile and "next SERVFAIL REFUSED" in corefile


@pytest.mark.parametrize("release", ["v1.11.4-eksbuild.40", "v1.12.4-eksbuild.18", "v1.13.2-eksbuild.11", "v1.14.3-eksbuild.3"])
def test_an_aws_default_add_on_has_its_own_schema(release: str, tmp_path: Path) -> None:
    """No stand-in, so no warning: the vendored schema is that version's own."""
    code, err = _render(tmp_path, "eks", release)
    assert code == 0 and "newer than coredns-gen's tables" not in err, err


def _render_with(root: Path, release: str, extra: str) -> tuple[int, str]:
    (root / "v.yaml").write_text(f"cluster: c\nplatform: eks\nplatformVersion: \"{release}\"\n"
                                 "upstream:\n  resolvers: [10.0.0.53]\n" + extra)
    result = CliRunner().invoke(app, ["render", "--repo", str(root), str(root / "v.yaml")])
    return result.exit_code, result.stderr


def test_a_key_only_the_coredns_1_13_schema_has_is_judged_by_the_add_ons_own_schema(tmp_path: Path) -> None:
    """`trafficDistribution` came with the CoreDNS 1.13 add-on schema: accepted there, refused on 1.12."""
    extra = "eks:\n  configurationValues:\n    replicaCount: 2\n    trafficDistribution: PreferSameZone\n"
    code, err = _render_with(tmp_path, "v1.13.2-eksbuild.11", extra)
    assert code == 0, err
    document = json.loads((tmp_path / "overlays" / "eks" / "c" / "coredns-addon-configuration-values.json").read_text())
    assert document["trafficDistribution"] == "PreferSameZone"
    code, err = _render_with(tmp_path, "v1.12.4-eksbuild.18", extra)
    assert code == 2 and "add-on v1.12.4-eksbuild.18's configuration schema has no 'trafficDistribution' here" in err, err


# k3s's release-1.33 took the override-order fix (k3s #12986, the backport of PR #12980) after v1.33.5:
# from v1.33.6+k3s1 its Corefile imports *.override before its own forward (manifests/coredns.yaml on
# release-1.33, read from the rafaelbreno/k3s fork, gen/data/SOURCES.md), so `upstream:` works on 1.33.
@pytest.mark.parametrize("release", ["v1.33.6+k3s1", "v1.33.12+k3s1", "v1.33.13+k3s1"])
def test_upstream_renders_on_k3s_1_33_with_the_fixed_override_order(release: str, tmp_path: Path) -> None:
    code, err = _render(tmp_path, "k3s", release)
    assert code == 0, err
    assert ("newer than coredns-gen's tables" in err) is (release == "v1.33.13+k3s1"), err
