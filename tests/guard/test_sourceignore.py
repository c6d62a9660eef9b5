"""What a Flux artifact holds, answered by source-controller's and the flux CLI's own code (the helper):
a GitRepository's revision, and a folder pushed by `flux push artifact` then archived again by
source-controller."""

from __future__ import annotations

import pytest

from gen.guard.flux import sourceignore
from gen.guard.flux.sources import push_flags
from gen.guard.flux.sourceignore import Push


def test_a_sourceignore_file_replaces_the_default_exclusions_as_source_controller_does(batch_bin):
    """source-controller's archive filter (fluxcd/pkg/artifact SourceIgnoreFilter) applies its
    default exclusions (images, archives, CI files) only when no ignore pattern is given at all:
    one `.sourceignore` anywhere and they are gone, the VCS ones stay. The guard's own model added
    a .sourceignore on top of the defaults, so it left out of the artifact files Flux builds."""
    files = {"apps/.sourceignore": "drafts/\n", "apps/drafts/a.yaml": "x", "apps/b.yaml": "x", "logo.png": "x",
             ".github/workflows/ci.yaml": "x", ".gitignore": "x", "c/.sops.yaml": "x"}
    ignored = sourceignore.matcher(files, lambda path: files[path].encode())
    assert [p for p in sorted(files) if not ignored(p)] == [
        ".github/workflows/ci.yaml", "apps/.sourceignore", "apps/b.yaml", "c/.sops.yaml", "logo.png"]
    without = {k: v for k, v in files.items() if k != "apps/.sourceignore"}
    ignored = sourceignore.matcher(without, lambda path: without[path].encode())
    assert [p for p in sorted(without) if not ignored(p)] == ["apps/b.yaml", "apps/drafts/a.yaml"]
    ignored = sourceignore.matcher(without, lambda path: without[path].encode(), spec_ignore="/apps/drafts/\n")
    assert [p for p in sorted(without) if not ignored(p)] == [".github/workflows/ci.yaml", "apps/b.yaml",
                                                                "c/.sops.yaml", "logo.png"]


def test_a_sourceignore_file_is_applied_from_its_folder_and_can_re_include(batch_bin):
    files = {"apps/.sourceignore": "drafts/\n", "apps/drafts/a.yaml": "x", "drafts/b.yaml": "x",
             ".sourceignore": "/*\n!/apps/\n", "README.md": "x"}
    ignored = sourceignore.matcher(files, lambda path: files[path].encode())
    assert [p for p in sorted(files) if not ignored(p)] == ["apps/.sourceignore"]


PUSHED = {"kubernetes/apps/a.yaml": "x", "kubernetes/apps/logo.png": "x", "kubernetes/.github/ci.yaml": "x",
          "kubernetes/.gitignore": "x", "kubernetes/cloudbuild.yaml": "x", "kubernetes/drafts/b.yaml": "x",
          "kubernetes/README.md": "x", "outside.yaml": "x"}


def _kept(files: dict[str, str], push: Push, spec_ignore: str | None = None) -> list[str]:
    ignored = sourceignore.matcher(files, lambda path: files[path].encode(), spec_ignore, "kubernetes", push=push)
    return [p for p in sorted(files) if p.startswith("kubernetes/") and not ignored(p)]


