"""Releases newer than the tables: a later patch renders with a warning, a new minor is refused.

A user who pins a patch released after this coredns-gen must not be stopped at the first
command (gen/platforms/newer.py): the patch takes its minor's newest known facts and stderr says
which, and how to pin the CoreDNS. A minor the tables do not hold yet is refused (exit 2) with
the newest release they hold and how to refresh them. Every platform is covered.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from gen.cli import app
from gen.platforms import get
from gen.versions import parse_version
from tests.helpers import snapshot_tree

ZONE = "zones:\n  - zone: corp.example\n    upstreams: [10.0.0.1]\n"
UPSTREAM = "upstream:\n  resolvers: [10.0.0.53]\n"
EXTRA = {"talos": UPSTREAM, "kubeadm": UPSTREAM, "gardener": "corednsVersion: 1.14.7\n"}


def _render(root: Path, platform: str, release: str, extra: str = "") -> tuple[int, str]:
    text = f"cluster: c\nplatform: {platform}\nplatformVersion: \"{release}\"\n{ZONE}{EXTRA.get(platform, '')}{extra}"
    (root / "v.yaml").write_text(text)
    result = CliRunner().invoke(app, ["render", "--repo", str(root), str(root / "v.yaml")])
    return result.exit_code, result.stderr


def _later(release: str, platform: str) -> str:
    """A patch after `release` that no table holds (the same suffix, patch + 7)."""
    v = parse_version(release)
    head = f"{v.major}.{v.minor}.{v.patch}"
    later = f"{v.major}.{v.minor}.{v.patch + 7}"
    if platform == "eks":  # the add-on: a later eksbuild of the same CoreDNS
        return release.rsplit(".", 1)[0] + ".999"
    return release.replace(head, later, 1)


@pytest.mark.parametrize("platform", ["k3s", "eks"])
def test_a_later_patch_renders_with_the_assumption_on_stderr(platform: str, tmp_path: Path) -> None:
    """k3s main still ships v1.36.3's CoreDNS; EKS's add-on version is its CoreDNS."""
    chosen = get(platform)
    newest = chosen.newest_release()
    release = _later(newest, platform)
    assert chosen.stand_in(release) == newest
    code, err = _render(tmp_path, platform, release)
    assert code == 0, err
    (warning,) = [line for line in err.splitlines() if line.startswith("warning:")]
    coredns = chosen.coredns_for(newest)
    assert f"v.yaml: {platform} {release} is newer than coredns-gen's tables" in warning
    assert f"CoreDNS {coredns} of {newest}" in warning and f"`corednsVersion: {coredns}`" in warning


def test_a_later_patch_with_a_pinned_coredns_says_only_the_layout_is_assumed(tmp_path: Path) -> None:
    release = _later(get("k3s").newest_release(), "k3s")
    code, err = _render(tmp_path, "k3s", release, "corednsVersion: 1.14.9\n")
    assert code == 0, err
    assert f"k3s {release} is newer than coredns-gen's tables: assumed the Corefile layout of " in err
    assert "(CoreDNS as `corednsVersion:` pins it)" in err


@pytest.mark.parametrize("platform", ["k3s", "rke2", "talos", "kubeadm"])
def test_a_known_release_renders_without_a_warning(platform: str, tmp_path: Path) -> None:
    code, err = _render(tmp_path, platform, get(platform).newest_release().replace(".x", ".0"))
    assert code == 0, err
    assert "warning:" not in err


@pytest.mark.parametrize("platform", ["talos", "rke2"])
def test_a_later_patch_whose_source_moved_on_is_refused_until_the_coredns_is_pinned(platform: str, tmp_path: Path) -> None:
    """Talos main and RKE2's release-1.36 ship CoreDNS 1.14.7 past the newest tag's 1.14.6: a later
    patch's CoreDNS is not known. Pinned, the layout is assumed and stderr says so."""
    chosen = get(platform)
    newest = chosen.newest_release()
    release = _later(newest, platform)
    (tmp_path / "overlays").mkdir()
    before = snapshot_tree(tmp_path)
    code, err = _render(tmp_path, platform, release)
    assert code == 2, err
    assert f"{platform} {release} is newer than coredns-gen's tables, and " in err and "ships CoreDNS 1.14.7 where " in err
    assert f"{newest} ships {chosen.coredns_for(newest)}: which CoreDNS {release} runs is not known" in err
    assert "pin it: `corednsVersion:`" in err
    (tmp_path / "v.yaml").unlink()
    assert snapshot_tree(tmp_path) == before
    code, err = _render(tmp_path, platform, release, "corednsVersion: 1.14.7\n")
    assert code == 0, err
    assert f"{platform} {release} is newer than coredns-gen's tables: assumed the Corefile layout of {newest}" in err


