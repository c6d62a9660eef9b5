"""Anchors stay exact when one build loses many objects (the locator indexes a build's inputs
from its second finding on, instead of rescanning every input for each finding)."""

from __future__ import annotations

from gen.guard.repo.manifests import doc_index, entry_lines
from tests.guard.conftest import configmap, flux_ks, kustomization, summary

TWO_DOCS = """apiVersion: v1
kind: ConfigMap
metadata:
  name: a
data:
  k: v
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: b
  namespace: apps
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: a
"""


def test_doc_index_keeps_the_first_document_of_each_object():
    index = doc_index(TWO_DOCS)
    assert index[("ConfigMap", "a")] == (1, {"apiVersion": 1, "kind": 2, "metadata": 3, "metadata.name": 4, "data": 5, "data.k": 6})
    assert index[("ConfigMap", "b")][0] == 8
    assert index[("ConfigMap", "b")][1]["metadata.namespace"] == 12
    assert doc_index("not: [valid") == {}


def test_entry_lines_of_each_top_level_list():
    text = "resources:\n  - a.yaml\n  - b\n  - a.yaml\nbases:\n  - ../x\n"
    assert entry_lines(text) == {"resources": {"a.yaml": 2, "b": 3}, "bases": {"../x": 6}}


def test_many_removals_of_one_build_each_anchored_where_it_was_caused(flux_repo, guard):
    names = [f"cm-{i}" for i in range(8)]
    base = {
        "clusters/prod/apps.yaml": flux_ks("apps", "./apps"),
        "apps/kustomization.yaml": kustomization(*[f"{n}.yaml" for n in names], "pair.yaml"),
        **{f"apps/{n}.yaml": configmap(n, namespace="apps") for n in names},
        "apps/pair.yaml": configmap("pair-a", namespace="apps") + "---" + configmap("pair-b", namespace="apps"),
    }
    head: dict[str, str | None] = {
        # cm-0..3 no longer listed (files kept), cm-4 deleted (and unlisted), cm-5 renamed,
        # pair-b dropped from a file that keeps pair-a; cm-6, cm-7 and pair-a stay
        "apps/kustomization.yaml": kustomization("cm-5.yaml", "cm-6.yaml", "cm-7.yaml", "pair.yaml"),
        "apps/cm-4.yaml": None,
        "apps/cm-5.yaml": configmap("cm-5-renamed", namespace="apps"),
        "apps/pair.yaml": configmap("pair-a", namespace="apps"),
    }
    root = flux_repo(base, head)
    findings = guard(root).findings
    assert summary(findings) == [
        ("configmap-pruned", "error", "apps/cm-4.yaml", 1, "apps_cm-4__ConfigMap"),
        ("configmap-pruned", "error", "apps/cm-5.yaml", 1, "apps_cm-5__ConfigMap"),
        ("configmap-pruned", "error", "apps/kustomization.yaml", 3, "apps_cm-0__ConfigMap"),
        ("configmap-pruned", "error", "apps/kustomization.yaml", 3, "apps_cm-1__ConfigMap"),
        ("configmap-pruned", "error", "apps/kustomization.yaml", 3, "apps_cm-2__ConfigMap"),
        ("configmap-pruned", "error", "apps/kustomization.yaml", 3, "apps_cm-3__ConfigMap"),
        ("configmap-pruned", "error", "apps/pair.yaml", 7, "apps_pair-b__ConfigMap"),
    ]
    by_object = {f.details["object"]: f for f in findings}
    assert "no longer lists 'cm-2.yaml'" in by_object["apps_cm-2__ConfigMap"].message
    assert "apps/cm-4.yaml is deleted" in by_object["apps_cm-4__ConfigMap"].message
    assert "renamed" in by_object["apps_cm-5__ConfigMap"].message
    assert "no longer writes ConfigMap pair-b" in by_object["apps_pair-b__ConfigMap"].message
