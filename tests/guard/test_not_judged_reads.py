"""not-judged-touched refuses a change to what a Kustomization that is built but not judged reads,
not to every file under its folder (each case a real git repository built by Flux's own code).

`apps` substitutes from a SOPS Secret, and the Secret's variable reaches Flux's prune marker on an
object (what Flux deletes depends on its value), so `apps` is not judged. Its builds at base and head read `apps/cortex/kustomization.yaml` and
`apps/cortex/app.yaml` only: deleting a folder its kustomization.yaml never listed, or editing a
`helmrelease.yaml` that nothing lists, cannot change what Flux applies or deletes through it.
Before, both were refused because the files lie under its `spec.path` (gavinmcfall/home-ops
7325a4c2666c deleting `cortex/mem0/*`, truxnell/home-cluster 6b0b0859bcae bumping an orphan
helmrelease.yaml). Where no build ran (it fails at both revisions), there is no read set, and every
file under the folder still counts.
"""

from __future__ import annotations

from tests.guard.conftest import by_rule, configmap, flux_ks, kustomization
from tests.guard.test_fail_closed import UNCOMMITTED_ENV

SOPS_SECRET = """
    apiVersion: v1
    kind: Secret
    metadata: {name: cluster-secrets, namespace: flux-system}
    stringData:
      SECRET_NS: ENC[AES256_GCM,data:abc,iv:def,tag:ghi,type:str]
    sops:
      version: 3.8.1
"""
SUBSTITUTE = "postBuild:\n  substituteFrom:\n    - {kind: Secret, name: cluster-secrets}"
HELMRELEASE = """
    apiVersion: helm.toolkit.fluxcd.io/v2
    kind: HelmRelease
    metadata: {name: mem0, namespace: default}
    spec:
      chart:
        spec: {chart: mem0, version: "%s", sourceRef: {kind: HelmRepository, name: charts}}
"""
MARKER = "kustomize.toolkit.fluxcd.io/prune: ${SECRET_NS}"
# `apps` has no kustomization.yaml: Flux's generator lists what is under it, so what the build saw
# (and its fingerprint) changes with any file there, while `apps/cortex/kustomization.yaml` decides
# what it reads (as gavinmcfall/home-ops's kubernetes/apps)
APPS = {
    "clusters/prod/apps.yaml": flux_ks("apps", "./apps", extra=SUBSTITUTE),
    "clusters/prod/secrets.yaml": SOPS_SECRET,
    "apps/cortex/kustomization.yaml": kustomization("app.yaml"),
    "apps/cortex/app.yaml": configmap("app-settings", namespace="apps", annotations=MARKER),  # the variable decides pruning
    "apps/cortex/mem0/ks.yaml": flux_ks("mem0", "./apps/cortex/mem0/app"),
    "apps/cortex/mem0/app/kustomization.yaml": kustomization("helmrelease.yaml"),
    "apps/cortex/mem0/app/helmrelease.yaml": HELMRELEASE % "1.0.0",
    "apps/cortex/orphan/helmrelease.yaml": HELMRELEASE % "1.0.0",
}


def _errors(result: object) -> list[str]:
    return [f.rule for f in result.findings if f.severity.value == "error"]  # type: ignore[attr-defined]


def test_a_deleted_folder_its_kustomization_never_listed_is_not_refused(flux_repo, guard):
    result = guard(flux_repo(APPS, {"apps/cortex/mem0": None}))
    assert _errors(result) == []


def test_an_orphan_helmrelease_listed_nowhere_is_not_refused(flux_repo, guard):
    result = guard(flux_repo(APPS, {"apps/cortex/orphan/helmrelease.yaml": HELMRELEASE % "1.1.0"}))
    assert _errors(result) == []


def test_a_file_its_build_reads_is_still_refused(flux_repo, guard):
    """The parent is built but not judged: a change to what it reads is refused as before."""
    result = guard(flux_repo(APPS, {"apps/cortex/app.yaml": configmap("app-settings", namespace="apps", annotations=MARKER,
                                                                       data="log.override: log # x")}))
    [finding] = by_rule(result.findings, "not-judged-touched")
    assert finding.file == "apps/cortex/app.yaml" and finding.details["kustomization"] == "flux-system/apps"


def test_a_file_it_adds_to_what_its_build_reads_is_refused(flux_repo, guard):
    """Head's build reads the new file: its read set at head holds it."""
    result = guard(flux_repo(APPS, {"apps/cortex/kustomization.yaml": kustomization("app.yaml", "orphan/helmrelease.yaml")}))
    [finding] = by_rule(result.findings, "not-judged-touched")
    assert finding.details["files"] == "apps/cortex/kustomization.yaml"


def test_with_no_read_set_every_file_under_its_folder_counts(flux_repo, guard):
    """`apps` fails to build at both revisions (an env file kept out of git): what it would read in
    the cluster is unknown, so an unlisted file under its folder is refused as before."""
    files = {**APPS, "apps/cortex/kustomization.yaml": kustomization("app.yaml", extra=UNCOMMITTED_ENV)}
    result = guard(flux_repo(files, {"apps/cortex/orphan/helmrelease.yaml": HELMRELEASE % "1.1.0"}))
    [finding] = by_rule(result.findings, "not-judged-touched")
    assert finding.file == "apps/cortex/orphan/helmrelease.yaml"
