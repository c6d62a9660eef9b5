"""The guard builds as Flux builds, and a change reaches a build through whatever kustomize read.

The guard's verdict once rested on a Python model of which files a kustomize build reads
(transformer configs' `path`, replacements sources, openapi schemas … were invisible to it) and on
a batch builder that carried one build's OpenAPI schema into the next. Builds now go through
Flux's own library (tools/helper/build/flux.go) and each reports what kustomize's file system was
asked for (readfs.go). Every case here passed the old guard silently, or built differently
from `kubectl kustomize`.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import yaml

from gen.finding import blocking
from tests.guard.conftest import configmap, flux_ks, kustomization

CM = configmap("my-settings", data="a: b")
DELETE = """
        $patch: delete
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: my-settings
          namespace: kube-system
"""
NOTHING = """
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: other
          namespace: kube-system
        data: {x: y}
"""
PATCHER = """
        apiVersion: builtin
        kind: PatchTransformer
        metadata:
          name: patcher
        path: patch.yaml
"""


def _refused_for(result: object, name: str) -> bool:
    findings = result.findings  # type: ignore[attr-defined]
    return blocking(findings) and any(f.rule == "configmap-pruned" and name in f.message for f in findings)


def test_a_prune_through_a_transformer_config_path_is_refused(flux_repo, guard):
    """The issue's first case: only patch.yaml (named by a builtin PatchTransformer's `path`)
    changes, into a `$patch: delete` of the ConfigMap; `kubectl kustomize` drops it; Flux prunes it.
    The old guard said '0 of 1 clusters touched', exit 0."""
    base = {"clusters/prod/platform.yaml": flux_ks("platform", "./platform"),
            "platform/kustomization.yaml": kustomization("cm.yaml", extra="transformers:\n  - patcher.yaml"),
            "platform/cm.yaml": CM, "platform/patcher.yaml": PATCHER, "platform/patch.yaml": NOTHING.replace("other", "my-settings")}
    root = flux_repo(base, {"platform/patch.yaml": DELETE})
    assert _refused_for(guard(root), "my-settings")
    assert _refused_for(guard(root), "my-settings")  # and again from the cache: the cache keeps what it read


@pytest.mark.parametrize("layout", ["generator-files", "generator-envs", "replacements", "component"])
def test_a_change_to_any_file_kustomize_reads_is_judged(flux_repo, guard, layout):
    """Each kind of indirect input: a change only there reaches the build (the ConfigMap's name
    comes from the changed file, so the old one is pruned)."""
    base = {"clusters/prod/platform.yaml": flux_ks("platform", "./platform")}
    if layout in ("generator-files", "generator-envs"):
        field, text = ("files", "name.txt") if layout == "generator-files" else ("envs", "vars.env")
        entry = "NAME=name.txt" if field == "files" else text
        base |= {"platform/kustomization.yaml": kustomization("cm.yaml", extra=f"""configMapGenerator:
  - name: gen
    namespace: kube-system
    options: {{disableNameSuffixHash: true}}
    {field}: [{entry}]
replacements:
  - source: {{kind: ConfigMap, name: gen, fieldPath: data.NAME}}
    targets:
      - select: {{kind: ConfigMap, name: my-settings}}
        fieldPaths: [metadata.name]"""),
                 "platform/cm.yaml": CM,
                 f"platform/{text}": "kept" if field == "files" else "NAME=kept\n"}
        head = {f"platform/{text}": "renamed" if field == "files" else "NAME=renamed\n"}
        gone = "kept"
    elif layout == "replacements":
        base |= {"platform/kustomization.yaml": kustomization("cm.yaml", "source.yaml", extra="""replacements:
  - path: repl.yaml"""),
                 "platform/cm.yaml": CM, "platform/source.yaml": configmap("names", data="n: kept"),
                 "platform/repl.yaml": """
        source: {kind: ConfigMap, name: names, fieldPath: data.n}
        targets:
          - select: {kind: ConfigMap, name: my-settings}
            fieldPaths: [metadata.name]
"""}
        head = {"platform/repl.yaml": """
        source: {kind: ConfigMap, name: names, fieldPath: data.n}
        targets:
          - select: {kind: ConfigMap, name: nothing-of-that-name}
            fieldPaths: [metadata.name]
"""}
        gone = "kept"
    elif layout == "component":
        base |= {"platform/kustomization.yaml": kustomization("cm.yaml", extra="components: [../comp]"),
                 "platform/cm.yaml": CM,
                 "comp/kustomization.yaml": """
        apiVersion: kustomize.config.k8s.io/v1alpha1
        kind: Component
        patches:
          - path: p.yaml
