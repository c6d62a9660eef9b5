"""A rendered overlay is judged for the platform and release it was rendered for.

`render` writes `coredns-gen.io/platform` and `coredns-gen.io/platform-version` on every object
holding Corefile text; `lint overlays/<p>/<c>` without `--platform` reads them, so a k3s or
Gardener overlay is judged in that release's stock Corefile and CoreDNS (before, it was judged
as a bare file for the newest CoreDNS and got an `override-root-forward` warning that does not
apply to the platform it was rendered for).
"""

from __future__ import annotations

import posixpath
import shutil
from pathlib import Path

import pytest

from gen.errors import UsageError
from gen.finding import Severity
from gen.lint.run import lint
from gen.platforms import get
from gen.render.project import render_files
from gen.versions import parse_version
from gen.render.writer import plan_tree, write_tree
from tests.conftest import REPO_ROOT

EXAMPLES = ["k3s", "gardener", "aks", "kubeadm", "talos", "rke2", "eks"]


def _render(example: str, tmp_path: Path) -> tuple[Path, str, str]:
    values = tmp_path / f"{example}.yaml"
    shutil.copy(REPO_ROOT / "examples" / f"{example}.yaml", values)
    files = render_files([values], tmp_path)
    write_tree(plan_tree(files, tmp_path), tmp_path)
    overlay = posixpath.dirname(next(p for p in files if p.startswith("overlays/")))
    text = values.read_text()
    platform = text.split("\nplatform:", 1)[1].split()[0]
    release = text.split("\nplatformVersion:", 1)[1].split()[0].strip('"')
    return tmp_path / overlay, platform, release


@pytest.mark.parametrize("example", EXAMPLES)
def test_overlay_is_judged_for_what_it_was_rendered_for(example: str, tmp_path: Path) -> None:
    overlay, platform, release = _render(example, tmp_path)
    result = lint([overlay])
    assert (result.platform, result.platform_version) == (platform, parse_version(release))
    assert result.rendered and not result.release_newest
    assert "as rendered" in result.assumed()
    expected = get(platform).coredns_for(release)
    if expected is not None:
        assert result.version == expected
    assert [f for f in result.findings if f.severity is Severity.ERROR] == []


@pytest.mark.parametrize("example", ["k3s", "gardener"])
def test_no_override_warning_that_does_not_apply(example: str, tmp_path: Path) -> None:
    overlay, _, _ = _render(example, tmp_path)
    assert [f.rule for f in lint([overlay]).findings if f.rule == "override-root-forward"] == []


OVERRIDE = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: coredns-custom
  namespace: kube-system
  annotations:
    coredns-gen.io/platform: {platform}
    coredns-gen.io/platform-version: {release}
data:
  test.override: |
    hosts {{
      10.0.0.1 example1.org
      fallthrough
    }}
"""


def test_the_annotated_release_decides(tmp_path: Path) -> None:
    """k3s's Corefile has a `hosts` of its own: a second one is refused there, not on AKS."""
    path = tmp_path / "cm.yaml"
    path.write_text(OVERRIDE.format(platform="k3s", release="v1.34.9+k3s1"))
    result = lint([path])
    assert [(f.rule, f.line) for f in result.findings] == [("plugin-once-per-block", 11)]
    assert result.version == get("k3s").coredns_for("v1.34.9+k3s1")
    path.write_text(OVERRIDE.format(platform="aks", release='"1.34"'))
    assert lint([path]).findings == []


def test_a_flag_overrides_the_annotations(tmp_path: Path) -> None:
    path = tmp_path / "cm.yaml"
    path.write_text(OVERRIDE.format(platform="k3s", release="v1.34.9+k3s1"))
    result = lint([path], platform="aks", platform_version="1.34")
    assert (result.platform, result.rendered, result.findings) == ("aks", False, [])


def test_objects_rendered_for_different_platforms_are_bad_input(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(OVERRIDE.format(platform="k3s", release="v1.34.9+k3s1"))
    (tmp_path / "b.yaml").write_text(OVERRIDE.format(platform="aks", release='"1.34"').replace("coredns-custom", "other"))
    with pytest.raises(UsageError, match="rendered for different platforms"):
        lint([tmp_path])