@pytest.mark.parametrize(("files", "push", "kept"), [
    # the CLI drops VCS files and images/archives (its default --ignore-paths); source-controller,
    # given no pattern, then drops its defaults too (CI files among them)
    (PUSHED, Push(), ["kubernetes/README.md", "kubernetes/apps/a.yaml", "kubernetes/drafts/b.yaml"]),
    # a .sourceignore that survives the push: source-controller's defaults are gone, its VCS ones stay,
    # and the image the CLI dropped stays dropped (the model this replaces kept applying the defaults)
    ({**PUSHED, "kubernetes/.sourceignore": "drafts/\n"}, Push(),
     ["kubernetes/.github/ci.yaml", "kubernetes/.sourceignore", "kubernetes/README.md", "kubernetes/apps/a.yaml",
      "kubernetes/cloudbuild.yaml"]),
    # --ignore-paths replaces the CLI's defaults (the image is pushed, source-controller drops it),
    # --add-ignore-paths adds to them (the model this replaces read neither)
    (PUSHED, Push(("drafts/",)), ["kubernetes/README.md", "kubernetes/apps/a.yaml"]),
    (PUSHED, Push(None, ("*.md",)), ["kubernetes/apps/a.yaml", "kubernetes/drafts/b.yaml"]),
    # a .sourceignore the push leaves out is never read by source-controller
    ({**PUSHED, "kubernetes/.sourceignore": "drafts/\n"}, Push(None, (".sourceignore",)),
     ["kubernetes/README.md", "kubernetes/apps/a.yaml", "kubernetes/drafts/b.yaml"]),
], ids=["defaults", "sourceignore-pushed", "ignore-paths", "add-ignore-paths", "sourceignore-not-pushed"])
def test_a_pushed_folder_is_what_the_flux_cli_pushes_then_what_source_controller_keeps(batch_bin, files, push, kept):
    assert _kept(files, push) == kept


def test_an_oci_repositorys_spec_ignore_applies_after_the_push(batch_bin):
    assert _kept(PUSHED, Push(), spec_ignore="/drafts/\n") == [
        "kubernetes/.github/ci.yaml", "kubernetes/README.md", "kubernetes/apps/a.yaml", "kubernetes/cloudbuild.yaml"]


@pytest.mark.parametrize(("line", "push"), [
    ("--path=./kubernetes", Push()),
    ('--path=./k --ignore-paths="*.md,tests/"', Push(("*.md", "tests/"))),
    ("--ignore-paths=a --ignore-paths b,c", Push(("a", "b", "c"))),
    ("--add-ignore-paths='secrets/' --path ./k", Push(None, ("secrets/",))),
    ('--ignore-paths=""', Push(())),
], ids=["none", "quoted-list", "repeated", "add", "empty"])
def test_push_flags_are_read_as_the_cli_reads_them(line, push):
    assert push_flags(line) == push


def test_a_helper_that_does_not_know_the_push_filter_fails_closed(tmp_path, monkeypatch):
    """An older helper ignores the request's `push` and answers source-controller's filter alone:
    that answer is not taken."""
    from gen.errors import ToolError

    old = tmp_path / "old-helper"
    old.write_text('#!/bin/sh\nread line\necho \'{"id":"1","kept":["apps/a.yaml"]}\'\n')
    old.chmod(0o755)
    monkeypatch.setenv("COREDNS_GEN_HELPER", str(old))
    with pytest.raises(ToolError, match="older helper"):
        _kept(PUSHED, Push())


def test_each_cluster_builds_in_its_own_bootstrap_sources_ignore(flux_repo, guard):
    """A fleet writes a GitRepository flux-system per cluster, so the repository-wide lookup of a
    root's source is ambiguous: its own file (gotk-sync.yaml) decides, and what its spec.ignore
    leaves out of the artifact was never applied, so deleting it prunes nothing."""
    from tests.guard.conftest import configmap, flux_ks, kustomization

    files = {}
    for cluster in ("a", "b"):
        files[f"clusters/{cluster}/flux-system/kustomization.yaml"] = kustomization("gotk-sync.yaml")
        files[f"clusters/{cluster}/flux-system/gotk-sync.yaml"] = """
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
          ignore: |
            /apps/legacy/
        ---
        """ + flux_ks("flux-system", f"./clusters/{cluster}")
        files[f"clusters/{cluster}/apps.yaml"] = flux_ks("apps", "./apps")
    files["apps/cm.yaml"] = configmap("kept", namespace="default")
    files["apps/legacy/old.yaml"] = configmap("never-applied", namespace="default")
    root = flux_repo(files, {"apps/legacy/old.yaml": None}, standard=False)
    result = guard(root)
    assert [f.rule for f in result.findings if f.severity.value == "error"] == []
