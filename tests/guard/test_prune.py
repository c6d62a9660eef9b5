"""What Flux would delete, orphan or move: one real git repository per scenario."""

from __future__ import annotations

from pathlib import Path

import pytest

from gen.errors import UsageError
from gen.finding import Finding, Severity, blocking
from tests.guard.conftest import by_rule, configmap, flux_ks, hpa, kustomization, summary

CUSTOM_ID = "kube-system_coredns-custom__ConfigMap"
COREDNS_ID = "kube-system_coredns__ConfigMap"

PLATFORM = {
    "clusters/prod/platform.yaml": flux_ks("platform", "./platform"),
    "platform/kustomization.yaml": kustomization("coredns"),
    "platform/coredns/kustomization.yaml": kustomization("coredns-custom.yaml"),
    "platform/coredns/coredns-custom.yaml": configmap("coredns-custom", data="corp.server: |\n  corp:53 {\n    forward . 10.0.0.1\n  }"),
}
HPA = hpa(2)


def test_seed_002_rewrite_that_drops_coredns_custom_is_refused(flux_repo, guard):
    root = flux_repo(PLATFORM, {"platform/coredns/kustomization.yaml": kustomization("hpa.yaml"),
                                "platform/coredns/hpa.yaml": HPA})
    findings = guard(root).findings
    assert summary(findings) == [
        ("configmap-pruned", "error", "platform/coredns/kustomization.yaml", 3, CUSTOM_ID),
    ]
    f = findings[0]
    assert "ConfigMap kube-system/coredns-custom would be deleted by Flux" in f.message
    assert "flux-system/platform" in f.message
    assert "no longer lists 'coredns-custom.yaml'" in f.message
    assert "put '- coredns-custom.yaml' back under resources:" in f.hint
    assert "protects nothing" in f.hint
    assert f.details["kustomization"] == "flux-system/platform"
    assert blocking(findings)


def test_seed_002_additive_change_passes(flux_repo, guard):
    root = flux_repo(PLATFORM, {"platform/coredns/kustomization.yaml": kustomization("coredns-custom.yaml", "hpa.yaml"),
                                "platform/coredns/hpa.yaml": HPA})
    assert guard(root).findings == []


def test_talos_corefile_file_deleted_is_refused_at_that_file(flux_repo, guard):
    base = {
        "clusters/prod/dns.yaml": flux_ks("dns", "./flux/config/coredns"),
        "flux/config/coredns/corefile.yaml": configmap("coredns", data="Corefile: |\n  .:53 {\n    forward . /etc/resolv.conf\n  }",
                                                       annotations="kustomize.toolkit.fluxcd.io/ssa: Merge"),
    }
    root = flux_repo(base, {"flux/config/coredns/corefile.yaml": None,
                            "flux/config/coredns/readme.yaml": configmap("notes", namespace="default")})
    findings = guard(root).findings
    assert summary(findings) == [("configmap-pruned", "error", "flux/config/coredns/corefile.yaml", 1, COREDNS_ID)]
    assert "is deleted" in findings[0].message
    assert "restore flux/config/coredns/corefile.yaml" in findings[0].hint


def test_whole_directory_delete_under_path_without_kustomization_yaml(flux_repo, guard):
    base = {
        "clusters/prod/dns.yaml": flux_ks("dns", "./dns"),
        "dns/base/coredns-custom.yaml": configmap("coredns-custom"),
        "dns/extra/a.yaml": configmap("extra-a", namespace="default"),
        "dns/extra/b.yaml": configmap("extra-b", namespace="default"),
    }
    root = flux_repo(base, {"dns/extra": None})
    assert summary(guard(root).findings) == [
        ("configmap-pruned", "error", "dns/extra/a.yaml", 1, "default_extra-a__ConfigMap"),
        ("configmap-pruned", "error", "dns/extra/b.yaml", 1, "default_extra-b__ConfigMap"),
    ]


