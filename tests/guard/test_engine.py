"""Build engine, fingerprints and cache: the batch program and kubectl agree; nothing unchanged
is built twice; a change in a transitively read file is never missed."""

from __future__ import annotations


import pytest

from gen.guard.build.inputs import Resolver
from gen.guard.repo.checkout import load_tree
from tests.guard.conftest import configmap, flux_ks, kustomization
from tests.helpers import git

APPS = {
    "clusters/prod/apps.yaml": flux_ks("apps", "./apps/prod"),
    "apps/base/kustomization.yaml": kustomization("cm.yaml", extra="configMapGenerator:\n  - name: gen\n    files:\n      - conf=files/app.conf"),
    "apps/base/cm.yaml": configmap("app", namespace="default"),
    "apps/base/files/app.conf": "x = 1\n",
    "apps/prod/kustomization.yaml": kustomization("../base", extra="patches:\n  - path: patch.yaml"),
    "apps/prod/patch.yaml": """
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: app
          namespace: default
        data:
          env: prod
    """,
    "apps/other/kustomization.yaml": kustomization("x.yaml"),
    "apps/other/x.yaml": configmap("other", namespace="default"),
}


def test_inputs_follow_bases_patches_and_generator_files(flux_repo, tmp_path):
    root = flux_repo(APPS, {})
    tree = load_tree(root, git(root, "rev-parse", "HEAD").strip(), tmp_path / "t")
    inputs = Resolver(tree).for_path("apps/prod")
    assert sorted(inputs.files) == ["apps/base/cm.yaml", "apps/base/files/app.conf", "apps/base/kustomization.yaml",
                                    "apps/prod/kustomization.yaml", "apps/prod/patch.yaml"]
    assert inputs.exact and not inputs.missing


def test_remote_base_is_inexact(flux_repo, tmp_path):
    root = flux_repo({"k/kustomization.yaml": kustomization("https://github.com/example/repo//base?ref=v1")}, {})
    tree = load_tree(root, git(root, "rev-parse", "HEAD").strip(), tmp_path / "t")
    assert not Resolver(tree).for_path("k").exact


@pytest.mark.parametrize("changed", ["apps/base/files/app.conf", "apps/base/cm.yaml"])
def test_change_in_a_transitive_input_is_rebuilt(flux_repo, guard, changed):
    text = "y = 2\n" if changed.endswith(".conf") else configmap("app", namespace="default", data="k: v")
    root = flux_repo(APPS, {changed: text})
    result = guard(root)
    assert result.stats["builds"] == 3  # flux-system once (unchanged), apps at base and at head
    assert result.findings == []  # a new generator hash, a changed value: nothing pruned


def test_transitive_base_dropping_an_object_is_refused(flux_repo, guard):
    root = flux_repo({**APPS, "apps/prod/kustomization.yaml": kustomization("../base")},
                     {"apps/base/kustomization.yaml": kustomization()})
    findings = guard(root).findings
    assert [(f.rule, f.file, f.details["object"]) for f in findings] == [
        ("configmap-pruned", "apps/base/kustomization.yaml", "default_app__ConfigMap"),
        ("configmap-pruned", "apps/base/kustomization.yaml", "_gen-7gbh7bt7k5__ConfigMap"),  # its generator went too
    ]


def test_untouched_cluster_builds_only_what_discovery_needs_then_caches(flux_repo, guard):
    root = flux_repo(APPS, {"apps/other/x.yaml": configmap("other2", namespace="default")})  # in no build
    first = guard(root)
    assert first.stats["builds"] == 2  # each Kustomization once: head sees all that base's builds read the same
    assert first.stats["clusters_judged"] == 0
    second = guard(root)  # the fleet index of base: the change reaches no cluster, nothing is built or recalled
    assert second.stats["builds"] == 0 and second.stats["cache_hits"] == 0
    assert second.stats["kustomizations_base"] == first.stats["kustomizations_base"] == 2
    assert second.findings == first.findings == []


def test_touched_cluster_builds_every_kustomization_once_per_fingerprint(flux_repo, guard):
    root = flux_repo({**APPS, "clusters/prod/dns.yaml": flux_ks("dns", "./dns"), "dns/cm.yaml": configmap("coredns-custom")},
                     {"dns/cm.yaml": configmap("coredns-custom", data="x.override: log")})
    result = guard(root)
    assert result.stats["clusters_judged"] == 1
    assert result.stats["builds"] == 4  # flux-system and apps once each (shared), dns at base and head


def test_only_touched_clusters_are_judged(flux_repo, guard):
    from tests.guard.conftest import FLUX_SYSTEM

    staging = {k.replace("prod", "staging"): v.replace("prod", "staging") for k, v in FLUX_SYSTEM.items()}
    base = {**staging, "clusters/prod/dns.yaml": flux_ks("dns", "./dns/prod"), "dns/prod/cm.yaml": configmap("coredns-custom"),
            "clusters/staging/dns.yaml": flux_ks("dns", "./dns/staging"),
            "dns/staging/cm.yaml": configmap("coredns-custom", data="bad.key: x")}  # broken before, untouched
    root = flux_repo(base, {"dns/prod/cm.yaml": None, "dns/prod/other.yaml": configmap("x", namespace="default")})
    result = guard(root)
    assert result.stats["clusters"] == 2 and result.stats["clusters_judged"] == 1
    assert [(f.rule, f.details["cluster"]) for f in result.findings] == [
        ("configmap-pruned", "clusters/prod/flux-system/gotk-sync.yaml")]


def test_no_cache_builds_again(flux_repo, guard):
    root = flux_repo(APPS, {"apps/base/cm.yaml": configmap("app", namespace="default", data="k: v")})
    assert guard(root).stats["builds"] == 3
    assert guard(root).stats["builds"] == 0
    assert guard(root, cache_dir=None).stats["builds"] == 3