def test_a_newer_minor_a_branch_head_carries_with_the_same_corefile_renders_with_a_warning(tmp_path: Path) -> None:
    """Talos main carries 1.15 with the Corefile of v1.14.0-rc.1 (heads.tsv) and CoreDNS 1.14.7:
    refused until pinned (the CoreDNS moved), then rendered with a warning naming both releases."""
    code, err = _render(tmp_path, "talos", "v1.15.0")
    assert code == 2 and "siderolabs/talos main@ad8823176e75 (carrying 1.15) ships CoreDNS 1.14.7 where v1.14.0-rc.1 ships 1.14.6" in err, err
    code, err = _render(tmp_path, "talos", "v1.15.0", "corednsVersion: 1.14.7\n")
    assert code == 0, err
    (warning,) = [line for line in err.splitlines() if line.startswith("warning:")]
    assert ("talos v1.15.0 is a minor coredns-gen's tables do not hold: assumed the Corefile layout of v1.14.0-rc.1, "
            "the newest talos release they hold, because siderolabs/talos main@ad8823176e75 (carrying 1.15) ships the same stock Corefile") in warning
    corefile = (tmp_path / "overlays" / "talos" / "c" / "coredns-configmap.yaml").read_text()
    assert "forward . 10.0.0.53 /etc/resolv.conf" in corefile


def test_a_newer_minor_whose_corefile_changed_at_its_source_is_refused() -> None:
    """The same question with a head whose stock Corefile differs: nothing is assumed."""
    from gen.platforms import newer
    from gen.versions import Version

    head = newer.Head("main", (1, 15), Version(1, 14, 6), "v1.14.0-rc.1", False, "siderolabs/talos main@0123456789ab")
    problem = newer.beyond("talos", "v1.15.0", (Version(1, 14, 0),), "v1.14.0-rc.1", (head,), None, None, False)
    assert problem is not None
    assert "its stock Corefile at siderolabs/talos main@0123456789ab differs from v1.14.0-rc.1's, so nothing is assumed" in problem[0]
    assert newer.newer_minor_base("v1.15.0", ["v1.14.0-rc.1"], (head,)) is None
    assert newer.newer_minor_base("v1.15.0", ["v1.14.0-rc.1"], (head._replace(same_layout=True),)) == "v1.14.0-rc.1"


@pytest.mark.parametrize("platform", ["k3s", "rke2", "eks", "talos", "kubeadm", "aks", "gardener"])
def test_a_minor_newer_than_the_tables_is_refused_naming_the_newest_and_the_refresh(platform: str, tmp_path: Path) -> None:
    chosen = get(platform)
    newest = chosen.newest_release()
    v = parse_version(newest)
    # two minors on: Talos main carries the next one (the test above)
    release = newest.replace(f"{v.major}.{v.minor}", f"{v.major}.{v.minor + 2}", 1).replace(".x", ".0")
    (tmp_path / "overlays").mkdir()
    before = snapshot_tree(tmp_path)
    code, err = _render(tmp_path, platform, release)
    assert code == 2, err
    assert f"{platform} {release} is a minor release coredns-gen's tables do not hold yet (newest known: {newest})" in err
    assert "docs/platform-data.md" in err
    (tmp_path / "v.yaml").unlink()
    assert snapshot_tree(tmp_path) == before


def test_an_older_patch_than_every_known_one_is_not_guessed() -> None:
    """Below the first known patch of a minor the CoreDNS may be older: no stand-in."""
    assert get("talos").stand_in("v1.13.3") == "v1.13.3"  # a table row covers patches 0…9
    assert get("eks").stand_in("v1.11.1-eksbuild.7") is None  # the oldest 1.11 build held is eksbuild.8