def test_deleting_the_spec_path_itself_fails_closed(flux_repo, guard):
    base = {"clusters/prod/dns.yaml": flux_ks("dns", "./dns"), "dns/coredns-custom.yaml": configmap("coredns-custom")}
    root = flux_repo(base, {"dns": None})
    findings = guard(root).findings
    assert summary(findings) == [("build-failed", "error", "clusters/prod/dns.yaml", 1, "flux-system/dns")]
    assert "does not build at head" in findings[0].message


def test_flux_kustomization_deleted_at_head_prunes_its_inventory(flux_repo, guard):
    root = flux_repo(PLATFORM, {"clusters/prod/platform.yaml": None})
    findings = guard(root).findings
    assert summary(findings) == [
        ("configmap-pruned", "error", "clusters/prod/platform.yaml", 1, CUSTOM_ID),
        ("object-pruned", "warning", "clusters/prod/platform.yaml", 1,
         "flux-system_platform_kustomize.toolkit.fluxcd.io_Kustomization"),
    ]
    assert "leaves git and its finalizer deletes its inventory" in findings[0].message


def test_flux_kustomization_deleted_with_prune_false_only_orphans(flux_repo, guard):
    base = {**PLATFORM, "clusters/prod/platform.yaml": flux_ks("platform", "./platform", prune=False)}
    root = flux_repo(base, {"clusters/prod/platform.yaml": None})
    findings = guard(root).findings
    assert [(f.rule, f.severity.value) for f in by_rule(findings, "object-orphaned")] == [("object-orphaned", "warning")]
    assert not blocking(findings)


def test_child_of_a_parent_with_prune_false_is_orphaned(flux_repo, guard):
    from tests.guard.conftest import FLUX_SYSTEM

    sync = "clusters/prod/flux-system/gotk-sync.yaml"
    base = {**PLATFORM, sync: FLUX_SYSTEM[sync].replace("prune: true", "prune: false")}
    root = flux_repo(base, {"clusters/prod/platform.yaml": None})
    findings = guard(root).findings
    assert {f.rule for f in findings} == {"object-orphaned"}
    assert any("flux-system/flux-system has prune: false" in f.message for f in findings)


def test_prune_false_orphans_instead_of_deleting(flux_repo, guard):
    base = {**PLATFORM, "clusters/prod/platform.yaml": flux_ks("platform", "./platform", prune=False)}
    root = flux_repo(base, {"platform/coredns/kustomization.yaml": kustomization()})
    findings = guard(root).findings
    assert summary(findings) == [("object-orphaned", "warning", "platform/coredns/kustomization.yaml", 3, CUSTOM_ID)]
    assert "prune: false" in findings[0].message
    assert not blocking(findings)


@pytest.mark.parametrize("marker", [
    "kustomize.toolkit.fluxcd.io/prune: disabled",
    "kustomize.toolkit.fluxcd.io/reconcile: disabled",
    "kustomize.toolkit.fluxcd.io/ssa: Ignore",
], ids=["prune-disabled", "reconcile-disabled", "ssa-ignore"])
def test_flux_markers_at_base_orphan_instead_of_deleting(flux_repo, guard, marker):
    base = {**PLATFORM, "platform/coredns/coredns-custom.yaml": configmap("coredns-custom", annotations=marker)}
    root = flux_repo(base, {"platform/coredns/kustomization.yaml": kustomization()})
    findings = guard(root).findings
    assert [(f.rule, f.severity) for f in findings] == [("object-orphaned", Severity.WARNING)]
    assert marker.split(":")[0] in findings[0].message


def test_prune_disabled_added_in_the_same_change_protects_nothing(flux_repo, guard):
    head = {"platform/coredns/coredns-custom.yaml": configmap("coredns-custom", annotations="kustomize.toolkit.fluxcd.io/prune: disabled"),
            "platform/coredns/kustomization.yaml": kustomization()}
    root = flux_repo(PLATFORM, head)
    findings = guard(root).findings
    assert [(f.rule, f.severity) for f in findings] == [("configmap-pruned", Severity.ERROR)]
    assert "protects nothing" in findings[0].hint


