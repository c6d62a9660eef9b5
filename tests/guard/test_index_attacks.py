"""The fleet index against changes its recorded looks may not name: a kustomization file added in
a parent folder or in a folder Flux generates the kustomization of, a file added below or gone
from such a folder, a case-only rename, a mode change. Each is judged with the index of base
(which leaves the cluster the change does not reach unexplored) and with no cache at all; both
must say the same. (A symlink is not among them: source-controller's artifact leaves symlinks
out, so no build of a GitRepository artifact reads through one.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import pytest

from gen.guard import GuardOptions, reach, run_guard
from tests.guard.conftest import configmap, flux_ks, kustomization
from tests.guard.test_reach import _root, _said
from tests.helpers import build_tree, git

Edit = Callable[[Path], None]


def _fleet() -> dict[str, str]:
    """c0 builds a folder with a kustomization file, c1 one Flux generates the kustomization of."""
    files: dict[str, str] = {}
    for cluster, path in (("c0", "./apps/v/v1"), ("c1", "./apps/gen")):
        files.update(_root(cluster))
        files[f"clusters/{cluster}/dns.yaml"] = flux_ks("dns", path)
    files["apps/v/v1/kustomization.yaml"] = kustomization("cm.yaml", "custom.yaml")
    files["apps/v/v1/cm.yaml"] = configmap("cm-v1", namespace="apps")
    files["apps/v/v1/custom.yaml"] = configmap("coredns-custom")
    files["apps/gen/cm.yaml"] = configmap("gen-cm", namespace="apps")
    files["apps/gen/custom.yaml"] = configmap("coredns-custom")
    return files


EDITS: dict[str, Edit] = {
    "case-rename": lambda root: git(root, "mv", "apps/v/v1/custom.yaml", "apps/v/v1/Custom.yaml"),
    "case-only-kustomization": lambda root: git(root, "mv", "apps/v/v1/kustomization.yaml", "apps/v/v1/Kustomization"),
    "mode": lambda root: (root / "apps/v/v1/custom.yaml").chmod(0o755),
    "parent-kustomization": lambda root: build_tree(root, {"apps/v/kustomization.yaml": kustomization("v1"),
                                                           "apps/kustomization.yaml": kustomization("gen")}),
    "generated-gains-kustomization": lambda root: build_tree(root, {"apps/gen/kustomization.yaml": kustomization("cm.yaml")}),
    "generated-new-file": lambda root: build_tree(root, {"apps/gen/deeper/more.yaml": configmap("more", namespace="apps")}),
    "generated-loses-file": lambda root: git(root, "rm", "-q", "apps/gen/custom.yaml"),
}


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_an_index_run_says_what_a_run_without_cache_says(edit: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         batch_bin: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    build_tree(root, _fleet())
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    git(root, "tag", "base")
    git(root, "checkout", "-q", "-b", "other")
    build_tree(root, {"README.md": "x\n"})
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "other")
    git(root, "checkout", "-q", "-b", "head", "base")
    EDITS[edit](root)
    git(root, "add", "-A")
    git(root, "commit", "-q", "--allow-empty", "-m", "head")
    cache = tmp_path / "cache"
    run_guard(GuardOptions(repo=root, base="base", head="other", cache_dir=cache))  # leaves base's index
    plans: list[Any] = []
    planned = reach.plan
    monkeypatch.setattr(reach, "plan", lambda *a, **k: plans.append(planned(*a, **k)) or plans[-1])
    with_index = run_guard(GuardOptions(repo=root, base="base", head="head", cache_dir=cache))
    monkeypatch.setattr(reach, "plan", planned)
    whole = run_guard(GuardOptions(repo=root, base="base", head="head", cache_dir=None))
    assert plans[0].only is not None and len(plans[0].only) <= 1, plans[0].why_whole  # the index served
    assert _said(with_index) == _said(whole)
