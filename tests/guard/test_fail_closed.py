"""Fail closed on what the guard could not judge, and refuse moves that delete.
Each case passed (exit 0) before: a failing parent hid its children, a clone whose
remotes miss the synced URL judged nothing, and a rename of a ConfigMap's Kustomization let its
finalizer delete the ConfigMap."""

from __future__ import annotations

import pytest

from gen.errors import UsageError
from gen.finding import blocking
from tests.guard.conftest import by_rule, configmap, flux_ks, kustomization
from tests.helpers import git

CUSTOM_ID = "kube-system_coredns-custom__ConfigMap"
REMOTE = "https://git.example.invalid/org/repo//base?ref=v1"  # .invalid never resolves (RFC 2606)
# a kustomization that cannot build here: an env file kept out of git (SOPS-decrypted in CI)
UNCOMMITTED_ENV = "secretGenerator:\n  - name: creds\n    envs:\n      - secret.env"


def errors(result: object) -> list[tuple[str, str]]:
    return [(f.rule, f.details.get("object", f.details.get("kustomization", "")))
            for f in result.findings if f.severity.value == "error"]  # type: ignore[attr-defined]


# -- a parent that fails at both revisions ---------------------------------------------------------
APPS = {
    "clusters/prod/apps.yaml": flux_ks("apps", "./apps"),
    "apps/kustomization.yaml": kustomization("dns.yaml", extra=UNCOMMITTED_ENV),
    "apps/dns.yaml": flux_ks("dns", "./dns"),
    "dns/kustomization.yaml": kustomization("coredns-custom.yaml"),
    "dns/coredns-custom.yaml": configmap("coredns-custom"),
}


def test_children_of_a_parent_failing_at_both_revisions_are_followed_and_judged(flux_repo, guard):
    """`apps` never builds here, but the Kustomization `dns` it applied before is in the cluster
    and reconciles the new revision: dropping coredns-custom from ./dns is a prune."""
    result = guard(flux_repo(APPS, {"dns/kustomization.yaml": kustomization()}))
    assert ("configmap-pruned", CUSTOM_ID) in errors(result)
    assert blocking(result.findings)


def test_children_of_a_failing_parent_pass_when_nothing_is_lost(flux_repo, guard):
    result = guard(flux_repo(APPS, {"dns/extra.yaml": configmap("extra", namespace="default"),
                                    "dns/kustomization.yaml": kustomization("coredns-custom.yaml", "extra.yaml")}))
    assert errors(result) == []


def test_a_change_to_the_files_of_a_parent_failing_at_both_revisions_is_refused(flux_repo, guard):
    """Editing `apps`' own files: Flux applies nothing of `apps` while it fails here, and the
    guard cannot tell what it would: refused with why and how to make it judgeable."""
    root = flux_repo(APPS, {"apps/dns.yaml": flux_ks("dns", "./dns", prune=False)})
    result = guard(root)
    [finding] = by_rule(result.findings, "not-judged-touched")
    assert finding.severity.value == "error"
    assert finding.file == "apps/dns.yaml"
    assert "flux-system/apps" in finding.message and "fails to build at base and at head" in finding.message
    assert "--allow ks:flux-system/apps" in finding.hint
    assert errors(guard(root, allow=("ks:flux-system/apps",))) == []


def test_a_prune_under_a_kustomization_that_needs_the_network_is_refused(flux_repo, guard):
    """A remote base cannot be fetched here, so `dns` fails at both revisions; in the cluster
    Flux fetches it and prunes coredns-custom. Exit 0 before, even with --strict."""
    base = {"clusters/prod/dns.yaml": flux_ks("dns", "./dns"),
            "dns/kustomization.yaml": kustomization("coredns-custom.yaml", REMOTE),
            "dns/coredns-custom.yaml": configmap("coredns-custom")}
    result = guard(flux_repo(base, {"dns/kustomization.yaml": kustomization(REMOTE)}))
    [finding] = by_rule(result.findings, "not-judged-touched")
    assert finding.severity.value == "error" and finding.file == "dns/kustomization.yaml"
    assert "network" in finding.message
    assert finding.details["kustomization"] == "flux-system/dns"


