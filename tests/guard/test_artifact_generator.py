"""gen/guard/flux/generator.py against source-watcher's own expectations (in process).

Each case is a case of fluxcd/source-watcher internal/builder/builder_test.go (TestBuild,
TestBuildWithExcludes, TestBuildErrors) at the commit gen/data/SOURCES.md names, by its name there:
the same source files, copy operations and expected staged files (the Go test checks that the
files it names exist and the ones it rules out do not; here the whole staged file set is
compared, which its cases also fix). The last cases are xunholy/k8s-gitops's own copy rule.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gen.guard.flux.generator import Layout, lay_out
from gen.guard.repo.revision import Tree, index_entries


def _tree(*paths: str) -> Tree:
    blobs = {p: f"blob-{p}" for p in paths}
    return Tree("c0ffee", Path("/nonexistent"), blobs, index_entries(blobs))


def _staged(layout: Layout | str) -> dict[str, str]:
    assert isinstance(layout, Layout), layout
    return {out: path for out, (_, path) in sorted(layout.files.items())}


def _op(src: str, dest: str, **more: Any) -> dict[str, Any]:
    return {"from": src, "to": dest, **more}


INFRA = ("infrastructure/controllers/descheduler/release.yaml", "infrastructure/controllers/sealed-secrets/release.yaml",
         "infrastructure/configs/cluster-issuer.yaml")

CASES: list[tuple[str, tuple[str, ...], list[dict[str, Any]], dict[str, str]]] = [
    ("build artifact with single file copy", ("config.yaml",), [_op("@source/config.yaml", "@artifact/")],
     {"config.yaml": "config.yaml"}),
    ("build artifact with glob patterns", ("deployment.yaml", "service.yaml", "configmap.yaml"),
     [_op("@source/*.yaml", "@artifact/manifests/")],
     {"manifests/configmap.yaml": "configmap.yaml", "manifests/deployment.yaml": "deployment.yaml",
      "manifests/service.yaml": "service.yaml"}),
    ("build artifact with root directory copy", ("root.yaml", "subdir/nested.yaml"), [_op("@source/", "@artifact/")],
     {"root.yaml": "root.yaml", "subdir/nested.yaml": "subdir/nested.yaml"}),
    ("build artifact with recursive directory copy", ("root.yaml", "subdir/nested.yaml"),
     [_op("@source/**", "@artifact/")], {"root.yaml": "root.yaml", "subdir/nested.yaml": "subdir/nested.yaml"}),
    ("directory copy without trailing slash creates subdirectory", ("config/app.yaml", "config/db.yaml"),
     [_op("@source/config", "@artifact/dest")],
     {"dest/config/app.yaml": "config/app.yaml", "dest/config/db.yaml": "config/db.yaml"}),
    ("directory copy with trailing slash creates subdirectory", ("config/app.yaml", "config/db.yaml"),
     [_op("@source/config/", "@artifact/dest/")],
     {"dest/config/app.yaml": "config/app.yaml", "dest/config/db.yaml": "config/db.yaml"}),
    ("file copy with trailing slash uses source filename", ("config.yaml",), [_op("@source/config.yaml", "@artifact/dest/")],
     {"dest/config.yaml": "config.yaml"}),
    ("recursive glob pattern strips directory prefix like cp", ("config/app.yaml", "config/subdir/db.yaml"),
     [_op("@source/config/**", "@artifact/dest/")],
     {"dest/app.yaml": "config/app.yaml", "dest/subdir/db.yaml": "config/subdir/db.yaml"}),
    ("file copy should detect when destination is a directory", ("file1.txt", "subdir/file2.txt"),
     [_op("@source/subdir/", "@artifact/"), _op("@source/file1.txt", "@artifact/subdir")],
     {"subdir/file1.txt": "file1.txt", "subdir/file2.txt": "subdir/file2.txt"}),
    ("exclude single file extension", ("app.yaml", "config.json", "README.md", "notes.md"),
     [_op("@source/**", "@artifact/", exclude=["*.md"])], {"app.yaml": "app.yaml", "config.json": "config.json"}),
    ("exclude directory recursively", ("app.yaml", "testdata/test.yaml", "testdata/fixture.json", "configs/prod.yaml"),
     [_op("@source/**", "@artifact/", exclude=["**/testdata/**"])],
     {"app.yaml": "app.yaml", "configs/prod.yaml": "configs/prod.yaml"}),
    ("multiple exclude patterns", ("app.yaml", "README.md", "temp.tmp", ".hidden", "docs/guide.md", "tests/test.go"),
     [_op("@source/**", "@artifact/", exclude=["*.md", "*.tmp", "**/.*", "**/tests/**"])], {"app.yaml": "app.yaml"}),
    ("exclude with glob patterns", ("app.yaml", "config.yaml", "secret.yaml", "other.json"),
     [_op("@source/*.yaml", "@artifact/configs/", exclude=["secret.yaml"])],
     {"configs/app.yaml": "app.yaml", "configs/config.yaml": "config.yaml"}),
    ("exclude single file copy", ("secret.yaml",), [_op("@source/secret.yaml", "@artifact/config.yaml", exclude=["secret.yaml"])],
     {}),
    ("exclude nested directory by full path from source root", INFRA,
     [_op("@source/infrastructure/**", "@artifact/", exclude=["infrastructure/controllers/descheduler/**"])],
     {"configs/cluster-issuer.yaml": INFRA[2], "controllers/sealed-secrets/release.yaml": INFRA[1]}),
    ("exclude nested directory from non-glob directory copy by source root path", INFRA,
     [_op("@source/infrastructure", "@artifact/", exclude=["infrastructure/controllers/descheduler/**"])],
     {"infrastructure/configs/cluster-issuer.yaml": INFRA[2], "infrastructure/controllers/sealed-secrets/release.yaml": INFRA[1]}),
    ("exclude nested directory from glob directory copy by selected root path", INFRA,
     [_op("@source/infrastructure/**", "@artifact/", exclude=["controllers/descheduler/**"])],
     {"configs/cluster-issuer.yaml": INFRA[2], "controllers/sealed-secrets/release.yaml": INFRA[1]}),
    ("exclude does not use recursive walk root as anchor",
     ("infrastructure/descheduler/release.yaml", *INFRA[:2]),
     [_op("@source/infrastructure/**", "@artifact/", exclude=["descheduler/**"])],
     {"controllers/descheduler/release.yaml": INFRA[0], "controllers/sealed-secrets/release.yaml": INFRA[1]}),
    ("exclude nested directory from non-glob directory copy by subtree path", INFRA,
     [_op("@source/infrastructure", "@artifact/", exclude=["controllers/descheduler/**"])],
     {"infrastructure/configs/cluster-issuer.yaml": INFRA[2], "infrastructure/controllers/sealed-secrets/release.yaml": INFRA[1]}),
    # xunholy/k8s-gitops kubernetes/apps/base/flux-system/artifact-generator/artifactgenerator.yaml:
    # a folder named with a trailing slash lands under its own name inside `to`
    ("xunholy/k8s-gitops: an app folder", ("apps/base/home-system/bazarr/app/kustomization.yaml",
                                           "apps/base/home-system/bazarr/app/helmrelease.yaml", "apps/base/home-system/bazarr/ks.yaml"),
     [_op("@repo/apps/base/home-system/bazarr/app/", "@artifact/apps/base/home-system/bazarr/app/")],
     {"apps/base/home-system/bazarr/app/app/helmrelease.yaml": "apps/base/home-system/bazarr/app/helmrelease.yaml",
      "apps/base/home-system/bazarr/app/app/kustomization.yaml": "apps/base/home-system/bazarr/app/kustomization.yaml"}),
    # fs.Glob: `**` is `*` (one folder), never across folders; a folder it matches is copied whole
    ("go fs.Glob: ** is one path element", ("a/x.yaml", "a/b/y.yaml", "a/b/c/z.yaml"),
     [_op("@source/a/**/*.yaml", "@artifact/")], {"a/b/y.yaml": "a/b/y.yaml"}),
]


@pytest.mark.parametrize(("files", "copies", "staged"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_copy_operations_stage_what_source_watcher_stages(files, copies, staged):
    assert _staged(lay_out({"source": _tree(*files), "repo": _tree(*files)}, copies)) == staged


def test_an_excluded_folder_is_not_staged_and_an_emptied_one_is():
    """builder_test.go "multiple exclude patterns": `tests/` is skipped whole, `docs/` stays, empty."""
    layout = lay_out({"source": _tree("app.yaml", "docs/guide.md", "tests/test.go")},
                     [_op("@source/**", "@artifact/", exclude=["*.md", "**/tests/**"])])
    assert isinstance(layout, Layout)
    assert "docs" in layout.folders and "tests" not in layout.folders


@pytest.mark.parametrize(("copies", "said"), [
    ([_op("@source/test.yaml", "@artifact/")], "source 'test.yaml' does not exist"),
    ([_op("@source/*.yaml", "@artifact/")], "no files match pattern '*.yaml' in source 'source'"),
    ([_op("@source/[", "@artifact/")], "invalid glob pattern '['"),
    ([_op("@missing/file.yaml", "@artifact/")], "source alias 'missing' not found"),
    ([_op("@source/*.md", "@artifact/", exclude=["*.md"])], "all files matching pattern '*.md' in source 'source' were excluded"),
    ([_op("@source/*.md", "@artifact/", exclude=["[*.md"])], "invalid exclude pattern '[*.md'"),
], ids=["error when source file does not exist", "error when glob pattern matches no files",
        "error when invalid glob pattern is used", "error when source alias not found", "all files excluded - error",
        "invalid exclude - error"])
def test_the_generator_fails_where_source_watcher_fails(copies, said):
    files = ("README.md",) if "*.md" in copies[0]["from"] else ("other.json",)
    failed = lay_out({"source": _tree(*files)}, copies)
    assert isinstance(failed, str) and said in failed, failed
