"""Platform by fact, not by guess: a cluster's platform comes from the values
files coredns-gen renders for it or from `.coredns-gen.yaml`; content may only lower a finding."""

from __future__ import annotations

from gen.guard import GuardOptions
from gen.guard.flux.platform_facts import cluster_platforms
from tests.guard.conftest import FLUX_SYSTEM, configmap, flux_ks, hpa, kustomization

HPA_RULE = "k3s-hpa-min-replicas"
DNS = {"clusters/prod/dns.yaml": flux_ks("dns", "./dns")}
CONFIG = ".coredns-gen.yaml"
PLAN = """
    apiVersion: upgrade.cattle.io/v1
    kind: Plan
    metadata:
      name: talos
      namespace: system-upgrade
      labels:
        upgrade.cattle.io/plan: talos
    spec:
      concurrency: 1
      version: v1.11.0
      serviceAccountName: system-upgrade
      upgrade:
        image: ghcr.io/siderolabs/installer
"""


def values(cluster: str, platform: str, output: str | None = None) -> str:
    flux = f"\nflux:\n  output: {output}" if output else ""
    return f"cluster: {cluster}\nplatform: {platform}\nplatformVersion: v1.11.0{flux}\n"


def _hpa_findings(result):
    return [(f.severity.value, f.details["cluster"]) for f in result.findings if f.rule == HPA_RULE]


def test_values_file_landing_in_the_cluster_makes_it_k3s_by_fact(flux_repo, guard):
    base = {**DNS, "dns/hpa.yaml": hpa(2), "dns/custom.yaml": configmap("coredns-custom"),
            CONFIG: "values: [dns-values/*.yaml]\n", "dns-values/prod.yaml": values("prod", "k3s"),
            "clusters/prod/coredns.yaml": flux_ks("coredns", "./overlays/k3s/prod"),
            "overlays/k3s/prod/kustomization.yaml": kustomization("x.yaml"),
            "overlays/k3s/prod/x.yaml": configmap("x", namespace="default")}
    root = flux_repo(base, {"dns/hpa.yaml": None})
    assert _hpa_findings(guard(root)) == [("error", "clusters/prod/flux-system/gotk-sync.yaml")]


def test_k3s_by_fact_with_the_hpa_passes(flux_repo, guard):
    base = {**DNS, "dns/hpa.yaml": hpa(2), CONFIG: "values: [dns-values/*.yaml]\n",
            "dns-values/prod.yaml": values("prod", "k3s", "clusters/prod/dns.yaml")}
    root = flux_repo(base, {"dns/hpa.yaml": hpa(3)})
    assert _hpa_findings(guard(root)) == []


def test_talos_with_a_system_upgrade_plan_is_not_k3s(flux_repo, guard):
    """The system-upgrade-controller's Plan (upgrade.cattle.io) runs on Talos: no k3s evidence."""
    base = {**DNS, "dns/custom.yaml": configmap("coredns-custom"), "dns/plan.yaml": PLAN}
    root = flux_repo(base, {"dns/plan.yaml": PLAN.replace("v1.11.0", "v1.11.1")})
    assert _hpa_findings(guard(root)) == []


def test_talos_by_fact_with_k3s_looking_content_is_not_judged_for_the_hpa(flux_repo, guard):
    pdb = hpa(2).replace("autoscaling/v2", "policy/v1").replace("HorizontalPodAutoscaler", "PodDisruptionBudget")
    base = {**DNS, "dns/custom.yaml": configmap("coredns-custom"), "dns/hpa.yaml": hpa(2), "dns/pdb.yaml": pdb,
            CONFIG: "values: [v/*.yaml]\n", "v/prod.yaml": values("prod", "talos", "clusters/prod/dns.yaml")}
    root = flux_repo(base, {"dns/hpa.yaml": None})
    assert _hpa_findings(guard(root)) == []


def test_guard_clusters_platform_is_a_fact(flux_repo, guard):
    config = "guard:\n  clusters:\n    - {name: prod, root: clusters/prod/flux-system/gotk-sync.yaml, platform: k3s}\n"
    base = {**DNS, "dns/hpa.yaml": hpa(2), "dns/x.yaml": configmap("x"), CONFIG: config}
    root = flux_repo(base, {"dns/hpa.yaml": None})
    assert _hpa_findings(guard(root)) == [("error", "clusters/prod/flux-system/gotk-sync.yaml")]


def test_content_only_k3s_evidence_is_a_warning(flux_repo, guard):
    base = {**DNS, "dns/hpa.yaml": hpa(2), "dns/x.yaml": configmap("x")}
    root = flux_repo(base, {"dns/hpa.yaml": None})
    assert _hpa_findings(guard(root)) == [("warning", "clusters/prod/flux-system/gotk-sync.yaml")]


