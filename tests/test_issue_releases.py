"""The releases users run today (fifteen, listed below): each renders without `corednsVersion`, or is
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
@pytest.mark.parametrize("release", ["v1.33.6+k3s1", "v1.33.12+k3s1"])
def test_upstream_renders_on_k3s_1_33_with_the_fixed_override_order(release: str, tmp_path: Path) -> None:
    code, err = _render(tmp_path, "k3s", release)
    assert code == 0, err
    assert "newer than coredns-gen's tables" not in err, err


def test_a_later_k3s_1_33_patch_takes_the_layout_once_its_coredns_is_pinned(tmp_path: Path) -> None:
    """k3s main moved past v1.33.12's CoreDNS 1.14.3 (to 1.14.6): v1.33.13's own is not known, so
    it is pinned; the override order of v1.33.12 is then assumed, with a warning."""
    code, err = _render(tmp_path, "k3s", "v1.33.13+k3s1")
    assert code == 2 and "ships CoreDNS 1.14.6 where v1.33.12+k3s1 ships 1.14.3" in err, err
    (tmp_path / "v.yaml").write_text((tmp_path / "v.yaml").read_text() + "corednsVersion: 1.14.4\n")
    result = CliRunner().invoke(app, ["render", "--repo", str(tmp_path), str(tmp_path / "v.yaml")])
    assert result.exit_code == 0 and "assumed the Corefile layout of v1.33.12+k3s1" in result.stderr, result.stderr


# Each release renders with the CoreDNS its source names, or is
# refused with the source that makes it unknown. The snapshots read are of 2026-08-21/22
# (gen/data/SOURCES.md): no tag of these releases is in them, so a release past the tables renders
# only where the branch heads read beside the tags agree with its stand-in (gen/platforms/newer.py).
# (platform, release, the CoreDNS it renders with)
ISSUE_35_RENDERS = [
    ("k3s", "v1.36.4+k3s1", "1.14.6"),  # k3s-io/k3s main@469d009fb2b4 (carries 1.36) still ships 1.14.6, v1.36.3's
    ("rke2", "v1.36.3+rke2r1", "1.14.6"),  # its own row: rke2-coredns 1.46.201 at the tag
    ("eks", "v1.14.3-eksbuild.3", "1.14.3"),  # AWS's default of EKS 1.36, its own schema
    ("eks", "v1.14.3-eksbuild.14", "1.14.3"),  # the newest 1.14 build, its own schema
    ("aks", "1.36", "1.14.3"),  # supported-versions page at fb060abe
    ("kubeadm", "v1.37.1", "1.14.6"),  # the v1.37 row (kubernetes#140497; UNVERIFIED at the tag, SOURCES.md)
]
# (platform, release, what the refusal names)
ISSUE_35_REFUSED = [
    # Talos main took CoreDNS 1.14.7 (41c0c0a0, PR #14095) after v1.13.9 and v1.14.0-rc.1 were tagged.
    ("talos", "v1.14.7", "siderolabs/talos main@ad8823176e75 (carrying 1.15) ships CoreDNS 1.14.7 where v1.14.0-rc.1 ships 1.14.6"),
    ("talos", "v1.13.10", "siderolabs/talos main@ad8823176e75 (carrying 1.15) ships CoreDNS 1.14.7 where v1.13.9 ships 1.14.6"),
    ("k3s", "v1.37.2+k3s1", "no source read carries it (branch heads read: k3s-io/k3s main@469d009fb2b4 carries 1.36)"),
    ("k3s", "v1.35.8+k3s1", "k3s-io/k3s main@469d009fb2b4 (carrying 1.36) ships CoreDNS 1.14.6 where v1.35.4+k3s1 ships 1.14.2"),
    ("rke2", "v1.37.0+rke2r1", "no source read carries it"),
]


@pytest.mark.parametrize(("platform", "release", "coredns"), ISSUE_35_RENDERS)
def test_issue_35_release_renders_with_the_coredns_its_source_names(platform: str, release: str, coredns: str, tmp_path: Path) -> None:
    from gen.platforms import get

    code, err = _render(tmp_path, platform, release)
    assert code == 0, err
    assert str(get(platform).coredns_for(release)) == coredns


@pytest.mark.parametrize(("platform", "release", "why"), ISSUE_35_REFUSED)
def test_issue_35_release_without_a_source_is_refused_naming_it(platform: str, release: str, why: str, tmp_path: Path) -> None:
    code, err = _render(tmp_path, platform, release)
    assert code == 2 and why in err, err


@pytest.mark.parametrize(("release", "base"), [("v1.14.7", "v1.14.0-rc.1"), ("v1.13.10", "v1.13.9")])
def test_issue_35_talos_renders_once_the_coredns_is_pinned(release: str, base: str, tmp_path: Path) -> None:
    """The issue names CoreDNS 1.14.7 (the release pages): pinned, only the Corefile layout is assumed."""
    (tmp_path / "v.yaml").write_text(f"cluster: c\nplatform: talos\nplatformVersion: {release}\ncorednsVersion: 1.14.7\n"
                                     "upstream:\n  resolvers: [10.0.0.53]\n")
    result = CliRunner().invoke(app, ["render", "--repo", str(tmp_path), str(tmp_path / "v.yaml")])
    assert result.exit_code == 0, result.stderr
    assert f"talos {release} is newer than coredns-gen's tables: assumed the Corefile layout of {base}" in result.stderr


def test_issue_35_gardener_shoot_1_36_renders_with_the_coredns_it_names(tmp_path: Path) -> None:
    """Gardener's CoreDNS follows the Gardener release (imagevector v1.14.7 at b312835d), not the shoot."""
    (tmp_path / "v.yaml").write_text("cluster: c\nplatform: gardener\nplatformVersion: \"1.36\"\ncorednsVersion: 1.14.7\n"
                                     "zones:\n  - zone: corp.example\n    upstreams: [10.0.0.1]\n")
    result = CliRunner().invoke(app, ["render", "--repo", str(tmp_path), str(tmp_path / "v.yaml")])
    assert result.exit_code == 0, result.stderr


def test_the_eks_starter_is_the_default_add_on_of_eks_1_36() -> None:
    from gen.platforms import get

    assert get("eks").DEFAULT_RELEASE == "v1.14.3-eksbuild.3"
