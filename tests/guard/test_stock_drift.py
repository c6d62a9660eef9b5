"""Drift on upgrade: a change that moves a cluster to another platform release
shows, in every guard format, what the platform's own stock Corefile changed between the two.

Before it, bumping `platformVersion` (or a k3s system-upgrade Plan) showed nothing: the base
Corefile was read at the head's release, and a repository-owned Corefile that did not change
hid that Talos's own default had."""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path

from typer.testing import CliRunner

from gen.cli import app
from gen.guard.upgrades import recorded_release
from gen.platforms.drift import stock_drift
from gen.versions import Version
from tests.guard.conftest import configmap, flux_ks, kustomization

CONFIG = ".coredns-gen.yaml"


def _values(platform: str, release: str) -> str:
    return f"cluster: edge\nplatform: {platform}\nplatformVersion: {release}\nflux:\n  output: clusters/prod/dns.yaml\n"


def _repo(platform: str, release: str, dns: dict[str, str]) -> dict[str, str]:
    return {CONFIG: "values: [v/*.yaml]\n", "v/edge.yaml": _values(platform, release),
            "clusters/prod/dns.yaml": flux_ks("dns", "./dns"), **dns}


K3S_DNS = {"dns/kustomization.yaml": kustomization("custom.yaml"),
           "dns/custom.yaml": configmap("coredns-custom", data="up.override: forward . 9.9.9.9")}
TALOS_DNS = {"dns/kustomization.yaml": kustomization("cm.yaml"),
             "dns/cm.yaml": configmap("coredns", data="Corefile: |\n  .:53 {\n    errors\n    forward . 10.0.0.1\n  }")}


def plan(version: str) -> str:
    return f"""
        apiVersion: upgrade.cattle.io/v1
        kind: Plan
        metadata:
          name: k3s-server
          namespace: system-upgrade
        spec:
          concurrency: 1
          version: {version}
          serviceAccountName: system-upgrade
          upgrade:
            image: rancher/k3s-upgrade
    """


def invoke(root: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["guard", "--repo", str(root), "--base", "base", "--no-cache", *args],
                                env={"GITHUB_ACTIONS": ""})
    return result.exit_code, result.stdout


def changed(diff: str) -> list[str]:
    return [line for line in diff.splitlines()[2:] if line[:1] in "+-"]


def test_a_k3s_bump_shows_the_stock_corefile_moving_its_forward(flux_repo, guard):
    """k3s 1.32 forwards before importing `*.override`; 1.34 after: the keys' meaning changes."""
    root = flux_repo(_repo("k3s", "v1.32.9+k3s1", K3S_DNS), {"v/edge.yaml": _values("k3s", "v1.34.9+k3s1")})
    (v,) = guard(root).views
    d = v.details
    assert (d["stock_platform"], d["stock_before"], d["stock_after"]) == ("k3s", "v1.32.9+k3s1", "v1.34.9+k3s1")
    assert d["stock_diff"].splitlines()[:2] == ["--- k3s v1.32.9+k3s1 stock Corefile", "+++ k3s v1.34.9+k3s1 stock Corefile"]
    assert changed(d["stock_diff"]) == ["-    forward . /etc/resolv.conf", "+    forward . /etc/resolv.conf"]
    assert d["stock_unknown"] == ""
    # the base side is read at the base's release: the override lands before k3s's own forward only at head
    assert d["base_origin"].startswith("the k3s v1.32.9+k3s1 stock Corefile")
    assert d["head_origin"].startswith("the k3s v1.34.9+k3s1 stock Corefile")
    assert "the k3s stock Corefile changes from v1.32.9+k3s1 to v1.34.9+k3s1 (+1 -1 lines)" in v.message


def test_a_talos_bump_shows_the_stock_change_though_the_owned_corefile_stays(flux_repo, guard):
    """The field report: the repository owns the Corefile, so what CoreDNS loads does not change,
    but Talos's own default did (ttl, max_concurrent, cache exclusions) and nobody was told."""
    root = flux_repo(_repo("talos", "v1.8.0", TALOS_DNS), {"v/edge.yaml": _values("talos", "v1.13.9")})
    (v,) = guard(root).views
    assert v.message.startswith("the Corefile CoreDNS loads in cluster edge does not change (+0 -0 lines); "
                                "the talos stock Corefile changes from v1.8.0 to v1.13.9")
    assert v.details["diff"] == ""
    assert "+        ttl 30" in changed(v.details["stock_diff"])


def test_an_unknown_release_says_the_stock_change_is_not_known(flux_repo, guard):
    root = flux_repo(_repo("talos", "v1.13.9", TALOS_DNS), {"v/edge.yaml": _values("talos", "v1.2.0")})
    (v,) = guard(root).views
    assert v.details["stock_diff"] == ""
    assert v.details["stock_unknown"].startswith("v1.2.0: coredns-gen's tables hold no talos release of that minor")
    assert "the talos stock Corefile change for talos v1.13.9 -> v1.2.0 is not known" in v.message


def test_the_same_release_shows_nothing(flux_repo, guard):
    root = flux_repo(_repo("talos", "v1.13.9", TALOS_DNS), {"v/edge.yaml": _values("talos", "v1.13.9") + "# touched\n"})
    assert guard(root).views == []


