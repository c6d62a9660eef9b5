"""A Kustomization that cannot be judged but is new with its whole chain of parents prunes nothing.

Replayed on jsenecal/vrtx-cluster c3822ccc9b ("feat(network): add Multus CNI"): a new app's
Kustomization `network/multus` (this repository) applies a GitRepository of another project and a
Kustomization `network/multus-crd` built from it. `multus-crd` is not judged (its source is not
this repository), but neither it nor its parent exists at base, where their first ancestor was
built and applied neither: nothing of it is in a cluster, so it deletes nothing. Before, only a
parent present at base counted, and adding the app was refused (not-judged-touched).
"""

from __future__ import annotations

from tests.guard.conftest import configmap, flux_ks, kustomization

OTHER_PROJECT = """
    apiVersion: source.toolkit.fluxcd.io/v1
    kind: GitRepository
    metadata: {name: multus-crd, namespace: flux-system}
    spec:
      interval: 30m
      url: https://github.com/example/network-attachment-definition-client
      ref: {tag: v1.7.6}
    ---
    apiVersion: kustomize.toolkit.fluxcd.io/v1
    kind: Kustomization
    metadata: {name: multus-crd, namespace: flux-system}
    spec:
      interval: 15m
      prune: true
      sourceRef: {kind: GitRepository, name: multus-crd}
"""
BASE = {
    "clusters/prod/apps.yaml": flux_ks("apps", "./apps"),
    "apps/kustomization.yaml": kustomization("keep.yaml"),
    "apps/keep.yaml": configmap("keep", namespace="default"),
}
NEW_APP = {
    "apps/kustomization.yaml": kustomization("keep.yaml", "multus/ks.yaml"),
    "apps/multus/ks.yaml": flux_ks("multus", "./apps/multus/app"),
    "apps/multus/app/kustomization.yaml": kustomization("crds.yaml"),
    "apps/multus/app/crds.yaml": OTHER_PROJECT,
}


def _errors(result: object) -> list[tuple[str, str]]:
    return [(f.rule, f.file) for f in result.findings if f.severity.value == "error"]  # type: ignore[attr-defined]


def test_an_unjudged_kustomization_new_with_its_new_parent_is_not_refused(flux_repo, guard):
    """Before: not-judged-touched at apps/multus/app/crds.yaml."""
    result = guard(flux_repo(BASE, NEW_APP))
    assert _errors(result) == []


def test_a_change_to_it_once_it_exists_is_refused(flux_repo, guard):
    """At base it exists (applied by a parent built there): a change to what it builds is still refused."""
    edited = OTHER_PROJECT.replace("prune: true", "prune: true\n      path: ./artifacts")
    result = guard(flux_repo({**BASE, **NEW_APP}, {"apps/multus/app/crds.yaml": edited}))
    assert _errors(result) == [("not-judged-touched", "apps/multus/app/crds.yaml")]


def test_an_edit_of_when_and_how_it_applies_is_not_refused(flux_repo, guard):
    """Replayed on david-driscoll/equestria-cluster 4f0f1d672e: `deletionPolicy: Orphan` added to
    Kustomizations of another repository. What they apply and prune is what it was: before, refused
    (not-judged-touched at their own file)."""
    edited = OTHER_PROJECT.replace("prune: true", "prune: true\n      deletionPolicy: Orphan\n      dependsOn: [{name: multus}]")
    result = guard(flux_repo({**BASE, **NEW_APP}, {"apps/multus/app/crds.yaml": edited}))
    assert _errors(result) == []