ROOT_FORWARD = "upstream.override: |\n  forward . 10.0.0.1"
MERGE = "kustomize.toolkit.fluxcd.io/ssa: Merge"


def _custom_findings(result):
    return [f.severity.value for f in result.findings if f.rule == "coredns-custom-keys"]


def test_aks_root_forward_judged_by_content_is_a_warning(flux_repo, guard):
    base = {**DNS, "dns/custom.yaml": configmap("coredns-custom", annotations=MERGE)}
    head = {"dns/custom.yaml": configmap("coredns-custom", data=ROOT_FORWARD, annotations=MERGE)}
    assert _custom_findings(guard(flux_repo(base, head))) == ["warning"]


def test_aks_root_forward_by_fact(flux_repo, guard):
    base = {**DNS, "dns/custom.yaml": configmap("coredns-custom"), CONFIG: "values: [v/*.yaml]\n",
            "v/prod.yaml": values("prod", "aks", "clusters/prod/dns.yaml")}
    head = {"dns/custom.yaml": configmap("coredns-custom", data=ROOT_FORWARD)}
    assert _custom_findings(guard(flux_repo(base, head))) == ["error"]


def test_k3s_by_fact_allows_a_root_forward_override_even_with_aks_markers(flux_repo, guard):
    base = {**DNS, "dns/hpa.yaml": hpa(2), "dns/custom.yaml": configmap("coredns-custom", annotations=MERGE),
            CONFIG: "values: [v/*.yaml]\n", "v/prod.yaml": values("prod", "k3s", "clusters/prod/dns.yaml")}
    head = {"dns/custom.yaml": configmap("coredns-custom", data=ROOT_FORWARD, annotations=MERGE)}
    assert _custom_findings(guard(flux_repo(base, head))) == []


def test_cluster_platforms_maps_each_cluster_by_its_values_files(flux_repo, tmp_path):
    staging = {p.replace("prod", "staging"): t.replace("prod", "staging") for p, t in FLUX_SYSTEM.items()}
    lab = {p.replace("prod", "lab"): t.replace("prod", "lab") for p, t in FLUX_SYSTEM.items()}
    base = {**staging, **lab, **DNS, "clusters/staging/dns.yaml": flux_ks("dns", "./dns"),
            "clusters/lab/dns.yaml": flux_ks("dns", "./dns"), "dns/x.yaml": configmap("x"),
            CONFIG: "values: ['v/**/*.yaml']\n",
            "v/prod.yaml": values("prod", "k3s"), "clusters/prod/coredns.yaml": flux_ks("coredns", "./dns"),
            "v/nested/lab.yaml": values("lab", "aks", "clusters/lab/dns.yaml"),
            "v/a.yaml": values("a", "k3s", "clusters/staging/dns.yaml"),
            "v/b.yaml": values("b", "aks", "clusters/staging/dns.yaml"),  # two platforms: unknown
            "elsewhere/c.yaml": values("c", "talos", "clusters/lab/dns.yaml")}  # not a values: file
    root = flux_repo(base, {})
    assert _platforms(root, tmp_path) == {"clusters/lab/flux-system/gotk-sync.yaml": "aks",
                                          "clusters/prod/flux-system/gotk-sync.yaml": "k3s",
                                          "clusters/staging/flux-system/gotk-sync.yaml": None}


def test_the_config_platform_wins_over_a_values_file(flux_repo, tmp_path):
    config = ("values: [v/*.yaml]\nguard:\n  clusters:\n"
              "    - {name: prod, root: clusters/prod/flux-system/gotk-sync.yaml, platform: talos}\n")
    base = {**DNS, "dns/x.yaml": configmap("x"), CONFIG: config, "v/prod.yaml": values("prod", "k3s", "clusters/prod/dns.yaml")}
    assert _platforms(flux_repo(base, {}), tmp_path) == {"clusters/prod/flux-system/gotk-sync.yaml": "talos"}


def _platforms(root, tmp_path):
    """Run discovery as run_guard does and ask platform_facts (the unit under test)."""
    import tempfile
    from pathlib import Path

    from gen.guard.build.cache import BuildCache
    from gen.guard.discovery import Discovery
    from gen.guard.build.engine import Engine
    from gen.guard.repo.checkout import load_tree
    from gen.guard.repo.revision import remote_urls, resolve

    opts = GuardOptions(repo=root, base="base")
    refs = {"base": resolve(root, opts.base, "--base"), "head": resolve(root, "HEAD", "--head")}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        trees = {label: load_tree(root, commit, work / label / "repo") for label, commit in refs.items()}
        config = trees["head"].config()
        discovery = Discovery(trees, Engine(), BuildCache(tmp_path / "cache"), config, remote_urls(root), work)
        revisions = discovery.explore(discovery.find_roots(refs), refs).revisions
        for tree in trees.values():
            if tree.checkout is not None:
                tree.checkout.close()
        return cluster_platforms(trees["head"], config, revisions)
