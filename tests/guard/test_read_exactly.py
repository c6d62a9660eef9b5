"""What a build reads is what Flux's build reads, when the guard reads revisions from git.

The guard reads revisions from git, writes to disk only what a build reads, and recalls a
resolution at the other revision when nothing it looked at changed. Each case here is one a
differential replay (the code before that against the code after, on real and small
repositories) showed to matter: a folder that becomes a file, a second kustomization file, a
manifest symlink whose target changes, files a `git archive` would leave out.
"""

from __future__ import annotations

import os

from gen.finding import Severity
from tests.guard.conftest import by_rule, configmap, flux_ks, kustomization
from tests.helpers import git

APP = {"clusters/prod/app.yaml": flux_ks("app", "./apps/app"), "apps/app/main.yaml": configmap("app-main", "default")}


def test_a_folder_that_becomes_a_file_is_a_change(flux_repo, guard):
    """base: `extra` is a folder without a kustomization file (the build fails); head: a file."""
    root = flux_repo({**APP, "apps/app/kustomization.yaml": kustomization("main.yaml", "extra"),
                      "apps/app/extra/cm.yaml": configmap("app-extra", "default")},
                     {"apps/app/extra": None})
    (root / "apps/app/extra").write_text((root / "apps/app/main.yaml").read_text().replace("app-main", "app-extra"))
    git(root, "add", "-A")
    git(root, "commit", "-q", "--amend", "--no-edit")
    result = guard(root)
    assert result.stats["clusters_judged"] == 1  # not "0 touched": head's build is not base's
    assert ["did not build at base" in f.message for f in by_rule(result.findings, "build-failed")] == [True]


def test_a_folder_with_two_kustomization_files_does_not_build(flux_repo, guard):
    """kustomize (and so Flux) refuses it; writing only the file the guard chose hid that."""
    root = flux_repo({"apps/app/kustomization.yaml": kustomization("main.yaml"), **APP},
                     {"apps/app/kustomization.yml": kustomization("main.yaml")})
    failed = by_rule(guard(root).findings, "build-failed")
    assert [f.severity for f in failed] == [Severity.ERROR]
    assert "Found multiple kustomization files under: apps/app" in failed[0].message


def test_a_new_kustomization_in_a_folder_with_two_kustomization_files_is_refused(flux_repo, guard):
    root = flux_repo({}, {**APP, "apps/app/kustomization.yaml": kustomization("main.yaml"),
                          "apps/app/Kustomization": kustomization("main.yaml")})
    failed = by_rule(guard(root).findings, "build-failed")
    assert [f.severity for f in failed] == [Severity.ERROR]
    assert "Found multiple kustomization files" in failed[0].message


def test_a_manifest_symlink_is_not_in_flux_s_artifact(flux_repo, guard):
    """source-controller's archive holds regular files only (fluxcd/pkg/artifact Archive skips
    symlinks), so a folder whose one manifest is a symlink builds nothing in Flux, before and after
    its target drops b-x: nothing of it was ever applied, nothing is pruned. (The guard used to
    follow the link, and refused a prune Flux never makes.)"""
    root = flux_repo({"clusters/prod/b.yaml": flux_ks("b", "./apps/b"), "shared/cm.yaml": configmap("b-x", "default")}, {})
    git(root, "reset", "-q", "--hard", "base")
    os.makedirs(root / "apps/b")
    os.symlink("../../shared/cm.yaml", root / "apps/b/cm.yaml")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base: the link")
    git(root, "tag", "-f", "base")
    (root / "shared/cm.yaml").write_text((root / "shared/cm.yaml").read_text().replace("b-x", "b-y"))
    git(root, "commit", "-q", "-am", "head: its target drops b-x")
    result = guard(root)
    assert result.findings == []


def test_files_a_git_archive_leaves_out_are_built(flux_repo, guard):
    """`export-ignore` is for `git archive`; Flux clones the repository and has every file."""
    root = flux_repo({**APP, "apps/app/kustomization.yaml": kustomization("main.yaml"),
                      ".gitattributes": "apps/** export-ignore\n"},
                     {"apps/app/kustomization.yaml": kustomization()})
    result = guard(root)
    assert not by_rule(result.findings, "build-failed")
    assert [f.message.split(" would")[0] for f in by_rule(result.findings, "configmap-pruned")] == [
        "ConfigMap default/app-main"]


def _generator(name: str, artifact: str, source: str) -> str:
    return f"""
        apiVersion: source.extensions.fluxcd.io/v1beta1
        kind: ArtifactGenerator
        metadata:
          name: {name}
          namespace: flux-system
        spec:
          sources:
            - alias: repo
              kind: GitRepository
              name: {source}
          artifacts:
            - name: {artifact}
              copy:
                - from: "@repo/infrastructure/**"
                  to: "@artifact/"
    """


def test_artifact_generators_outside_the_builds_are_asked_in_file_order(flux_repo, guard):
    """Three generators no build applies, two named alike: the same answer as when they were a
    plain list in path order (a prune in the ExternalArtifact's Kustomization is refused)."""
    infra = flux_ks("infra-configs", "./configs").replace("kind: GitRepository\n            name: flux-system",
                                                         "kind: ExternalArtifact\n            name: infrastructure")
    root = flux_repo({"generators/a.yaml": _generator("x", "other", "flux-system"),
                      "generators/b.yaml": _generator("y", "infrastructure", "flux-system"),
                      "generators/c.yaml": _generator("x", "infrastructure", "elsewhere"),
                      "clusters/prod/infrastructure.yaml": infra,
                      "infrastructure/configs/kustomization.yaml": kustomization("settings.yaml", "extra.yaml"),
                      "infrastructure/configs/settings.yaml": configmap("settings", "default"),
                      "infrastructure/configs/extra.yaml": configmap("extra", "default")},
                     {"infrastructure/configs/kustomization.yaml": kustomization("settings.yaml")})
    assert [f.message.split(" would")[0] for f in by_rule(guard(root).findings, "configmap-pruned")] == [
        "ConfigMap default/extra"]
