"""Builds from memory (coredns-gen-helper protocol 3): a build whose every input is known gets its
files sent to coredns-gen-helper instead of written to disk, and must build exactly as from disk."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path

import pytest

from gen.guard.build.engine import Engine, Job
from gen.guard.flux.fluxspec import parse_ks
from gen.guard.repo.revision import Tree
from tests.guard.conftest import configmap, flux_ks, kustomization

KUSTOMIZATION = """\
resources: [../base, cm.yaml]
namePrefix: prod-
patches:
- path: patch.yaml
configMapGenerator:
- name: settings
  files: [conf=files/app.conf]
  literals: [mode=prod]
"""
FILES = {
    "apps/base/kustomization.yaml": "resources: [deploy.yaml]\ncommonLabels: {app: web}\n",
    "apps/base/deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: 1}\n",
    "apps/prod/kustomization.yaml": KUSTOMIZATION,
    "apps/prod/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: plain}\ndata: {a: '1'}\n",
    "apps/prod/patch.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: 3}\n",
    "apps/prod/files/app.conf": "x = 1\n\u00e9\n",
}


def _run(batch_bin: Path, lines: list[dict[str, object]]) -> dict[str, dict[str, object]]:
    proc = subprocess.run([str(batch_bin), "build", "-j", "2"], input="".join(json.dumps(line) + "\n" for line in lines),
                          capture_output=True, text=True, check=True)
    return {d["id"]: d for d in map(json.loads, proc.stdout.splitlines())}


def test_a_build_from_memory_is_the_build_from_disk(batch_bin: Path, tmp_path: Path) -> None:
    root = tmp_path / "repo"
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    puts: list[dict[str, object]] = [{"put": str(root / rel), "data": base64.b64encode(text.encode()).decode()}
                                     for rel, text in FILES.items()]
    disk = _run(batch_bin, [{"id": "disk", "dir": str(root / "apps/prod"), "root": str(root)}])["disk"]
    memory = _run(batch_bin, [*puts, {"id": "memory", "dir": str(root / "apps/prod"), "root": str(root), "memory": True}])["memory"]
    assert disk.get("error") is None and len(disk["objects"]) == 3  # type: ignore[arg-type]
    assert memory["objects"] == disk["objects"]


def test_memory_holds_only_what_was_put(batch_bin: Path, tmp_path: Path) -> None:
    """A file on disk that was not put is not there for a memory build (nothing is read from disk)."""
    root = tmp_path / "repo"
    (root / "k").mkdir(parents=True)
    (root / "k" / "secret.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: disk-only}\n")
    put = {"put": str(root / "k" / "kustomization.yaml"), "data": base64.b64encode(b"resources: [secret.yaml]\n").decode()}
    out = _run(batch_bin, [put, {"id": "1", "dir": str(root / "k"), "root": str(root), "memory": True}])["1"]
    assert out["objects"] is None and "secret.yaml" in str(out["error"]) and "disk-only" not in repr(out)


def test_the_batch_program_says_it_builds_from_memory(batch_bin: Path) -> None:
    said = subprocess.run([str(batch_bin), "build", "-version"], capture_output=True, text=True, check=True).stdout
    assert said.startswith("build 3 ")


REPO = {
    "clusters/prod/apps.yaml": flux_ks("apps", "./apps/prod", extra="targetNamespace: apps"),  # a wrapper
    "clusters/prod/plain.yaml": flux_ks("plain", "./plain"),
    "plain/kustomization.yaml": kustomization("a.yaml", "b.yaml"),
    "plain/a.yaml": configmap("a", namespace="plain"),
    "plain/b.yaml": configmap("b", namespace="plain"),
    **FILES,
}


def _requests_logged(tmp_path: Path, batch_bin: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """coredns-gen-helper behind a script that keeps every line it is sent."""
    log = tmp_path / "requests.jsonl"
    script = tmp_path / "logging-batch"
    script.write_text(f"#!{sys.executable}\nimport os, subprocess, sys\n"
                      f"if sys.argv[1:] == ['build', '-version']:\n    os.execv({str(batch_bin)!r}, [{str(batch_bin)!r}, 'build', '-version'])\n"
                      f"data = sys.stdin.buffer.read()\nopen({str(log)!r}, 'ab').write(data)\n"
                      f"sys.exit(subprocess.run([{str(batch_bin)!r}, *sys.argv[1:]], input=data).returncode)\n")
    script.chmod(0o755)
    monkeypatch.setenv("COREDNS_GEN_HELPER", str(script))
    return log


def test_the_guard_builds_from_memory_and_judges_as_from_disk(flux_repo, guard, batch_bin, tmp_path,  # type: ignore[no-untyped-def]
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    root = flux_repo(REPO, {"plain/kustomization.yaml": kustomization("a.yaml"), "apps/prod/patch.yaml": None,
                            "apps/prod/kustomization.yaml": KUSTOMIZATION.replace("patches:\n- path: patch.yaml\n", "")})
    log = _requests_logged(tmp_path, batch_bin, monkeypatch)
    from_memory = guard(root, cache_dir=None)
    sent = [json.loads(line) for line in log.read_text().splitlines()]
    builds = [r for r in sent if "id" in r]
    assert builds and all(r.get("memory") for r in builds)  # every build here has exact inputs
    monkeypatch.setattr(Engine, "_protocol", lambda self, batch: 2)  # a protocol 2 coredns-gen-helper: disk
    from_disk = guard(root, cache_dir=None)
    assert [f.as_dict() for f in from_memory.findings] == [f.as_dict() for f in from_disk.findings]
    assert {f.rule for f in from_memory.findings} >= {"configmap-pruned"}
    assert from_memory.stats == from_disk.stats


def test_a_symlinked_input_is_built_from_disk(tmp_path: Path) -> None:
    ks = parse_ks({"metadata": {"name": "a", "namespace": "flux-system"}, "spec": {"path": "./apps"}})
    plain = Tree("0" * 40, tmp_path, {"apps/kustomization.yaml": "b1"})
    linked = Tree("0" * 40, tmp_path, {"apps/kustomization.yaml": "b1", "apps/cm.yaml": "b2"}, links={"apps/cm.yaml": "../cm.yaml"})
    plain.checkout = linked.checkout = object()  # type: ignore[assignment]  # read from git, as load_tree makes them
    engine = Engine(tmp_path / "work")
    assert engine.in_memory(Job("1", plain, ks, ("apps/kustomization.yaml",)))
    assert not engine.in_memory(Job("2", linked, ks, ("apps/kustomization.yaml", "apps/cm.yaml")))
    assert not engine.in_memory(Job("3", plain, ks, None))  # inputs not known exactly


def test_a_file_too_large_for_a_request_line_is_built_from_disk(flux_repo, guard, batch_bin, tmp_path,  # type: ignore[no-untyped-def]
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from gen.guard.build import engine

    root = flux_repo(REPO, {"plain/kustomization.yaml": kustomization("a.yaml")})
    log = _requests_logged(tmp_path, batch_bin, monkeypatch)
    monkeypatch.setattr(engine, "_MEMORY_FILE_LIMIT", 60)  # every kustomization.yaml here is larger
    result = guard(root, cache_dir=None)
    builds = [r for r in map(json.loads, log.read_text().splitlines()) if "id" in r]
    assert builds and not any(r.get("memory") for r in builds)
    assert "configmap-pruned" in {f.rule for f in result.findings}


def test_a_name_memory_cannot_hold_is_built_on_disk(flux_repo, guard, batch_bin, tmp_path,  # type: ignore[no-untyped-def]
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """kustomize's in-memory file system makes only names of [a-zA-Z0-9-_.:] (found in a real
    repository: `jetstack copy.yaml`); such a build is built on disk and judged as ever."""
    odd = {"apps/odd/kustomization.yaml": kustomization("main.yaml", "extra+1.yaml", "jetstack copy.yaml"),
           "apps/odd/main.yaml": configmap("main", namespace="odd"),
           "apps/odd/extra+1.yaml": configmap("extra", namespace="odd"),
           "apps/odd/jetstack copy.yaml": configmap("copy", namespace="odd"),
           "clusters/prod/odd.yaml": flux_ks("odd", "./apps/odd")}
    root = flux_repo({**REPO, **odd}, {"apps/odd/main.yaml": configmap("renamed", namespace="odd")})
    log = _requests_logged(tmp_path, batch_bin, monkeypatch)
    result = guard(root, cache_dir=None)
    builds = [r for r in map(json.loads, log.read_text().splitlines()) if "id" in r]
    on_disk = [r["dir"] for r in builds if not r.get("memory")]
    assert on_disk and all(d.endswith("apps/odd") for d in on_disk) and len(on_disk) < len(builds)
    assert [f.details["object"] for f in result.findings if f.rule == "configmap-pruned"] == ["odd_main__ConfigMap"]


def test_a_failure_inside_a_folder_resource_names_its_cause(flux_repo, guard, batch_bin,  # type: ignore[no-untyped-def]
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """kustomize tries a resource entry as a file first; from memory it must fail as on disk
    ("is a directory"), or the message names that attempt instead of the folder's own failure."""
    sub = {"apps/sub/kustomization.yaml": kustomization("inner"),
           "apps/sub/inner/kustomization.yaml": kustomization("cm.yaml"),
           "apps/sub/inner/cm.yaml": configmap("inner", namespace="sub"),
           "clusters/prod/sub.yaml": flux_ks("sub", "./apps/sub")}
    root = flux_repo({**REPO, **sub}, {"apps/sub/inner/cm.yaml": "a: b: c\n"})
    from_memory = [f.message for f in guard(root, cache_dir=None).findings if f.rule == "build-failed"]
    monkeypatch.setattr(Engine, "_protocol", lambda self, batch: 2)
    from_disk = [f.message for f in guard(root, cache_dir=None).findings if f.rule == "build-failed"]
    assert from_memory == from_disk and len(from_memory) == 1
    assert "accumulating resources from 'cm.yaml': MalformedYAMLError" in from_memory[0]
