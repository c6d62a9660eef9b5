"""A run leaves nothing on disk: what builds read is removed (in the background once the last
build is done, then with the scratch folder), whether the run passes, refuses or fails."""

from __future__ import annotations

from pathlib import Path

import pytest

from gen.errors import ToolError
from tests.guard.conftest import configmap, flux_ks, kustomization

BASE = {
    "clusters/prod/apps.yaml": flux_ks("apps", "./apps", extra="targetNamespace: apps"),  # a wrapper build
    "apps/kustomization.yaml": kustomization("a.yaml", "b.yaml"),
    "apps/a.yaml": configmap("a"),
    "apps/b.yaml": configmap("b"),
}
HEAD = {"apps/kustomization.yaml": kustomization("a.yaml")}


@pytest.fixture
def scratch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "scratch"
    folder.mkdir()
    monkeypatch.setenv("COREDNS_GEN_TMPDIR", str(folder))
    return folder


def test_a_run_with_builds_leaves_nothing(flux_repo, guard, scratch: Path, batch_bin) -> None:  # type: ignore[no-untyped-def]
    result = guard(flux_repo(BASE, HEAD))
    assert "configmap-pruned" in [f.rule for f in result.findings] and result.stats["builds"] >= 2
    assert list(scratch.iterdir()) == []


def test_a_run_that_fails_leaves_nothing(flux_repo, guard, scratch: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, batch_bin) -> None:  # type: ignore[no-untyped-def]
    broken = tmp_path / "broken-batch"
    broken.write_text(f"#!/bin/sh\nif [ \"$2\" = -version ]; then echo 'build 4 (stand-in)'; exit 0; fi\n"
                      f"if [ \"$1\" = artifact ]; then exec {batch_bin} \"$@\"; fi\n"  # the artifact as Flux's; builds fail
                      "cat >/dev/null\necho 'fatal: broken' >&2\nexit 3\n")
    broken.chmod(0o755)
    monkeypatch.setenv("COREDNS_GEN_HELPER", str(broken))
    with pytest.raises(ToolError, match="failed"):
        guard(flux_repo(BASE, HEAD), cache_dir=None)
    assert list(scratch.iterdir()) == []