def test_a_change_nowhere_near_an_unjudged_kustomization_passes(flux_repo, guard):
    base = {**APPS, "clusters/prod/platform.yaml": flux_ks("platform", "./platform"),
            "platform/kustomization.yaml": kustomization("coredns.yaml"),
            "platform/coredns.yaml": configmap("coredns")}
    result = guard(flux_repo(base, {"platform/kustomization.yaml": kustomization("coredns.yaml", "extra.yaml"),
                                    "platform/extra.yaml": configmap("extra", namespace="default")}))
    assert errors(result) == []
    assert by_rule(result.findings, "not-judged-touched") == []


# -- sources the guard cannot read ---------------------------------------------------------------
def _foreign(path: str) -> dict[str, str]:
    return {
        "clusters/prod/apps.yaml": f"""
            apiVersion: source.toolkit.fluxcd.io/v1
            kind: GitRepository
            metadata: {{name: other, namespace: flux-system}}
            spec: {{interval: 5m, url: "https://github.com/acme/fleet-mirror", ref: {{branch: main}}}}
            ---
            apiVersion: kustomize.toolkit.fluxcd.io/v1
            kind: Kustomization
            metadata: {{name: apps, namespace: flux-system}}
            spec:
              interval: 10m
              path: {path}
              prune: true
              sourceRef: {{kind: GitRepository, name: other}}
        """,
        "apps/kustomization.yaml": kustomization("coredns-custom.yaml"),
        "apps/coredns-custom.yaml": configmap("coredns-custom"),
        "platform/kustomization.yaml": kustomization("coredns.yaml"),
        "platform/coredns.yaml": configmap("coredns"),
        "clusters/prod/platform.yaml": flux_ks("platform", "./platform"),
    }


def test_a_change_under_the_path_of_a_kustomization_of_another_source_is_refused(flux_repo, guard):
    """`apps` reads ./apps of a repository the guard does not know (a mirror of this one?)."""
    result = guard(flux_repo(_foreign("./apps"), {"apps/kustomization.yaml": kustomization()}))
    [finding] = by_rule(result.findings, "not-judged-touched")
    assert finding.severity.value == "error" and finding.file == "apps/kustomization.yaml"
    assert "is not this repository" in finding.message
    assert "guard.sources" in finding.hint and "--allow ks:flux-system/apps" in finding.hint


def test_guard_sources_makes_the_other_source_judgeable(flux_repo, guard):
    config = {".coredns-gen.yaml": "guard:\n  sources:\n    - source: GitRepository/flux-system/other\n      path: ./\n"}
    result = guard(flux_repo({**_foreign("./apps"), **config}, {"apps/kustomization.yaml": kustomization()}))
    assert errors(result) == [("configmap-pruned", CUSTOM_ID)]


def test_a_change_outside_the_path_of_another_source_passes(flux_repo, guard):
    result = guard(flux_repo(_foreign("./apps"), {"platform/kustomization.yaml": kustomization("coredns.yaml", "x.yaml"),
                                                  "platform/x.yaml": configmap("x", namespace="default")}))
    assert errors(result) == []


# -- a run that judged nothing ---------------------------------------------------------------------
MIRRORED = {
    "clusters/prod/flux-instance.yaml": """
        apiVersion: fluxcd.controlplane.io/v1
        kind: FluxInstance
        metadata: {name: flux, namespace: flux-system}
        spec:
          distribution: {version: "2.x", registry: ghcr.io/fluxcd}
          sync:
            kind: GitRepository
            url: https://github.com/acme/fleet
            ref: refs/heads/main
            path: clusters/prod
    """,
    "clusters/prod/kustomization.yaml": kustomization("coredns-custom.yaml"),
    "clusters/prod/coredns-custom.yaml": configmap("coredns-custom"),
}


def test_a_clone_whose_remotes_miss_the_synced_url_is_bad_input_not_a_pass(flux_repo, guard):
    root = flux_repo(MIRRORED, {"clusters/prod/kustomization.yaml": kustomization()}, standard=False)
    git(root, "remote", "add", "origin", "https://git.example.invalid/mirror/fleet.git")
    with pytest.raises(UsageError) as caught:
        guard(root)
    text = str(caught.value)
    assert "judged nothing" in text and "https://github.com/acme/fleet" in text
    assert "git remote add" in text and "guard.sources" in text
    assert caught.value.exit_code == 2


