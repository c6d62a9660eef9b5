"""The main Corefile each platform loads (what `verify` and `lint` start from)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gen.platforms import get
from gen.render.cluster import render_overlay
from gen.spec import Values
from gen.render.values import load_values
from tests.conftest import REPO_ROOT


def base_corefile(values: Values) -> str:
    return get(values.platform).main_corefile(values)


def _values(name: str) -> Values:
    return load_values(REPO_ROOT / f"examples/{name}.yaml", repo=REPO_ROOT)


@pytest.mark.parametrize(("version", "override_first"), [("v1.32.9+k3s1", False), ("v1.34.9+k3s1", True), ("v1.36.3+k3s1", True)])
def test_k3s_base_corefile_follows_the_release_override_order(version: str, override_first: bool, tmp_path: Path) -> None:
    text = (REPO_ROOT / "examples/k3s.yaml").read_text().replace("v1.34.9+k3s1", version)
    if not override_first:  # old k3s: no `upstream:` (render refuses it), CoreDNS pinned
        text = text.split("upstream:")[0] + "corednsVersion: 1.12.3\nzones:" + text.split("zones:")[1]
    (tmp_path / "v.yaml").write_text(text)
    corefile = base_corefile(load_values(tmp_path / "v.yaml", repo=tmp_path))
    lines = [line.strip() for line in corefile.splitlines()]
    assert "%{" not in corefile and "kubernetes cluster.local in-addr.arpa ip6.arpa {" in lines
    override, forward = lines.index("import /etc/coredns/custom/*.override"), lines.index("forward . /etc/resolv.conf")
    assert (override < forward) is override_first
    assert lines[-1] == "import /etc/coredns/custom/*.server"


def test_aks_base_corefile_imports_custom_keys() -> None:
    lines = [line.strip() for line in base_corefile(_values("aks")).splitlines()]
    assert "import custom/*.override" in lines and lines[-1] == "import custom/*.server"


def test_talos_base_corefile_is_the_rendered_one() -> None:
    values = _values("talos")
    overlay = render_overlay(values)
    configmap = next(f.objects[0] for f in overlay if f.path.endswith("/coredns-configmap.yaml"))
    assert base_corefile(values) == configmap["data"]["Corefile"]


@pytest.mark.parametrize(("platform", "release", "after"), [
    ("aks", "1.34", True), ("k3s", "v1.32.9+k3s1", True), ("k3s", "v1.34.9+k3s1", False), ("k3s", "v1.33.1+k3s1", True),
    ("k3s", "v1.33.5+k3s1", True), ("k3s", "v1.33.6+k3s1", False),  # release-1.33 took k3s PR #12980 after v1.33.5
    ("k3s", "v1.33.13+k3s1", False),  # newer than the release-1.33 read: v1.33.12's layout stands in
    ("gardener", "1.34", False), ("talos", "v1.13.9", None), ("kubeadm", "v1.35.0", None),
])
def test_override_order_is_read_off_each_stock_corefile(platform: str, release: str, after: bool | None) -> None:
    """One fact, decided from the platform's own Corefile: render, lint and guard all ask this."""
    from gen.platforms.stock import overrides_after_root_forward
    from gen.versions import parse_version

    assert overrides_after_root_forward(get(platform), parse_version(release)) is after


def test_every_platform_module_satisfies_the_protocol_and_gke_is_refused() -> None:
    from gen.platforms import PLATFORMS, REFUSED, refusal

    assert sorted(PLATFORMS) == ["aks", "eks", "gardener", "k3s", "kubeadm", "rke2", "talos"]
    for name, platform in PLATFORMS.items():
        assert platform.NAME == name and platform.releases()
        for release in platform.releases():
            text = platform.stock_corefile(release, "cluster.local")
            assert text is None or text.rstrip().endswith("}") or text.rstrip().splitlines()[-1].startswith("import")
    problem = refusal("gke", "--platform")
    assert problem is not None and "kube-dns or Cloud DNS" in problem.problem and "gke" in REFUSED


def test_gardener_stock_has_the_search_path_rewrite_for_the_cluster_domain() -> None:
    """Gardener renders its `rewrite stop` block since v1.97, the domain quoted inside the regexes."""
    from gen.versions import Version

    text = get("gardener").stock_corefile(Version(1, 34, 0), "corp.internal")
    assert text is not None
    assert r"    name regex (^(?:[^\.]+\.)+)svc\.corp\.internal\.svc\.corp\.internal {1}svc.corp.internal" in text.splitlines()
    assert "  kubernetes corp.internal in-addr.arpa ip6.arpa {" in text.splitlines() and "cluster.local" not in text


def test_aks_stock_is_the_current_layout() -> None:
    """Since AKS v20241025: two NXDOMAIN templates after the override import, ttl 30, lameduck 5s."""
    from gen.corefile import parse_corefile
    from gen.versions import Version

    text = get("aks").stock_corefile(Version(1, 36, 0), "cluster.local")
    assert text is not None
    block = parse_corefile(text, filename="aks").server_blocks[0]
    names = [" ".join([d.name, *d.args]) for d in block.directives]
    assert names[-3:] == ["import custom/*.override", "template ANY ANY internal.cloudapp.net", "template ANY ANY reddog.microsoft.com"]
    assert "ttl 30" in text and "lameduck 5s" in text
