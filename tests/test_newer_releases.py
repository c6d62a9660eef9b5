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


@pytest.mark.parametrize("platform", ["k3s", "rke2", "eks", "talos"])
def test_a_later_patch_renders_with_the_assumption_on_stderr(platform: str, tmp_path: Path) -> None:
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


@pytest.mark.parametrize("platform", ["k3s", "rke2", "eks", "talos", "kubeadm", "aks", "gardener"])
def test_a_minor_newer_than_the_tables_is_refused_naming_the_newest_and_the_refresh(platform: str, tmp_path: Path) -> None:
    chosen = get(platform)
    newest = chosen.newest_release()
    v = parse_version(newest)
    release = newest.replace(f"{v.major}.{v.minor}", f"{v.major}.{v.minor + 1}", 1).replace(".x", ".0")
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
