"""A clone that lists a file whose git object it does not hold is judged, not crashed on.

Copies of a repository that leave out large files (a mirror's snapshot, a partial clone away from
its remote) list every path, but `git ls-tree -l` prints `BAD` for the size of a blob it cannot
find. Replayed on jsenecal/vrtx-cluster (a 4 MiB `db.snapshot` at the root, absent from the copy),
every commit exited 4 (`int('BAD')`). A file that is not a manifest is read by kustomize only where
a kustomization names it, so the guard judges without it; a missing manifest could vanish from a
folder Flux builds whole, so it stops the run with exit 3 naming the file and the fix.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from gen.errors import ToolError
from tests.guard.conftest import configmap, flux_ks, kustomization


def _drop_object(root: Path, path: str) -> None:
    """Remove the loose object of `path` at HEAD, as a copy without that blob has it."""
    blob = subprocess.run(["git", "-C", str(root), "rev-parse", f"HEAD:{path}"], check=True, capture_output=True,
                          text=True).stdout.strip()
    (root / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    listed = subprocess.run(["git", "-C", str(root), "ls-tree", "-r", "-l", "HEAD", "--", path], check=True,
                            capture_output=True, text=True).stdout
    assert " BAD\t" in listed, listed


FILES = {
    "clusters/prod/apps.yaml": flux_ks("apps", "./apps"),
    "apps/kustomization.yaml": kustomization("coredns-custom.yaml"),
    "apps/coredns-custom.yaml": configmap("coredns-custom", data="log.override: log"),
}


def test_a_large_file_the_clone_lacks_is_judged_without_it(flux_repo, guard):
    """Before: ValueError on `int('BAD')`, exit 4, for every commit of the repository."""
    root = flux_repo({**FILES, "db.snapshot": "x" * 4096}, {"apps/kustomization.yaml": kustomization()})
    _drop_object(root, "db.snapshot")
    result = guard(root)
    assert [(f.rule, f.details.get("object")) for f in result.findings if f.severity.value == "error"] == \
        [("configmap-pruned", "kube-system_coredns-custom__ConfigMap")]


def test_a_manifest_the_clone_lacks_stops_the_run_naming_it(flux_repo, guard):
    root = flux_repo(FILES, {"apps/extra.yaml": configmap("extra")})
    _drop_object(root, "apps/extra.yaml")
    with pytest.raises(ToolError, match=r"cannot read apps/extra\.yaml: its git object \w+ is not in this clone"):
        guard(root)
