"""Golden overlays: examples/<platform>.yaml -> overlays/ + examples/clusters/, and tests/cases/*.

The committed render is the product reviewers read. When a change to the render is intended,
refresh every golden file with

    python3 -m pytest --update-golden

then review `git diff overlays examples/clusters tests/cases` before committing.
"""

from __future__ import annotations

import shutil
import subprocess
import posixpath
from pathlib import Path

import pytest

from gen.platforms import get
from gen.platforms.base import ObjectRef
from gen.render.project import render_files
from gen.render.writer import diff_plan, plan_tree, write_tree
from tests.conftest import REPO_ROOT

EXAMPLES = ["talos", "k3s", "aks", "rke2", "eks", "kubeadm", "gardener"]
CASES = sorted(p.name for p in (REPO_ROOT / "tests/cases").iterdir() if (p / "values.yaml").is_file())
REFRESH = "refresh with `python3 -m pytest --update-golden`, then review `git diff overlays examples/clusters tests/cases`"


def _compare(files: dict[str, str], root: Path, update: bool, owned: list[Path]) -> None:
    """Exact file set and bytes under the folders this render owns."""
    if update:
        for folder in owned:
            shutil.rmtree(folder, ignore_errors=True)
        write_tree(plan_tree(files, root), root)
        return
    plan = plan_tree(files, root)
    assert plan.clean, f"rendered files differ from the golden files:\n{diff_plan(plan, root)}\n{REFRESH}"
    on_disk = {p.relative_to(root).as_posix() for folder in owned if folder.exists() for p in folder.rglob("*") if p.is_file()}
    assert on_disk == set(files), f"golden folders hold files the render does not make: {sorted(on_disk - set(files))}; {REFRESH}"


@pytest.mark.parametrize("platform", EXAMPLES, ids=EXAMPLES)
def test_example_matches_committed_overlay(platform: str, update_golden: bool) -> None:
    files = render_files([REPO_ROOT / f"examples/{platform}.yaml"], REPO_ROOT)
    overlay = posixpath.dirname(next(p for p in files if p.startswith("overlays/")))
    flux_dir = posixpath.dirname(next(p for p in files if p.startswith("examples/")))
    _compare(files, REPO_ROOT, update_golden, [REPO_ROOT / overlay, REPO_ROOT / flux_dir])


@pytest.mark.parametrize("case", CASES, ids=CASES)
def test_case_matches_expected(case: str, tmp_path: Path, update_golden: bool) -> None:
    folder = REPO_ROOT / "tests/cases" / case
    shutil.copy(folder / "values.yaml", tmp_path / "values.yaml")
    files = render_files([tmp_path / "values.yaml"], tmp_path)
    expected = folder / "expected"
    if update_golden:
        shutil.rmtree(expected, ignore_errors=True)
        write_tree(plan_tree(files, expected), expected)
        return
    _compare(files, expected, False, [expected])


def test_render_twice_gives_identical_bytes(tmp_path: Path) -> None:
    paths = [REPO_ROOT / f"examples/{p}.yaml" for p in EXAMPLES]
    first = render_files(paths, REPO_ROOT)
    second = render_files(list(reversed(paths)), REPO_ROOT)
    assert list(first) == list(second)
    assert first == second
    for file in first.values():
        assert str(REPO_ROOT) not in file.text  # no absolute paths leak into output


def _overlay_dirs() -> list[Path]:
    return sorted(p.parent for p in REPO_ROOT.glob("overlays/*/*/kustomization.yaml")) + sorted(
        p.parent for p in REPO_ROOT.glob("tests/cases/*/expected/overlays/*/*/kustomization.yaml"))