def test_generator_hash_churn_passes(flux_repo, guard):
    gen = """
        apiVersion: kustomize.config.k8s.io/v1beta1
        kind: Kustomization
        configMapGenerator:
          - name: coredns-extra
            namespace: kube-system
            literals:
              - {lit}
    """
    base = {"clusters/prod/dns.yaml": flux_ks("dns", "./dns"), "dns/kustomization.yaml": gen.format(lit="a=1")}
    root = flux_repo(base, {"dns/kustomization.yaml": gen.format(lit="a=2")})
    assert guard(root).findings == []


def test_head_that_does_not_build_is_refused(flux_repo, guard):
    root = flux_repo(PLATFORM, {"platform/coredns/kustomization.yaml": kustomization("coredns-custom.yaml", "missing.yaml")})
    findings = guard(root).findings
    assert summary(findings) == [("build-failed", "error", "clusters/prod/platform.yaml", 1, "flux-system/platform")]
    assert "missing.yaml" in findings[0].message


def test_kustomization_failing_at_both_revisions_is_not_judged_and_a_change_to_it_is_refused(flux_repo, guard):
    base = {**PLATFORM, "platform/coredns/kustomization.yaml": kustomization("coredns-custom.yaml", "missing.yaml")}
    root = flux_repo(base, {"platform/coredns/kustomization.yaml": kustomization("missing.yaml")})
    findings = guard(root).findings
    assert [(f.rule, f.severity) for f in findings] == [("build-failed", Severity.WARNING),
                                                        ("not-judged-touched", Severity.ERROR)]
    assert findings[1].file == "platform/coredns/kustomization.yaml" and blocking(findings)


def test_spec_path_change_is_refused_at_the_path_line(flux_repo, guard):
    base = {**PLATFORM, "dns2/kustomization.yaml": kustomization("hpa.yaml"), "dns2/hpa.yaml": HPA}
    root = flux_repo(base, {"clusters/prod/platform.yaml": flux_ks("platform", "./dns2")})
    findings = by_rule(guard(root).findings, "configmap-pruned")
    assert summary(findings) == [("configmap-pruned", "error", "clusters/prod/platform.yaml", 8, CUSTOM_ID)]
    assert "spec.path changed from ./platform to ./dns2" in findings[0].message


def test_namespace_move_by_kustomize_namespace_is_refused(flux_repo, guard):
    root = flux_repo(PLATFORM, {"platform/coredns/kustomization.yaml": kustomization("coredns-custom.yaml", extra="namespace: dns\n")})
    findings = guard(root).findings
    assert summary(findings) == [("configmap-pruned", "error", "platform/coredns/kustomization.yaml", 5, CUSTOM_ID)]


def test_namespace_move_by_target_namespace_is_refused(flux_repo, guard):
    extra = "targetNamespace: dns"
    root = flux_repo(PLATFORM, {"clusters/prod/platform.yaml": flux_ks("platform", "./platform", extra=extra)})
    findings = guard(root).findings
    assert summary(findings) == [("configmap-pruned", "error", "clusters/prod/platform.yaml", 13, CUSTOM_ID)]
    assert "targetNamespace" in findings[0].message


def test_rename_is_refused(flux_repo, guard):
    root = flux_repo(PLATFORM, {"platform/coredns/coredns-custom.yaml": configmap("coredns-custom-v2")})
    findings = guard(root).findings
    assert summary(findings) == [("configmap-pruned", "error", "platform/coredns/coredns-custom.yaml", 1, CUSTOM_ID)]
    assert "renamed" in findings[0].message


def test_kind_change_is_refused(flux_repo, guard):
    secret = configmap("coredns-custom").replace("kind: ConfigMap", "kind: Secret").replace("\n        data:", "\n        stringData:")
    root = flux_repo(PLATFORM, {"platform/coredns/coredns-custom.yaml": secret})
    assert [f.rule for f in guard(root).findings] == ["configmap-pruned"]


