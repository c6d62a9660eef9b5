"""kubeadm/kind: the rendered overlay satisfies every point of the wiring contract (docs/lint.md, `wiring-*`).

`lint` proves each point on the files `render` writes: the clean overlay lints clean, and each
point broken in the rendered overlay is caught by its own wiring rule (so no point is passed
by a rule that never looked).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gen.lint.run import run_lint
from gen.render.project import render_files
from gen.render.writer import plan_tree, write_tree
from tests.conftest import REPO_ROOT

OVERLAY = "overlays/kubeadm/c1"
CM, CUSTOM, PATCH = (f"{OVERLAY}/{n}" for n in ("coredns-configmap.yaml", "coredns-custom-configmap.yaml", "coredns-deployment-patch.yaml"))


def _render(tmp_path: Path, version: str = "v1.35.0", coredns: str = "") -> Path:
    text = (REPO_ROOT / "examples/kubeadm.yaml").read_text().replace("lab-kubeadm", "c1").replace("v1.35.0", version)
    if coredns:
        text += f"corednsVersion: {coredns}\n"
    (tmp_path / "v.yaml").write_text(text)
    write_tree(plan_tree(render_files([tmp_path / "v.yaml"], tmp_path), tmp_path), tmp_path)
    return tmp_path / OVERLAY


def _rules(overlay: Path, coredns: str = "1.13.1") -> set[str]:
    return {f.rule for f in run_lint([overlay], coredns_version=coredns, platform="kubeadm")}


def test_the_rendered_overlay_lints_clean(tmp_path: Path) -> None:
    overlay = _render(tmp_path)
    assert _rules(overlay) == set()
    # point 1 in the render itself: coredns-custom is one of the overlay's resources
    assert "- coredns-custom-configmap.yaml" in (overlay / "kustomization.yaml").read_text().splitlines()


BREAKS: dict[str, tuple[str, str, str, str]] = {
    # with `optional: true` a missing coredns-custom only means no fragments, so lint judges
    # the manifest form; the rule fires once the volume is required
    "1-custom-configmap": (PATCH, "optional: true", "optional: false", "wiring-custom-configmap"),
    "2-import-server": (CM, "    import custom/*.server\n", "", "wiring-import-server"),
    "3-mount-path": (PATCH, "mountPath: /etc/coredns/custom", "mountPath: /etc/coredns/zones", "wiring-mount-path"),
    "4-read-only": (PATCH, "readOnly: true", "readOnly: false", "wiring-mount-readonly"),
    "5-subpath": (PATCH, "readOnly: true", "readOnly: true\n          subPath: corp.server", "wiring-mount-subpath"),
    "6-reload": (CM, "        reload\n", "", "wiring-reload"),
    "7-port-53": (PATCH, "      - name: coredns\n", "      - name: coredns\n        args: [-dns.port, '5353']\n", "wiring-port-53"),
}


@pytest.mark.parametrize("point", sorted(BREAKS))
def test_each_contract_point_broken_in_the_render_is_caught(point: str, tmp_path: Path) -> None:
    overlay = _render(tmp_path)
    rel, old, new, rule = BREAKS[point]
    target = tmp_path / rel
    text = target.read_text()
    assert old in text, f"the render no longer has {old!r}"
    target.write_text(text.replace(old, new))
    if point == "1-custom-configmap":
        (tmp_path / CUSTOM).unlink()
    assert rule in _rules(overlay)


@pytest.mark.parametrize(("version", "cache_block"), [("v1.31.4", False), ("v1.32.0", True), ("v1.35.0", True)])
def test_the_corefile_is_kubeadms_own_for_the_release(version: str, cache_block: bool, tmp_path: Path) -> None:
    text = (_render(tmp_path, version, coredns="1.12.0") / "coredns-configmap.yaml").read_text()
    assert ("disable success cluster.local" in text) is cache_block
    assert text.rstrip().endswith("}\n    import custom/*.server")


def test_an_old_kubeadm_without_next_is_refused_with_the_image_hint(tmp_path: Path) -> None:
    with pytest.raises(Exception) as err:
        _render(tmp_path, "v1.32.0")  # CoreDNS 1.11.3: no forward `next`
    assert "does not support forward `next`" in str(err.value) and "dns.imageTag" in str(err.value)
