"""Guard fixtures: real git repositories in tmp_path (base commit, then head commit).

`flux_repo(base, head)` writes the base files, commits, applies head (a path mapped to None is
deleted), commits again, and returns the repo root. The standard layout is a Flux bootstrap:
clusters/prod/flux-system/gotk-sync.yaml (root) -> Kustomization `platform` -> ./platform.
Every test uses a private build cache, so no result leaks between tests or from a desk run.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Mapping

import pytest

from gen.finding import Finding
from gen.guard import GuardOptions, GuardResult, run_guard
from tests.conftest import missing_tool
from tests.helpers import build_tree, git

FLUX_SYSTEM = {
    "clusters/prod/flux-system/kustomization.yaml": """
        apiVersion: kustomize.config.k8s.io/v1beta1
        kind: Kustomization
        resources:
          - gotk-sync.yaml
    """,
    "clusters/prod/flux-system/gotk-sync.yaml": """
        apiVersion: source.toolkit.fluxcd.io/v1
        kind: GitRepository
        metadata:
          name: flux-system
          namespace: flux-system
        spec:
          interval: 1m
          url: ssh://git@example.invalid/fleet
          ref:
            branch: main
        ---
        apiVersion: kustomize.toolkit.fluxcd.io/v1
        kind: Kustomization
        metadata:
          name: flux-system
          namespace: flux-system
        spec:
          interval: 10m
          path: ./clusters/prod
          prune: true
          sourceRef:
            kind: GitRepository
            name: flux-system
    """,
}


def hpa(min_replicas: int) -> str:
    """The k3s coredns HPA (README.md, the k3s row) with the given floor."""
    return f"""
        apiVersion: autoscaling/v2
        kind: HorizontalPodAutoscaler
        metadata:
          name: coredns
          namespace: kube-system
        spec:
          scaleTargetRef:
            apiVersion: apps/v1
            kind: Deployment
            name: coredns
          minReplicas: {min_replicas}
          maxReplicas: 3
    """


def flux_ks(name: str, path: str, *, prune: bool = True, extra: str = "") -> str:
    """A Flux Kustomization object (v1) reading this repository's GitRepository."""
    return f"""
        apiVersion: kustomize.toolkit.fluxcd.io/v1
        kind: Kustomization
        metadata:
          name: {name}
          namespace: flux-system
        spec:
          interval: 10m
          path: {path}
          prune: {'true' if prune else 'false'}
          sourceRef:
            kind: GitRepository
            name: flux-system
    """.rstrip(" ") + "".join(f"          {line}\n" for line in extra.splitlines())


def configmap(name: str, namespace: str = "kube-system", data: str = "", annotations: str = "") -> str:
    """A ConfigMap whose default data satisfies the DNS invariants (so only the scenario shows)."""
    if not data:
        data = "Corefile: |\n  .:53 {\n    forward . /etc/resolv.conf\n  }" if name == "coredns" else "log.override: log"
    ann = f"\n          annotations:\n            {annotations}" if annotations else ""
    body = "\n".join("          " + line for line in data.splitlines())
    return f"""
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: {name}
          namespace: {namespace}{ann}
        data:
{body}
    """


def kustomization(*resources: str, extra: str = "") -> str:
    items = "".join(f"\n          - {r}" for r in resources)
    return f"""
        apiVersion: kustomize.config.k8s.io/v1beta1
        kind: Kustomization
        resources:{items if items else ' []'}
    """.rstrip(" ") + "".join(f"        {line}\n" for line in extra.splitlines())


@pytest.fixture
def flux_repo(tmp_path: Path, git_bin: str, kustomize_argv: list[str]) -> Callable[..., Path]:
    def make(base: Mapping[str, str], head: Mapping[str, str | None], *, standard: bool = True) -> Path:
        root = tmp_path / "repo"
        root.mkdir()
        git(root, "init", "-q", "-b", "main")
        files = {**(FLUX_SYSTEM if standard else {}), **base}
        build_tree(root, files)
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "base")
        git(root, "tag", "base")
        for rel, text in head.items():
            if text is None:
                target = root / rel
                if target.is_dir():
                    git(root, "rm", "-r", "-q", rel)
                else:
                    git(root, "rm", "-q", rel)
            else:
                build_tree(root, {rel: text})
        git(root, "add", "-A")
        git(root, "commit", "-q", "--allow-empty", "-m", "head")
        return root

    return make


@pytest.fixture(autouse=True)
def _private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COREDNS_GEN_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture
def guard(tmp_path: Path) -> Callable[..., GuardResult]:
    def run(root: Path, **kw: object) -> GuardResult:
        kw.setdefault("cache_dir", tmp_path / "cache")
        return run_guard(GuardOptions(repo=root, base="base", head="HEAD", **kw))  # type: ignore[arg-type]

    return run


@pytest.fixture
def batch_bin() -> Path:
    """coredns-gen-helper (tools/helper), needed by tests of the batch engine."""
    from gen.guard.build.engine import helper_binary as batch_binary

    found = batch_binary()
    if found is None:
        missing_tool("coredns-gen-helper", RuntimeError("build it: see docs/guard.md (go build in tools/helper)"))
    assert found is not None
    return found


def summary(findings: list[Finding]) -> list[tuple[str, str, str, int, str]]:
    """(rule, severity, file, line, object id) for compact assertions."""
    return [(f.rule, f.severity.value, f.file, f.line, f.details.get("object", f.details.get("kustomization", "")))
            for f in findings]


def by_rule(findings: list[Finding], rule: str) -> list[Finding]:
    return [f for f in findings if f.rule == rule]


__all__ = ["configmap", "flux_ks", "kustomization", "summary", "by_rule", "os"]