def test_file_no_build_ever_included_passes(flux_repo, guard):
    base = {**PLATFORM, "attic/old-coredns.yaml": configmap("coredns")}
    root = flux_repo(base, {"attic/old-coredns.yaml": None})
    assert guard(root).findings == []


SERVICE = """
    apiVersion: v1
    kind: Service
    metadata:
      name: dns-metrics
      namespace: kube-system
    spec:
      ports:
        - port: 9153
"""


def test_other_kinds_pruned_are_warnings(flux_repo, guard):
    base = {**PLATFORM, "platform/coredns/kustomization.yaml": kustomization("coredns-custom.yaml", "svc.yaml"),
            "platform/coredns/svc.yaml": SERVICE}
    root = flux_repo(base, {"platform/coredns/kustomization.yaml": kustomization("coredns-custom.yaml")})
    findings = guard(root).findings
    assert [(f.rule, f.severity.value, f.details["object"]) for f in findings] == [
        ("object-pruned", "warning", "kube-system_dns-metrics__Service")]
    assert not blocking(findings)


def test_dropping_the_k3s_hpa_is_refused_by_its_invariant(flux_repo, guard):
    k3s = "guard:\n  clusters:\n    - {name: prod, root: clusters/prod/flux-system/gotk-sync.yaml, platform: k3s}\n"
    base = {**PLATFORM, "platform/coredns/kustomization.yaml": kustomization("coredns-custom.yaml", "hpa.yaml"),
            "platform/coredns/hpa.yaml": HPA, ".coredns-gen.yaml": k3s}
    root = flux_repo(base, {"platform/coredns/kustomization.yaml": kustomization("coredns-custom.yaml")})
    findings = guard(root).findings
    assert [(f.rule, f.severity.value, f.details["object"]) for f in findings] == [
        ("k3s-hpa-min-replicas", "error", CUSTOM_ID),
        ("object-pruned", "warning", "kube-system_coredns_autoscaling_HorizontalPodAutoscaler")]


MOVE_BASE = {**PLATFORM, "clusters/prod/dns.yaml": flux_ks("dns", "./dns"), "dns/kustomization.yaml": kustomization("hpa.yaml"),
             "dns/hpa.yaml": HPA}
MOVE_HEAD = {"platform/coredns/kustomization.yaml": kustomization(), "platform/coredns/coredns-custom.yaml": None,
             "dns/kustomization.yaml": kustomization("hpa.yaml", "coredns-custom.yaml"),
             "dns/coredns-custom.yaml": PLATFORM["platform/coredns/coredns-custom.yaml"]}
AFTER_DNS = "dependsOn:\n  - name: dns"


def test_a_configmap_moved_in_one_change_between_pruning_kustomizations_is_refused(flux_repo, guard):
    """`platform` (prune: true) and `dns` both start on the new revision; if `platform` runs first
    it deletes coredns-custom until `dns` re-creates it (was an object-moved warning)."""
    root = flux_repo(MOVE_BASE, MOVE_HEAD)
    findings = guard(root).findings
    assert [(f.rule, f.severity.value) for f in findings] == [("object-moved-pruned", "error")]
    assert findings[0].details["moved_to"] == "flux-system/dns"
    assert "in two commits" in findings[0].hint and "prune: disabled" in findings[0].hint
    assert blocking(findings)


HELMRELEASE = """
    apiVersion: helm.toolkit.fluxcd.io/v2
    kind: HelmRelease
    metadata:
      name: blocky
      namespace: dns
    spec:
      interval: 1h
      chart:
        spec:
          chart: blocky
          sourceRef: {kind: HelmRepository, name: charts, namespace: flux-system}
"""