@pytest.mark.kustomize
@pytest.mark.parametrize("overlay", _overlay_dirs(), ids=lambda p: str(p.relative_to(REPO_ROOT)))
def test_overlay_builds_with_real_kustomize_and_passes_strict_schemas(overlay: Path, kustomize_argv: list[str]) -> None:
    from gen.render.object_schemas import validate_object
    from gen.yamlio import load_all_safe

    proc = subprocess.run([*kustomize_argv, str(overlay)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    docs = load_all_safe(proc.stdout)
    listed = [line for line in (overlay / "kustomization.yaml").read_text().splitlines() if line.startswith("- ")]
    assert len(docs) == len(listed)
    never = get(overlay.parent.name).NEVER_TOUCH
    for doc in docs:
        assert validate_object(doc, file=str(overlay)) == []
        meta = doc["metadata"]
        assert ObjectRef(doc["kind"], meta.get("namespace", ""), meta["name"]) not in never  # what the platform owns
        if doc["kind"] == "Deployment":  # kubeadm: a partial apply that merges, never a copy that prunes
            assert meta["annotations"]["kustomize.toolkit.fluxcd.io/ssa"] == "Merge"
            assert "image" not in doc["spec"]["template"]["spec"]["containers"][0]


FLUX_FILES = sorted(REPO_ROOT.glob("examples/clusters/*/*.yaml")) + sorted(REPO_ROOT.glob("tests/cases/*/expected/clusters/**/*.yaml"))
FLUX_SCHEMAS = {
    "Kustomization": "kustomization-kustomize-v1.json",
    "GitRepository": "gitrepository-source-v1.json",
    "OCIRepository": "ocirepository-source-v1.json",
}


@pytest.mark.parametrize("path", FLUX_FILES, ids=lambda p: str(p.relative_to(REPO_ROOT)))
def test_flux_objects_pass_the_flux_crd_schemas(path: Path) -> None:
    """Checked straight against the shipped Flux CRD schemas, not through the render code."""
    import json

    import jsonschema

    from gen.yamlio import load_all_safe

    docs = load_all_safe(path.read_text())
    kinds = [d["kind"] for d in docs]
    assert kinds[-1] == "Kustomization"
    for doc in docs:
        schema = json.loads((REPO_ROOT / "gen/data/flux" / FLUX_SCHEMAS[doc["kind"]]).read_text())
        jsonschema.Draft7Validator(schema).validate(doc)
    kustomization = docs[-1]["spec"]
    assert kustomization["prune"] is True and kustomization["path"].startswith("./overlays/")
    if len(docs) == 2:  # a source in another repository: the Kustomization must point at it
        assert kustomization["sourceRef"] == {"kind": docs[0]["kind"], "name": docs[0]["metadata"]["name"]}
    else:
        assert kustomization["sourceRef"] == {"kind": "GitRepository", "name": "flux-system"}


def test_both_source_kinds_are_covered() -> None:
    kinds = {d["kind"] for p in FLUX_FILES for d in __import__("gen.yamlio").yamlio.load_all_safe(p.read_text())}
    assert {"GitRepository", "OCIRepository", "Kustomization"} <= kinds


VALUES_FILES = [REPO_ROOT / f"examples/{p}.yaml" for p in EXAMPLES] + sorted(REPO_ROOT.glob("tests/cases/*/values.yaml"))


@pytest.mark.parametrize("values_file", VALUES_FILES, ids=lambda p: str(p.relative_to(REPO_ROOT)))
def test_every_rendered_overlay_lints_clean_for_its_own_release(values_file: Path, tmp_path: Path) -> None:
    """What render writes, lint (the independent Corefile checker) must accept for that CoreDNS."""
    from typer.testing import CliRunner

    from gen.cli import app
    from gen.render.values import load_values

    shutil.copy(values_file, tmp_path / "values.yaml")
    values = load_values(tmp_path / "values.yaml", repo=tmp_path)
    write_tree(plan_tree(render_files([tmp_path / "values.yaml"], tmp_path), tmp_path), tmp_path)
    argv = ["lint", str(tmp_path / values.overlay_dir), "--platform", values.platform, "--coredns-version", values.coredns_version, "--strict"]
    if values.platform == "k3s":
        argv += ["--k3s-version", values.platform_version]
    result = CliRunner().invoke(app, argv)
    assert result.exit_code == 0, result.output