def test_a_system_upgrade_plan_bump_is_a_release_change(flux_repo, guard):
    """No values file: the k3s release is what the cluster's own upgrade Plan records."""
    base = {CONFIG: "guard:\n  clusters:\n    - {name: edge, root: clusters/prod/flux-system/gotk-sync.yaml, platform: k3s}\n",
            "clusters/prod/dns.yaml": flux_ks("dns", "./dns"), **K3S_DNS,
            "dns/kustomization.yaml": kustomization("custom.yaml", "plan.yaml"), "dns/plan.yaml": plan("v1.32.9+k3s1")}
    (v,) = guard(flux_repo(base, {"dns/plan.yaml": plan("v1.34.9+k3s1")})).views
    assert (v.details["stock_before"], v.details["stock_after"]) == ("v1.32.9+k3s1", "v1.34.9+k3s1")
    assert changed(v.details["stock_diff"]) == ["-    forward . /etc/resolv.conf", "+    forward . /etc/resolv.conf"]


def test_every_format_shows_the_stock_diff(flux_repo):
    root = flux_repo(_repo("talos", "v1.8.0", TALOS_DNS), {"v/edge.yaml": _values("talos", "v1.13.9")})
    code, text = invoke(root)
    assert code == 0
    assert "   platform default: the talos stock Corefile changes from v1.8.0 to v1.13.9" in text
    assert "--- talos v1.8.0 stock Corefile" in text and "+        ttl 30" in text
    _, out = invoke(root, "--format", "json")
    (view,) = [f for f in json.loads(out) if f["rule"] == "corefile-diff"]
    assert view["details"]["stock_after"] == "v1.13.9" and "+        ttl 30" in view["details"]["stock_diff"]
    _, page = invoke(root, "--format", "markdown")
    assert "<summary>Platform default Corefile: the talos stock Corefile changes from v1.8.0 to v1.13.9" in page
    assert "```diff\n--- talos v1.8.0 stock Corefile" in page
    assert "· **1** platform defaults changed" in page and "Corefiles changed" not in page
    assert "### Cluster edge (platform default changed)" in page


def test_every_format_says_when_the_stock_corefile_is_unknown(flux_repo):
    root = flux_repo(_repo("talos", "v1.13.9", TALOS_DNS), {"v/edge.yaml": _values("talos", "v1.2.0")})
    _, text = invoke(root)
    assert "platform default: the talos stock Corefile change for talos v1.13.9 -> v1.2.0 is not known" in text
    _, out = invoke(root, "--format", "json")
    (view,) = [f for f in json.loads(out) if f["rule"] == "corefile-diff"]
    assert "no talos release of that minor" in view["details"]["stock_unknown"]
    _, page = invoke(root, "--format", "markdown")
    assert "Platform default Corefile: the talos stock Corefile change for talos v1.13.9 -\\&gt; v1.2.0 is not known" in page \
        or "Platform default Corefile: the talos stock Corefile change for talos v1.13.9 -&gt; v1.2.0 is not known" in page


def test_upgrade_objects_name_their_platform_themselves():
    talos = {"apiVersion": "tuppr.home-operations.com/v1alpha1", "kind": "TalosUpgrade",
             "metadata": {"name": "cluster"}, "spec": {"talos": {"version": "v1.11.0"}}}
    assert recorded_release(talos)[:2] == ("talos", "v1.11.0")  # type: ignore[index]
    installer = {"apiVersion": "upgrade.cattle.io/v1", "kind": "Plan", "metadata": {"name": "talos", "namespace": "s"},
                 "spec": {"version": "v1.10.3", "upgrade": {"image": "factory.talos.dev/installer/abc123"}}}
    assert recorded_release(installer)[:2] == ("talos", "v1.10.3")  # type: ignore[index]
    rke2 = {"apiVersion": "upgrade.cattle.io/v1", "kind": "Plan", "spec": {"version": "v1.33.7+rke2r3"}}
    assert recorded_release(rke2)[:2] == ("rke2", "v1.33.7+rke2r3")  # type: ignore[index]
    unsubstituted = {"apiVersion": "upgrade.cattle.io/v1", "kind": "Plan",
                     "spec": {"version": "${KUBE_VERSION}", "upgrade": {"image": "rancher/k3s-upgrade"}}}
    kubelet = {"apiVersion": "upgrade.cattle.io/v1", "kind": "Plan",
               "spec": {"version": "v1.33.1", "upgrade": {"image": "ghcr.io/siderolabs/kubelet"}}}
    channel = {"apiVersion": "upgrade.cattle.io/v1", "kind": "Plan",  # kube-hetzner's: the release is not in git
               "spec": {"channel": "https://update.k3s.io/v1-release/channels/stable", "upgrade": {"image": "rancher/k3s-upgrade"}}}
    assert recorded_release(unsubstituted) is None and recorded_release(kubelet) is None
    assert recorded_release(channel) is None


def test_stock_drift_between_releases_with_the_same_corefile_says_so():
    from gen.platforms import kubeadm

    def text(r: Version) -> str | None:
        return kubeadm.stock_corefile(r, "cluster.local")

    same = [(str(a), str(b)) for a, b in pairwise(kubeadm.releases()) if text(a) == text(b)]
    assert same, "kubeadm holds releases with the same Corefile"
    a, b = same[0]
    drift = stock_drift("kubeadm", f"v{a}", f"v{b}")
    assert drift is not None and drift.diff == "" and drift.unknown == ""
    assert drift.summary() == f"the kubeadm stock Corefile is the same in v{a} and v{b}"
    assert stock_drift("kubeadm", "v1.33.0", "v1.33.0") is None