@pytest.mark.parametrize("suspend", [False, True])
def test_a_helmrelease_moved_in_one_change_between_pruning_kustomizations_is_refused(flux_repo, guard, suspend):
    """Deleted first, a HelmRelease is a `helm uninstall` of its release; a suspended one is not
    uninstalled (helm-controller skips it), so its move stays a warning."""
    release = HELMRELEASE + ("      suspend: true\n" if suspend else "")
    base = {**MOVE_BASE, "platform/coredns/kustomization.yaml": kustomization("coredns-custom.yaml", "blocky.yaml"),
            "platform/coredns/blocky.yaml": release}
    head = {"dns/kustomization.yaml": kustomization("hpa.yaml", "blocky.yaml"), "dns/blocky.yaml": release,
            "platform/coredns/blocky.yaml": None,
            "platform/coredns/kustomization.yaml": kustomization("coredns-custom.yaml")}
    findings = guard(flux_repo(base, head)).findings
    assert [(f.rule, f.details["object"]) for f in findings] == [
        ("object-moved" if suspend else "object-moved-pruned", "dns_blocky_helm.toolkit.fluxcd.io_HelmRelease")]


def test_a_move_passes_when_the_object_carried_prune_disabled_at_base(flux_repo, guard):
    """docs/migrate.md's two-commit way: the first commit marks the ConfigMap, the second moves it."""
    marked = configmap("coredns-custom", data="corp.server: |\n  corp:53 {\n    forward . 10.0.0.1\n  }",
                       annotations="kustomize.toolkit.fluxcd.io/prune: disabled")
    root = flux_repo({**MOVE_BASE, "platform/coredns/coredns-custom.yaml": marked},
                     {**MOVE_HEAD, "dns/coredns-custom.yaml": marked})
    assert guard(root).findings == []


@pytest.mark.parametrize("at", ["base and head", "head only"])
def test_a_move_passes_when_the_old_kustomization_depends_on_the_new_one_at_base_and_head(flux_repo, guard, at):
    """`platform` dependsOn `dns` (same GitRepository): kustomize-controller applies nothing of
    `platform` until `dns` has applied the revision, so `dns` relabels the ConfigMap first. Added in
    the same change it orders nothing: `platform` may reconcile the new revision with its old spec."""
    ordered = flux_ks("platform", "./platform", extra=AFTER_DNS)
    base = {**MOVE_BASE, "clusters/prod/platform.yaml": ordered} if at == "base and head" else MOVE_BASE
    root = flux_repo(base, {**MOVE_HEAD, "clusters/prod/platform.yaml": ordered})
    findings = guard(root).findings
    if at == "base and head":
        assert findings == []
    else:
        assert [(f.rule, f.severity.value) for f in findings] == [("object-moved-pruned", "error")]


OTHER_SOURCE = """
    apiVersion: source.toolkit.fluxcd.io/v1
    kind: GitRepository
    metadata:
      name: other
      namespace: flux-system
    spec:
      interval: 5m
      url: ssh://git@example.invalid/fleet
      ref:
        branch: main
"""


def test_a_dependency_on_another_source_orders_nothing(flux_repo, guard):
    """kustomize-controller waits for the dependency's revision only when both read one source."""
    other = flux_ks("dns", "./dns").replace("name: flux-system\n", "name: other\n")
    assert "name: other" in other
    ordered = flux_ks("platform", "./platform", extra=AFTER_DNS)
    root = flux_repo({**MOVE_BASE, "clusters/prod/platform.yaml": ordered, "clusters/prod/dns.yaml": other,
                      "clusters/prod/other.yaml": OTHER_SOURCE},
                     {**MOVE_HEAD, "clusters/prod/platform.yaml": ordered})
    assert [f.rule for f in blocking_findings(guard(root).findings)] == ["object-moved-pruned"]


def test_other_kinds_moved_are_warnings(flux_repo, guard):
    base = {**PLATFORM, "clusters/prod/dns.yaml": flux_ks("dns", "./dns"), "dns/kustomization.yaml": kustomization("hpa.yaml"),
            "dns/hpa.yaml": HPA}
    head = {"dns/kustomization.yaml": kustomization("hpa.yaml", "svc.yaml"), "dns/svc.yaml": SERVICE}
    root = flux_repo({**base, "platform/coredns/kustomization.yaml": kustomization("coredns-custom.yaml", "svc.yaml"),
                      "platform/coredns/svc.yaml": SERVICE},
                     {**head, "platform/coredns/kustomization.yaml": kustomization("coredns-custom.yaml"),
                      "platform/coredns/svc.yaml": None})
    findings = guard(root).findings
    assert [(f.rule, f.severity.value) for f in findings] == [("object-moved", "warning")]
    assert "dependsOn" in findings[0].hint


