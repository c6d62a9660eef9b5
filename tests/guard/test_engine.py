"""Build engine, fingerprints and cache: the batch program and kubectl agree; nothing unchanged
is built twice; a change in a transitively read file is never missed."""

from __future__ import annotations

from pathlib import Path

import pytest

from gen.guard.inputs import Resolver
from gen.guard.revision import load_tree
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
    inputs = Resolver(tree, {}).for_path("apps/prod")
    assert sorted(inputs.files) == ["apps/base/cm.yaml", "apps/base/files/app.conf", "apps/base/kustomization.yaml",
                                    "apps/prod/kustomization.yaml", "apps/prod/patch.yaml"]
    assert inputs.exact and not inputs.missing


def test_remote_base_is_inexact(flux_repo, tmp_path):
    root = flux_repo({"k/kustomization.yaml": kustomization("https://github.com/example/repo//base?ref=v1")}, {})
    tree = load_tree(root, git(root, "rev-parse", "HEAD").strip(), tmp_path / "t")
    assert not Resolver(tree, {}).for_path("k").exact


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
        ("configmap-pruned", "clusters/prod/apps.yaml", "_gen-7gbh7bt7k5__ConfigMap"),  # its generator went too
    ]


def test_unchanged_kustomizations_are_built_once_and_then_cached(flux_repo, guard):
    root = flux_repo(APPS, {"apps/other/x.yaml": configmap("other2", namespace="default")})
    first = guard(root)
    assert first.stats["builds"] == 2  # flux-system and apps: one build serves both revisions
    second = guard(root)
    assert second.stats["builds"] == 0 and second.stats["cache_hits"] == 2
    assert second.findings == first.findings == []


def test_no_cache_builds_again(flux_repo, guard):
    root = flux_repo(APPS, {})
    guard(root)
    assert guard(root, cache_dir=None).stats["builds"] == 2


def test_batch_program_and_kubectl_agree(flux_repo, guard, batch_bin, monkeypatch, tmp_path):
    base = {**APPS, "clusters/prod/gen.yaml": flux_ks("gen", "./flat", extra="targetNamespace: dns\npostBuild:\n  substitute:\n    v: one"),
            "flat/a.yaml": configmap("a-${v}", namespace="default"), "flat/sub/kustomization.yaml": kustomization("b.yaml"),
            "flat/sub/b.yaml": configmap("b", namespace="default"), "flat/notes.txt": "not yaml\n"}
    root = flux_repo(base, {"apps/prod/kustomization.yaml": kustomization("../base"), "flat/sub/b.yaml": None,
                            "flat/sub/kustomization.yaml": kustomization()})
    with_batch = guard(root, cache_dir=None)
    monkeypatch.setenv("COREDNS_GEN_KUSTOMIZE_BATCH", "off")
    with_cli = guard(root, cache_dir=None)
    assert with_batch.findings == with_cli.findings
    assert [f.details["object"] for f in with_cli.findings] == ["dns_b__ConfigMap"]
    assert with_batch.stats == with_cli.stats
