"""source-controller's default ignore rules: the fast matcher answers as gitignore does."""

from __future__ import annotations

import itertools

import pathspec

from gen.guard.flux import sourceignore

NAMES = ["a.yaml", ".github", ".git", "x.png", "cloudbuild.yaml", ".sops.yaml", "y.tar.gz", "z.zip", "app",
         ".gitignore", "appveyor.yml", "photo.jpeg", "k.yml", ".circleci", ".flux.yaml", "notes.gz"]


def test_the_default_rules_of_the_oci_model_match_as_gitignore_does():
    """The model kept for an OCI artifact pushed from a folder (a GitRepository's artifact is
    source-controller's own answer): its fast default matcher equals gitignore matching."""
    spec = pathspec.GitIgnoreSpec.from_lines([*sourceignore.VCS, *sourceignore.DEFAULTS])
    paths = ["/".join(p) for n in (1, 2, 3) for p in itertools.product(NAMES, repeat=n)]
    assert len(paths) > 4000
    assert [p for p in paths if sourceignore._default_ignored(p) != spec.match_file(p)] == []


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