def test_a_pruning_kustomization_moved_between_parents_that_both_stay_is_refused(flux_repo, guard):
    """Kustomization `coredns` moves from parent `platform` to parent `dns`: if `platform` runs
    first it deletes `coredns`, whose finalizer deletes the ConfigMap it applies (was a warning)."""
    base = {**PLATFORM, "platform/kustomization.yaml": kustomization("coredns", "coredns-ks.yaml"),
            "platform/coredns/kustomization.yaml": kustomization(),
            "platform/coredns-ks.yaml": flux_ks("coredns", "./corefile"),
            "corefile/kustomization.yaml": kustomization("coredns.yaml"), "corefile/coredns.yaml": configmap("coredns"),
            "clusters/prod/dns.yaml": flux_ks("dns", "./dns"), "dns/kustomization.yaml": kustomization("hpa.yaml"),
            "dns/hpa.yaml": HPA}
    head = {"platform/kustomization.yaml": kustomization("coredns"), "platform/coredns-ks.yaml": None,
            "dns/kustomization.yaml": kustomization("hpa.yaml", "coredns-ks.yaml"),
            "dns/coredns-ks.yaml": flux_ks("coredns", "./corefile")}
    findings = guard(flux_repo(base, head)).findings
    assert [(f.rule, f.severity.value, f.details["object"]) for f in findings] == [
        ("object-moved-pruned", "error", "flux-system_coredns_kustomize.toolkit.fluxcd.io_Kustomization")]
    assert "ConfigMap kube-system/coredns" in findings[0].message


def test_allow_flag_marks_the_removal_allowed(flux_repo, guard):
    root = flux_repo(PLATFORM, {"platform/coredns/kustomization.yaml": kustomization("hpa.yaml"), "platform/coredns/hpa.yaml": HPA})
    findings = guard(root, allow=(CUSTOM_ID,)).findings
    assert [(f.rule, f.severity) for f in findings] == [("configmap-pruned", Severity.ALLOWED)]
    assert "allowed by --allow" in findings[0].message
    assert not blocking(findings)


def test_allow_in_repo_config_file(flux_repo, guard):
    root = flux_repo(PLATFORM, {"platform/coredns/kustomization.yaml": kustomization("hpa.yaml"), "platform/coredns/hpa.yaml": HPA,
                                ".coredns-gen.yaml": "guard:\n  allow:\n    - kube-system_coredns-*__ConfigMap\n"})
    findings = guard(root).findings
    assert [(f.rule, f.severity) for f in findings] == [("configmap-pruned", Severity.ALLOWED)]
    assert "allowed by .coredns-gen.yaml" in findings[0].message


def test_inventory_judges_what_is_really_in_place(flux_repo, guard, tmp_path):
    import json

    root = flux_repo(PLATFORM, {"platform/coredns/kustomization.yaml": kustomization("coredns-custom.yaml", "hpa.yaml"),
                                "platform/coredns/hpa.yaml": HPA})
    inv = tmp_path / "inv.json"
    entries = [{"id": CUSTOM_ID, "v": "v1"}, {"id": "kube-system_coredns-legacy__ConfigMap", "v": "v1"}]
    inv.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
         "metadata": {"name": "platform", "namespace": "flux-system"},
         "status": {"inventory": {"entries": entries}}}]}))
    assert guard(root).findings == []
    findings = guard(root, inventory=inv).findings
    assert [(f.rule, f.details["object"]) for f in findings] == [("configmap-pruned", "kube-system_coredns-legacy__ConfigMap")]