def test_naming_the_synced_source_in_guard_sources_judges_the_mirror(flux_repo, guard):
    config = {".coredns-gen.yaml": "guard:\n  sources:\n    - source: GitRepository/flux-system/flux-system\n      path: ./\n"}
    root = flux_repo({**MIRRORED, **config}, {"clusters/prod/kustomization.yaml": kustomization()}, standard=False)
    git(root, "remote", "add", "origin", "https://git.example.invalid/mirror/fleet.git")
    assert errors(guard(root)) == [("configmap-pruned", CUSTOM_ID)]


# -- moves that delete -----------------------------------------------------------------------------
HELMRELEASE = """
    apiVersion: helm.toolkit.fluxcd.io/v2
    kind: HelmRelease
    metadata: {name: coredns, namespace: kube-system}
    spec:
      interval: 10m
      chart:
        spec: {chart: coredns, sourceRef: {kind: HelmRepository, name: coredns}}
"""
DEPLOYMENT = """
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: web, namespace: default}
    spec:
      selector: {matchLabels: {app: web}}
      template:
        metadata: {labels: {app: web}}
        spec: {containers: [{name: web, image: nginx}]}
"""
DNS = {
    "clusters/prod/dns.yaml": flux_ks("dns", "./dns"),
    "dns/kustomization.yaml": kustomization("coredns-custom.yaml", "helmrelease.yaml", "web.yaml"),
    "dns/coredns-custom.yaml": configmap("coredns-custom"),
    "dns/helmrelease.yaml": HELMRELEASE,
    "dns/web.yaml": DEPLOYMENT,
}


def test_renaming_the_owning_kustomization_refuses_configmap_and_helmrelease_moves(flux_repo, guard):
    """`dns` becomes `coredns` (same path): the parent prunes `dns`, whose finalizer deletes every
    object still labelled `dns`, unordered with `coredns`' first apply."""
    root = flux_repo(DNS, {"clusters/prod/dns.yaml": flux_ks("coredns", "./dns")})
    findings = guard(root).findings
    assert sorted((f.rule, f.severity.value, f.details["object"]) for f in findings) == [
        ("object-moved", "warning", "default_web_apps_Deployment"),
        ("object-moved-deleted", "error", "kube-system_coredns-custom__ConfigMap"),
        ("object-moved-deleted", "error", "kube-system_coredns_helm.toolkit.fluxcd.io_HelmRelease"),
        ("object-pruned", "warning", "flux-system_dns_kustomize.toolkit.fluxcd.io_Kustomization"),
    ]
    moved = by_rule(findings, "object-moved-deleted")[0]
    assert moved.details["moved_to"] == "flux-system/coredns"
    assert "keep the Kustomization's name" in moved.hint and "prune: disabled" in moved.hint


def test_a_rename_of_a_kustomization_without_prune_moves_nothing_that_is_deleted(flux_repo, guard):
    base = {**DNS, "clusters/prod/dns.yaml": flux_ks("dns", "./dns", prune=False)}
    root = flux_repo(base, {"clusters/prod/dns.yaml": flux_ks("coredns", "./dns", prune=False)})
    assert errors(guard(root)) == []


def test_a_rename_after_prune_disabled_was_merged_passes(flux_repo, guard):
    marked = configmap("coredns-custom", annotations="kustomize.toolkit.fluxcd.io/prune: disabled")
    base = {**DNS, "dns/kustomization.yaml": kustomization("coredns-custom.yaml"), "dns/coredns-custom.yaml": marked}
    root = flux_repo(base, {"clusters/prod/dns.yaml": flux_ks("coredns", "./dns")})
    assert errors(guard(root)) == []


def test_a_new_kustomization_of_another_source_prunes_nothing_so_its_change_is_not_refused(flux_repo, guard):
    """fluxcd/flux2-hub-spoke-example "Setup staging sync": the hub adds a Kustomization on the
    spoke's source. It is in no cluster yet, so it deletes nothing; once it exists, a change to
    what it may read is refused as before."""
    foreign = _foreign("./apps")
    base = {k: v for k, v in foreign.items() if k != "clusters/prod/apps.yaml"}
    result = guard(flux_repo(base, {"clusters/prod/apps.yaml": foreign["clusters/prod/apps.yaml"],
                                    "apps/kustomization.yaml": kustomization()}))
    assert by_rule(result.findings, "not-judged-touched") == []
    assert [f.rule for f in result.findings if f.rule == "not-judged"] == ["not-judged"]  # still named