""", "comp/p.yaml": NOTHING.replace("other", "my-settings")}
        head = {"comp/p.yaml": DELETE}
        gone = "my-settings"
    root = flux_repo(base, {})
    for rel, text in head.items():
        (root / rel).write_text(__import__("textwrap").dedent(text).lstrip("\n"))
    _commit(root)
    result = guard(root)
    assert _refused_for(result, gone), [f.message for f in result.findings]


def _commit(root: Path) -> None:
    from tests.helpers import git

    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "change")


def _helper(batch_bin: Path, requests: list[dict[str, object]], jobs: int = 1) -> dict[str, dict[str, object]]:
    lines = "".join(json.dumps(r) + "\n" for r in requests)
    proc = subprocess.run([str(batch_bin), "build", "-j", str(jobs)], input=lines, capture_output=True, text=True,
                          check=True, timeout=300)
    return {d["id"]: d for d in map(json.loads, proc.stdout.splitlines())}


SCHEMA = {"definitions": {"v1.Thing": {
    "properties": {"spec": {"properties": {"list": {"type": "array", "items": {"type": "object"},
                                                    "x-kubernetes-patch-merge-key": "name",
                                                    "x-kubernetes-patch-strategy": "merge"}}}},
    "x-kubernetes-group-version-kind": [{"group": "", "kind": "Thing", "version": "v1"}]}}}


def _openapi_layouts(root: Path) -> None:
    thing = "apiVersion: v1\nkind: Thing\nmetadata: {name: t}\nspec:\n  list:\n  - {name: x, v: 1}\n"
    patch = "apiVersion: v1\nkind: Thing\nmetadata: {name: t}\nspec:\n  list:\n  - {name: y, v: 2}\n"
    for name, openapi in (("custom", "openapi:\n  path: schema.json\n"), ("plain", "")):
        d = root / name
        d.mkdir(parents=True)
        (d / "thing.yaml").write_text(thing)
        (d / "patch.yaml").write_text(patch)
        (d / "schema.json").write_text(json.dumps(SCHEMA))
        (d / "kustomization.yaml").write_text(f"resources: [thing.yaml]\npatches:\n- path: patch.yaml\n{openapi}")


def test_a_custom_openapi_schema_never_leaks_into_the_next_build(batch_bin, tmp_path, kustomize_argv):
    """kustomize keeps its OpenAPI schema in a global: the old batch builder merged the next
    build's list as [y, x] where kubectl kustomize gives [y]. Every order, one process."""
    _openapi_layouts(tmp_path)
    expected = {}
    for name in ("custom", "plain"):
        out = subprocess.run([*kustomize_argv, str(tmp_path / name)], capture_output=True, text=True, check=True).stdout
        expected[name] = [d for d in yaml.safe_load_all(out) if d]
    assert expected["custom"] != expected["plain"]  # the schema matters: a strategic merge by name
    for order in (["custom", "plain"], ["plain", "custom"], ["custom", "custom", "plain", "plain", "custom"]):
        requests = [{"id": f"{i}-{n}", "root": str(tmp_path), "dir": str(tmp_path / n), "kustomization": {}}
                    for i, n in enumerate(order)]
        got = _helper(batch_bin, requests)
        for i, name in enumerate(order):
            result = got[f"{i}-{name}"]
            assert result.get("error") is None, result
            assert result["objects"] == expected[name], (order, name)
            assert result["exact"] is (name == "custom")  # built by Flux's own Build, which resets the schema


def test_substitution_strips_newlines_from_values_as_flux_does(batch_bin, tmp_path):
    """Flux's varsub drops line breaks from substituteFrom and inline values; the guard's own
    substitution kept them."""
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: d}\n"
                                              "data: {a: '${FROM_CM}', b: '${INLINE}'}\n")
    ks = {"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
          "metadata": {"name": "k", "namespace": "flux-system"},
          "spec": {"path": "./app", "postBuild": {"substitute": {"INLINE": "two\nlines"},
                                                  "substituteFrom": [{"kind": "ConfigMap", "name": "vars"}]}}}
    vars_cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "vars", "namespace": "flux-system"},
               "data": {"FROM_CM": "line1\nline2\n"}}
    got = _helper(batch_bin, [{"id": "1", "root": str(tmp_path), "dir": str(tmp_path / "app"), "kustomization": ks,
                               "objects": [vars_cm]}])["1"]
    assert got["objects"] == [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "namespace": "d"},
                               "data": {"a": "line1line2", "b": "twolines"}}]


def test_every_test_layout_builds_as_kubectl_kustomize_does(batch_bin, tmp_path, kustomize_argv):
    """Parity: for kustomizations with nothing of Flux's own (no spec fields, no postBuild), the
    helper's objects equal `kubectl kustomize`'s, in two worker processes, in any order."""
    _openapi_layouts(tmp_path)
    folders = [tmp_path / "custom", tmp_path / "plain"]
    app = tmp_path / "gen"
    app.mkdir()
    (app / "kustomization.yaml").write_text("configMapGenerator:\n- name: g\n  literals: [a=b]\nnamePrefix: p-\n"
                                            "commonLabels: {team: dns}\nresources: [cm.yaml]\n")
    (app / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {k: v}\n")
    folders.append(app)
    expected = {}
    for f in folders:
        out = subprocess.run([*kustomize_argv, str(f)], capture_output=True, text=True, check=True).stdout
        expected[f.name] = [d for d in yaml.safe_load_all(out) if d]
    requests = [{"id": f"{i}-{f.name}", "root": str(tmp_path), "dir": str(f), "kustomization": {}}
                for i, f in enumerate(folders * 3)]
    got = _helper(batch_bin, requests, jobs=2)
    for key, result in got.items():
        assert result["objects"] == expected[key.split("-", 1)[1]], key