def test_bad_inventory_file_is_bad_input(flux_repo, guard, tmp_path):
    root = flux_repo(PLATFORM, {})
    inv = tmp_path / "inv.json"
    inv.write_text("{not json")
    with pytest.raises(UsageError) as err:
        guard(root, inventory=inv)
    assert "inv.json:1:2: --inventory: not JSON" in str(err.value)


def test_path_narrows_root_discovery(flux_repo, guard):
    from tests.guard.conftest import FLUX_SYSTEM

    staging = {k.replace("prod", "staging"): v.replace("prod", "staging") for k, v in FLUX_SYSTEM.items()}
    base = {**PLATFORM, **staging, "clusters/staging/platform.yaml": flux_ks("platform", "./platform")}
    root = flux_repo(base, {"platform/coredns/kustomization.yaml": kustomization()})
    both = guard(root).findings
    assert [(f.rule, f.details["cluster"]) for f in both] == [
        ("configmap-pruned", "clusters/prod/flux-system/gotk-sync.yaml"),
        ("configmap-pruned", "clusters/staging/flux-system/gotk-sync.yaml")]
    assert both[0].message.endswith("[cluster clusters/prod/flux-system/gotk-sync.yaml]")
    staging = guard(root, paths=("clusters/staging",)).findings
    assert [(f.rule, f.details["cluster"]) for f in staging] == [
        ("configmap-pruned", "clusters/staging/flux-system/gotk-sync.yaml")]
    with pytest.raises(UsageError, match="--path: attic is not in the repository"):
        guard(root, paths=("attic",))


def test_post_build_substitution_and_generated_kustomization(flux_repo, guard):
    extra = "postBuild:\n  substitute:\n    suffix: custom"
    base = {"clusters/prod/dns.yaml": flux_ks("dns", "./dns", extra=extra),
            "dns/cm.yaml": configmap("coredns-${suffix}")}
    root = flux_repo(base, {"clusters/prod/dns.yaml": flux_ks("dns", "./dns", extra=extra.replace("custom", "other"))})
    findings = guard(root).findings
    assert [(f.rule, f.details["object"]) for f in findings] == [("configmap-pruned", CUSTOM_ID)]


def test_flux_v1beta2_kustomizations_are_followed(flux_repo, guard):
    base = {**PLATFORM, "clusters/prod/platform.yaml": flux_ks("platform", "./platform").replace(
        "kustomize.toolkit.fluxcd.io/v1", "kustomize.toolkit.fluxcd.io/v1beta2")}
    root = flux_repo(base, {"platform/coredns/kustomization.yaml": kustomization()})
    assert [f.rule for f in guard(root).findings] == ["configmap-pruned"]


def test_working_tree_and_refs_are_untouched(flux_repo, guard):
    from tests.helpers import git, snapshot_tree

    root = flux_repo(PLATFORM, {"platform/coredns/kustomization.yaml": kustomization()})
    (root / "scratch.yaml").write_text("uncommitted: true\n")
    before = snapshot_tree(root), git(root, "status", "--porcelain"), git(root, "worktree", "list")
    guard(root)
    assert (snapshot_tree(root), git(root, "status", "--porcelain"), git(root, "worktree", "list")) == before


def test_unknown_base_ref_is_bad_input(flux_repo, guard, tmp_path):
    from gen.guard import GuardOptions, run_guard

    root = flux_repo(PLATFORM, {})
    with pytest.raises(UsageError) as err:
        run_guard(GuardOptions(repo=root, base="nope", cache_dir=None))
    assert "--base: 'nope' is not a commit" in str(err.value)
    assert isinstance(root, Path)


def test_hand_written_layout_without_flux_system_folder(flux_repo, guard):
    """Roots need not be named gotk-sync.yaml: any Flux Kustomization no build produces is one."""
    base = {
        "bootstrap.yaml": flux_ks("infra", "./infra"),
        "infra/platform.yaml": flux_ks("platform", "./platform"),
        "platform/kustomization.yaml": kustomization("coredns"),
        "platform/coredns/kustomization.yaml": kustomization("coredns-custom.yaml"),
        "platform/coredns/coredns-custom.yaml": configmap("coredns-custom"),
    }
    root = flux_repo(base, {"platform/coredns/kustomization.yaml": kustomization("hpa.yaml"),
                            "platform/coredns/hpa.yaml": HPA}, standard=False)
    result = guard(root)
    assert summary(result.findings) == [
        ("configmap-pruned", "error", "platform/coredns/kustomization.yaml", 3, CUSTOM_ID)]
    assert result.findings[0].details["cluster"] == "bootstrap.yaml"
    assert result.stats["kustomizations_base"] == 2  # infra (root) and platform


@pytest.mark.parametrize(("prune", "extra", "deletes"), [
    (False, "deletionPolicy: Delete", True),               # deleted whatever prune says
    (False, "deletionPolicy: WaitForTermination", True),
    (True, "deletionPolicy: Orphan", False),               # kept whatever prune says
    (True, "deletionPolicy: MirrorPrune", True),
    (True, "suspend: true", False),                        # a suspended Kustomization's finalizer deletes nothing
    (False, "suspend: true\ndeletionPolicy: Delete", False),
])
def test_a_deleted_kustomization_deletes_its_inventory_as_its_finalizer_does(flux_repo, guard, prune, extra, deletes):
    """kustomize-controller's finalizerShouldDeleteResources decides, not `prune` alone: never while
    the Kustomization is suspended; `deletionPolicy` MirrorPrune (the default) follows prune, Delete
    and WaitForTermination always delete, Orphan never. `prune: false` with `deletionPolicy: Delete`
    was taken for an orphaning: a Kustomization removed from git deleted its ConfigMaps, exit 0."""
    base = {**PLATFORM, "clusters/prod/platform.yaml": flux_ks("platform", "./platform", prune=prune, extra=extra)}
    findings = guard(flux_repo(base, {"clusters/prod/platform.yaml": None})).findings
    assert [f.details["object"] for f in by_rule(findings, "configmap-pruned")] == ([CUSTOM_ID] if deletes else [])
    assert bool(blocking(findings)) is deletes
    if not deletes:
        orphaned = [f for f in by_rule(findings, "object-orphaned") if f.details["object"] == CUSTOM_ID]
        assert orphaned and ("suspend" in orphaned[0].message or "deletionPolicy: Orphan" in orphaned[0].message)


def blocking_findings(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.severity == Severity.ERROR]


def test_an_unlisted_flux_file_is_named_with_the_line_to_add_and_the_refusal_says_it(flux_repo, guard):
    """JobDouma/k8s-home-server: clusters/<c>/kustomization.yaml lists its resources; the render's
    clusters/<c>/coredns.yaml beside it is never applied. The `unreached` line and the refusal of
    the old ConfigMap's removal give the line to add (was: list the cluster in guard.clusters;
    restore the old file)."""
    listed = kustomization("flux-system", "platform.yaml")
    base = {**PLATFORM, "clusters/prod/kustomization.yaml": listed}
    head = {"platform/coredns/kustomization.yaml": kustomization(), "platform/coredns/coredns-custom.yaml": None,
            "clusters/prod/coredns.yaml": flux_ks("coredns", "./dns"), "dns/kustomization.yaml": kustomization("coredns-custom.yaml"),
            "dns/coredns-custom.yaml": PLATFORM["platform/coredns/coredns-custom.yaml"]}
    result = guard(flux_repo(base, head))
    fix = "add `- coredns.yaml` under `resources:` in clusters/prod/kustomization.yaml"
    unreached = by_rule(result.findings, "unreached")
    assert [(f.file, f.hint) for f in unreached] == [("clusters/prod/coredns.yaml", f"Flux never applies it: {fix}")]
    refused = [f for f in result.findings if f.severity is Severity.ERROR]
    assert [f.rule for f in refused] == ["configmap-pruned"]
    assert f"or, if clusters/prod/coredns.yaml is to take it over: Flux never applies it: {fix}" in refused[0].hint
    assert any(fix in line for line in result.coverage.lines())
