"""The guard on the layouts real Flux repositories use, each as a real git repository:
components, OCI and ExternalArtifact delivery, FluxInstance roots, substituteFrom from the repo,
files no cluster applies, source-controller's ignore rules, and every kind of build input."""

from __future__ import annotations

import pytest

from gen.errors import UsageError

from tests.guard.conftest import by_rule, configmap, flux_ks, kustomization
from tests.helpers import git

PLATFORM = {
    "clusters/prod/platform.yaml": flux_ks("platform", "./platform"),
    "platform/kustomization.yaml": kustomization("coredns-custom.yaml"),
    "platform/coredns-custom.yaml": configmap("coredns-custom"),
}


def errors(result: object) -> list[tuple[str, str]]:
    return [(f.rule, f.details.get("object", "")) for f in result.findings if f.severity.value == "error"]  # type: ignore[attr-defined]


def infos(result: object, rule: str) -> list[str]:
    return [f.message for f in by_rule(result.findings, rule)]  # type: ignore[attr-defined]


CUSTOM_PRUNED = [("configmap-pruned", "kube-system_coredns-custom__ConfigMap")]

# -- spec.components ------------------------------------------------------------------------
COMPONENT = {
    "clusters/prod/platform.yaml": flux_ks("platform", "./platform", extra="components:\n  - ../components/dns"),
    "platform/kustomization.yaml": kustomization(),
    "components/dns/kustomization.yaml": """
        apiVersion: kustomize.config.k8s.io/v1alpha1
        kind: Component
        resources:
          - coredns-custom.yaml
    """,
    "components/dns/coredns-custom.yaml": configmap("coredns-custom"),
}


def test_a_configmap_removed_from_a_flux_component_is_refused(flux_repo, guard):
    head = {"components/dns/kustomization.yaml": COMPONENT["components/dns/kustomization.yaml"].replace(
        "resources:\n          - coredns-custom.yaml", "resources: []")}
    result = guard(flux_repo(COMPONENT, head))
    assert result.stats["clusters_judged"] == 1
    assert errors(result) == CUSTOM_PRUNED


def test_an_unchanged_component_passes_and_leaves_the_cluster_untouched(flux_repo, guard):
    result = guard(flux_repo(COMPONENT, {"README.md": "docs only\n"}))
    assert (result.stats["clusters_judged"], errors(result)) == (0, [])


# -- every input of a build is in its fingerprint ----------------------------------------------
INPUTS = {
    "clusters/prod/platform.yaml": flux_ks("platform", "./platform", extra=(
        "postBuild:\n  substituteFrom:\n    - kind: ConfigMap\n      name: vars")),
    "clusters/prod/vars.yaml": configmap("vars", namespace="flux-system", data="level: info"),
    "platform/kustomization.yaml": kustomization("../bases/dns", extra=(
        "patches:\n  - path: ../patches/label.yaml\nconfigMapGenerator:\n  - name: extra\n"
        "    namespace: kube-system\n    files:\n      - ../generated/extra.conf")),
    "bases/dns/kustomization.yaml": kustomization("coredns-custom.yaml"),
    "bases/dns/coredns-custom.yaml": configmap("coredns-custom", data="log.override: ${level}"),
    "patches/label.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: coredns-custom\n  namespace: kube-system\n"
                          "  labels:\n    team: dns\n",
    "generated/extra.conf": "a=1\n",
}


@pytest.mark.parametrize("change", [
    {"bases/dns/coredns-custom.yaml": configmap("coredns-custom", data="log.override: ${level} # base")},
    {"patches/label.yaml": INPUTS["patches/label.yaml"].replace("team: dns", "team: net")},
    {"generated/extra.conf": "a=2\n"},
    {"clusters/prod/vars.yaml": configmap("vars", namespace="flux-system", data="level: debug")},
    {"clusters/prod/platform.yaml": flux_ks("platform", "./platform", extra=(
        "postBuild:\n  substituteFrom:\n    - kind: ConfigMap\n      name: vars\n  substitute:\n    level: warn"))},
], ids=["base-outside-path", "patch-file", "generator-file", "substitute-from-configmap", "flux-spec"])
def test_a_change_to_any_input_marks_the_build_changed(flux_repo, guard, change):
    result = guard(flux_repo(INPUTS, change))
    assert result.stats["clusters_judged"] == 1
    assert errors(result) == []


def test_substitute_from_values_come_from_the_repository(flux_repo, guard):
    """The ConfigMap the flux-system build applies is what kustomize-controller reads: a name made
    of its variable changes with it, and the old object is pruned."""
    base = {**INPUTS, "bases/dns/coredns-custom.yaml": configmap("custom-${level}", data="log.override: log"),
            "patches/label.yaml": INPUTS["patches/label.yaml"].replace("name: coredns-custom", "name: custom-${level}")}
    head = {"clusters/prod/vars.yaml": configmap("vars", namespace="flux-system", data="level: debug")}
    result = guard(flux_repo(base, head))
    assert errors(result) == [("configmap-pruned", "kube-system_custom-info__ConfigMap")]
    assert infos(result, "vars-unresolved") == []


# -- ${VAR} in spec.path from an in-repo ConfigMap ---------------------------------------------
VAR_PATH_ROOT = {
    "clusters/prod/flux-system/gotk-sync.yaml": """
        apiVersion: source.toolkit.fluxcd.io/v1
        kind: GitRepository
        metadata: {name: flux-system, namespace: flux-system}
        spec: {interval: 1m, url: "ssh://git@example.invalid/fleet", ref: {branch: main}}
        ---
        apiVersion: kustomize.toolkit.fluxcd.io/v1
        kind: Kustomization
        metadata: {name: flux-system, namespace: flux-system}
        spec:
          interval: 10m
          path: ./clusters/prod
          prune: true
          sourceRef: {kind: GitRepository, name: flux-system}
          postBuild:
            substituteFrom:
              - kind: ConfigMap
                name: cluster-settings
    """,
    "clusters/prod/cluster-settings.yaml": configmap("cluster-settings", namespace="flux-system", data="CLUSTER_ID: prod-eu"),
    "clusters/prod/platform.yaml": flux_ks("platform", "./sites/${CLUSTER_ID}/platform"),
    "sites/prod-eu/platform/kustomization.yaml": kustomization("coredns-custom.yaml"),
    "sites/prod-eu/platform/coredns-custom.yaml": configmap("coredns-custom"),
}


def test_a_spec_path_variable_set_by_an_in_repo_configmap_builds(flux_repo, guard):
    result = guard(flux_repo(VAR_PATH_ROOT, {"sites/prod-eu/platform/coredns-custom.yaml":
                                             configmap("coredns-custom", data="log.override: log # edited")}, standard=False))
    assert result.stats["clusters_judged"] == 1
    assert [f.rule for f in result.findings] == []


def test_a_prune_under_a_substituted_path_is_refused(flux_repo, guard):
    head = {"sites/prod-eu/platform/kustomization.yaml": kustomization()}
    assert errors(guard(flux_repo(VAR_PATH_ROOT, head, standard=False))) == CUSTOM_PRUNED


def test_a_sops_secret_leaves_its_variables_unresolved_and_says_so(flux_repo, guard):
    files = {**VAR_PATH_ROOT, "clusters/prod/cluster-settings.yaml": """
        apiVersion: v1
        kind: Secret
        metadata: {name: cluster-settings, namespace: flux-system}
        stringData:
          CLUSTER_ID: ENC[AES256_GCM,data:abc,iv:def,tag:ghi,type:str]
        sops:
          version: 3.8.1
    """}
    files["clusters/prod/flux-system/gotk-sync.yaml"] = files["clusters/prod/flux-system/gotk-sync.yaml"].replace(
        "kind: ConfigMap\n                name: cluster-settings", "kind: Secret\n                name: cluster-settings")
    result = guard(flux_repo(files, {"README.md": "x\n"}, standard=False))
    assert infos(result, "vars-unresolved") == [
        "substituteFrom Secret flux-system/cluster-settings: SOPS-encrypted: Kustomization flux-system/flux-system "
        "built without it; one where a variable it may set reaches an object's identity or a field a verdict reads is "
        "not judged (a change to its files is refused), the others are judged with the variable as a placeholder"]
    assert "unresolved: 1 substituteFrom sources could not be read" in result.summary()


# -- files no cluster applies ------------------------------------------------------------------
def test_kustomizations_no_cluster_reaches_are_listed_never_built_or_refused(flux_repo, guard):
    base = {**PLATFORM,
            ".archive/old-cluster/ks.yaml": flux_ks("old", "./does/not/exist"),
            "clusters/prod/kustomization.yaml": kustomization("platform.yaml", "flux-system"),
            "clusters/prod/legacy.yaml": flux_ks("legacy", "./legacy-gone")}
    base["clusters/prod/kustomization.yaml"] = base["clusters/prod/kustomization.yaml"] + "        # - legacy.yaml\n"
    head = {".archive/old-cluster/ks.yaml": flux_ks("old", "./still/missing"), "clusters/prod/legacy.yaml": None}
    result = guard(flux_repo(base, head))
    assert [f.rule for f in result.findings] == ["unreached"]
    assert result.findings[0].file == ".archive/old-cluster/ks.yaml"
    assert "unreached: 1 files with Flux Kustomizations no cluster applies: .archive/old-cluster/ks.yaml" in result.summary()


IGNORED = {"clusters/prod/platform.yaml": flux_ks("platform", "./platform"),
           "platform/coredns-custom.yaml": configmap("coredns-custom"),
           "platform/coredns-pdb.yaml": "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: coredns, namespace: kube-system}\n"
                                        "spec: {minAvailable: 1, selector: {matchLabels: {k8s-app: kube-dns}}}\n",
           "platform/drafts/draft.yaml": configmap("draft", namespace="default"),
           ".sourceignore": "platform/drafts/\n"}


def test_a_file_source_controller_ignores_was_never_applied(flux_repo, guard):
    """Deleting an ignored file prunes nothing: Flux's generated kustomization never listed it."""
    result = guard(flux_repo(IGNORED, {"platform/drafts/draft.yaml": None}))
    assert result.findings == []


def test_an_artifact_file_next_to_ignored_ones_is_still_judged(flux_repo, guard):
    assert errors(guard(flux_repo(IGNORED, {"platform/coredns-custom.yaml": None}))) == CUSTOM_PRUNED


# -- sources that are this repository ------------------------------------------------------------
def _oci_child(url: str) -> dict[str, str]:
    return {
        "clusters/prod/apps.yaml": f"""
            apiVersion: source.toolkit.fluxcd.io/v1
            kind: OCIRepository
            metadata: {{name: fleet, namespace: flux-system}}
            spec: {{interval: 5m, url: "{url}", ref: {{tag: latest}}}}
            ---
            apiVersion: kustomize.toolkit.fluxcd.io/v1
            kind: Kustomization
            metadata: {{name: apps, namespace: flux-system}}
            spec:
              interval: 10m
              path: ./apps
              prune: true
              sourceRef: {{kind: OCIRepository, name: fleet}}
        """,
        "kubernetes/apps/kustomization.yaml": kustomization("coredns-custom.yaml"),
        "kubernetes/apps/coredns-custom.yaml": configmap("coredns-custom"),
    }


PUSH = {".github/workflows/push.yaml": """
    on: push
    jobs:
      push:
        runs-on: ubuntu-latest
        steps:
          - run: flux push artifact oci://ghcr.io/${{ github.repository_owner }}/fleet:$(git rev-parse --short HEAD) --path="./kubernetes" --source="$(git config --get remote.origin.url)" --revision="main@sha1:$(git rev-parse HEAD)"
"""}
PUSH_ACTION = {".github/workflows/push.yaml": """
    on: push
    jobs:
      push:
        runs-on: ubuntu-latest
        steps:
          - uses: actions/checkout@v4
          - uses: controlplaneio-fluxcd/distribution/actions/push@main
            with:
              repository: ghcr.io/${{ github.repository }}
              path: "./kubernetes"
              diff-tag: latest
"""}
DROP_OCI = {"kubernetes/apps/kustomization.yaml": kustomization()}


@pytest.mark.parametrize("push", [PUSH, PUSH_ACTION], ids=["flux-push-artifact", "distribution-push-action"])
def test_an_oci_artifact_pushed_from_a_folder_of_the_repo_is_judged(flux_repo, guard, push):
    result = guard(flux_repo({**_oci_child("oci://ghcr.io/acme/fleet"), **push}, DROP_OCI))
    assert errors(result) == CUSTOM_PRUNED
    assert result.findings[0].file == "kubernetes/apps/kustomization.yaml"


@pytest.mark.parametrize(("deleted", "expected"), [("extra.yaml", []), ("coredns-custom.yaml", CUSTOM_PRUNED)])
def test_a_file_the_push_leaves_out_of_the_oci_artifact_is_never_applied(flux_repo, guard, deleted, expected):
    """`--add-ignore-paths` keeps a file out of what `flux push artifact` pushes: a generated
    kustomization (no kustomization.yaml) never applies it, so deleting it prunes nothing. The
    model this replaced read no ignore flag and refused the deletion (configmap-pruned)."""
    files = {**_oci_child("oci://ghcr.io/acme/fleet"), **PUSH, "kubernetes/apps/kustomization.yaml": None,
             "kubernetes/apps/extra.yaml": configmap("extra"), "kubernetes/apps/keep.yaml": configmap("keep")}
    files[".github/workflows/push.yaml"] = files[".github/workflows/push.yaml"].replace(
        '--path="./kubernetes"', '--path="./kubernetes" --add-ignore-paths="apps/extra.yaml"')
    files = {k: v for k, v in files.items() if v is not None}
    assert errors(guard(flux_repo(files, {f"kubernetes/apps/{deleted}": None}))) == expected


def test_github_repository_in_a_push_is_this_repository_not_any_of_the_owner(flux_repo, guard):
    """controlplaneio-fluxcd/d2-fleet pushes `ghcr.io/${{ github.repository }}`; its tenants'
    OCIRepositories are `ghcr.io/controlplaneio-fluxcd/d2-apps/<tenant>`: another repository."""
    from tests.helpers import git

    for url, judged in (("oci://ghcr.io/acme/fleet", True), ("oci://ghcr.io/acme/apps/frontend", False)):
        repo = flux_repo({**_oci_child(url), **PUSH_ACTION}, DROP_OCI)
        git(repo, "remote", "add", "origin", "https://github.com/acme/fleet.git")
        result = guard(repo)
        assert (errors(result) == CUSTOM_PRUNED) is judged, url
        assert bool(infos(result, "not-judged")) is not judged, url
        repo.rename(repo.parent / f"done-{judged}")


FOREIGN = {"clusters/prod/flux.yaml": """
    apiVersion: source.toolkit.fluxcd.io/v1
    kind: OCIRepository
    metadata: {name: flux-manifests, namespace: flux-system}
    spec: {interval: 10m, url: oci://ghcr.io/fluxcd/flux-manifests, ref: {tag: v2.5.1}}
    ---
    apiVersion: kustomize.toolkit.fluxcd.io/v1
    kind: Kustomization
    metadata: {name: flux, namespace: flux-system}
    spec: {interval: 10m, path: ./, prune: true, sourceRef: {kind: OCIRepository, name: flux-manifests}}
    ---
    apiVersion: source.toolkit.fluxcd.io/v1
    kind: GitRepository
    metadata: {name: gateway-api, namespace: flux-system}
    spec: {interval: 1h, url: https://github.com/kubernetes-sigs/gateway-api, ref: {tag: v1.2.0}}
    ---
    apiVersion: kustomize.toolkit.fluxcd.io/v1
    kind: Kustomization
    metadata: {name: gateway-api, namespace: flux-system}
    spec: {interval: 1h, path: ./, prune: true, sourceRef: {kind: GitRepository, name: gateway-api}}
""", "clusters/prod/dns.yaml": configmap("coredns-custom")}


def test_a_source_certainly_of_another_repository_reads_no_file_of_this_one(flux_repo, guard):
    """carpenike/k8s-gitops: Flux's own manifests from ghcr.io/fluxcd and the gateway-api CRDs from
    kubernetes-sigs, both at `path: ./`, made every change "a file they may read": refused."""
    from tests.helpers import git

    head = {"other/dns.yaml": configmap("coredns-custom")}  # a file no judged build reads
    repo = flux_repo(FOREIGN, head)
    git(repo, "remote", "add", "origin", "https://github.com/acme/fleet.git")
    result = guard(repo)
    assert errors(result) == []
    assert [m.split(": ", 1)[1] for m in infos(result, "not-judged")] == [
        "source OCIRepository flux-system/flux-manifests is another repository's OCI artifact "
        "(oci://ghcr.io/fluxcd/flux-manifests): no file of this repository is in it (a ghcr.io package of fluxcd, "
        "and no remote is fluxcd's)",
        "source GitRepository flux-system/gateway-api is not this repository (https://github.com/kubernetes-sigs/"
        "gateway-api): no file of this repository is in it (owner and name differ from every remote on github.com)"]
    # a fork (the same name under another owner) may be a mirror of this repository: still refused
    fork = {k: v.replace("kubernetes-sigs/gateway-api", "someone/fleet") for k, v in FOREIGN.items()}
    repo.rename(repo.parent / "first")
    repo = flux_repo(fork, head)
    git(repo, "remote", "add", "origin", "https://github.com/acme/fleet.git")
    assert [rule for rule, _ in errors(guard(repo))] == ["not-judged-touched"]


def test_an_oci_artifact_of_unknown_origin_is_listed_as_not_judged(flux_repo, guard):
    result = guard(flux_repo(_oci_child("oci://ghcr.io/acme/fleet"), DROP_OCI))
    # which folder the artifact is built from is unknown: ./apps at any depth may be it
    assert [(f.rule, f.file) for f in result.findings if f.severity.value == "error"] == [
        ("not-judged-touched", "kubernetes/apps/kustomization.yaml")]
    assert infos(result, "not-judged") == [
        "Kustomization flux-system/apps is not judged: source OCIRepository flux-system/fleet is an OCI artifact; "
        "which folder of this repository it is built from is not known (map it in .coredns-gen.yaml guard.sources, "
        "or push it with `flux push artifact --path=DIR` in this repository's CI)"]
    assert "not judged: 1 Kustomizations whose source is not this repository" in result.summary()


def test_guard_sources_in_the_config_maps_an_oci_source_to_a_folder(flux_repo, guard):
    config = {".coredns-gen.yaml": "guard:\n  sources:\n    - source: OCIRepository/flux-system/fleet\n      path: kubernetes/\n"}
    assert errors(guard(flux_repo({**_oci_child("oci://ghcr.io/acme/fleet"), **config}, DROP_OCI))) == CUSTOM_PRUNED


FLUX_INSTANCE = {
    "clusters/prod/flux-instance.yaml": """
        apiVersion: fluxcd.controlplane.io/v1
        kind: FluxInstance
        metadata: {name: flux, namespace: flux-system}
        spec:
          distribution: {version: "2.x", registry: ghcr.io/fluxcd}
          sync:
            kind: OCIRepository
            url: oci://ghcr.io/acme/fleet
            ref: latest
            path: clusters/prod
    """,
    ".coredns-gen.yaml": "guard:\n  sources:\n    - source: OCIRepository/flux-system/flux-system\n      path: kubernetes/\n",
    "kubernetes/clusters/prod/kustomization.yaml": kustomization("coredns-custom.yaml"),
    "kubernetes/clusters/prod/coredns-custom.yaml": configmap("coredns-custom"),
}


def test_a_flux_instance_sync_is_a_cluster_root(flux_repo, guard):
    result = guard(flux_repo(FLUX_INSTANCE, {"kubernetes/clusters/prod/kustomization.yaml": kustomization()}, standard=False))
    assert errors(result) == CUSTOM_PRUNED
    assert result.findings[0].details["cluster"] == "clusters/prod/flux-instance.yaml"


def test_a_flux_instance_syncing_an_unmapped_oci_artifact_judges_nothing_which_is_bad_input(flux_repo, guard):
    """Every cluster judged nothing: a gate that would pass any change is bad input (exit 2)."""
    files = {k: v for k, v in FLUX_INSTANCE.items() if k != ".coredns-gen.yaml"}
    with pytest.raises(UsageError) as caught:
        guard(flux_repo(files, {"kubernetes/clusters/prod/kustomization.yaml": kustomization()}, standard=False))
    assert "judged nothing" in str(caught.value) and "OCIRepository flux-system/flux-system is an OCI artifact" in str(caught.value)
    assert "guard.sources: [{source: OCIRepository/flux-system/flux-system, path: ./}]" in str(caught.value)


def test_a_cluster_that_judged_nothing_beside_one_that_judged_is_named(flux_repo, guard):
    files = {k: v for k, v in FLUX_INSTANCE.items() if k != ".coredns-gen.yaml"}
    result = guard(flux_repo({**files, **PLATFORM}, {"platform/extra.yaml": configmap("extra", namespace="default"),
                                                      "platform/kustomization.yaml": kustomization("coredns-custom.yaml", "extra.yaml")}))
    assert errors(result) == []
    assert "judged nothing in cluster clusters/prod/flux-instance.yaml" in result.summary()


EXTERNAL = {
    "clusters/prod/dns.yaml": """
        apiVersion: source.extensions.fluxcd.io/v1beta1
        kind: ArtifactGenerator
        metadata: {name: split, namespace: flux-system}
        spec:
          sources:
            - {alias: repo, kind: GitRepository, name: flux-system}
          artifacts:
            - name: dns
              copy:
                - {from: "@repo/deploy/dns/**", to: "@artifact/"}
        ---
        apiVersion: kustomize.toolkit.fluxcd.io/v1
        kind: Kustomization
        metadata: {name: dns, namespace: flux-system}
        spec:
          interval: 10m
          path: ./
          prune: true
          sourceRef: {kind: ExternalArtifact, name: dns}
    """,
    "deploy/dns/kustomization.yaml": kustomization("coredns-custom.yaml"),
    "deploy/dns/coredns-custom.yaml": configmap("coredns-custom"),
}


def test_an_external_artifact_copied_from_this_repo_is_judged(flux_repo, guard):
    result = guard(flux_repo(EXTERNAL, {"deploy/dns/kustomization.yaml": kustomization()}))
    assert errors(result) == CUSTOM_PRUNED
    assert result.findings[0].file == "deploy/dns/kustomization.yaml"


def test_an_ordinary_change_in_an_external_artifact_passes(flux_repo, guard):
    result = guard(flux_repo(EXTERNAL, {"deploy/dns/coredns-custom.yaml": configmap("coredns-custom", data="log.override: log # x")}))
    assert result.stats["clusters_judged"] == 1 and result.findings == []


def _with_remote(root, url: str):
    git(root, "remote", "add", "origin", url)
    return root


def _git_child(name: str, url: str) -> dict[str, str]:
    """Kustomization `platform` reading GitRepository `name` at `url`, plus the platform folder."""
    return {"clusters/prod/platform.yaml": f"""
        apiVersion: source.toolkit.fluxcd.io/v1
        kind: GitRepository
        metadata: {{name: {name}, namespace: flux-system}}
        spec: {{interval: 1m, url: "{url}"}}
        ---
        apiVersion: kustomize.toolkit.fluxcd.io/v1
        kind: Kustomization
        metadata: {{name: platform, namespace: flux-system}}
        spec: {{interval: 10m, path: ./platform, prune: true, sourceRef: {{kind: GitRepository, name: {name}}}}}
    """, **{k: v for k, v in PLATFORM.items() if k != "clusters/prod/platform.yaml"}}


def test_a_git_repository_of_this_repos_remote_is_this_repository(flux_repo, guard):
    drop = {"platform/kustomization.yaml": kustomization()}
    root = _with_remote(flux_repo(_git_child("fleet", "https://github.com/Acme/Fleet.git"), drop), "git@github.com:acme/fleet")
    assert errors(guard(root)) == CUSTOM_PRUNED


def test_a_git_repository_of_another_repo_is_not_judged(flux_repo, guard):
    drop = {"platform/kustomization.yaml": kustomization()}
    root = _with_remote(flux_repo(_git_child("other", "https://github.com/acme/other"), drop), "git@github.com:acme/fleet")
    result = guard(root)
    # a renamed repository or a mirror has the same layout: ./platform may be this platform/
    assert [(f.rule, f.file) for f in result.findings if f.severity.value == "error"] == [
        ("not-judged-touched", "platform/kustomization.yaml")]
    assert [f.details["reason"] for f in by_rule(result.findings, "not-judged")] == [
        "source GitRepository flux-system/other is not this repository (https://github.com/acme/other)"]
    assert errors(guard(root, allow=("ks:flux-system/platform",))) == []


# A same-owner GitRepository may be this repository renamed: the guard builds its folder here to learn
# what it reads. LukeEvansTech/talos-cluster dbc7e8a122 (kubernetes/apps/home/shelly-fleet/app/fleet-sync.yaml):
# its folder holds this repository's own Kustomizations, which the real parent's `namespace:` rewrites and
# the probe's build does not, so each appears twice, the copy under its written namespace.
SAME_OWNER = {
    "clusters/prod/apps.yaml": flux_ks("apps", "./apps"),
    "apps/kustomization.yaml": kustomization("dns", "sync.yaml", extra="namespace: dns"),
    "apps/dns/kustomization.yaml": kustomization("ks.yaml"),
    "apps/dns/ks.yaml": """
        apiVersion: kustomize.toolkit.fluxcd.io/v1
        kind: Kustomization
        metadata: {name: dns-app, namespace: flux-system}
        spec:
          interval: 1h
          path: ./apps/dns/app
          prune: true
          sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}
    """,
    "apps/dns/app/kustomization.yaml": kustomization("coredns-custom.yaml"),
    "apps/dns/app/coredns-custom.yaml": configmap("coredns-custom"),
    "apps/sync.yaml": """
        apiVersion: source.toolkit.fluxcd.io/v1
        kind: GitRepository
        metadata: {name: other}
        spec: {interval: 1m, url: "https://github.com/acme/other"}
        ---
        apiVersion: kustomize.toolkit.fluxcd.io/v1
        kind: Kustomization
        metadata: {name: sync}
        spec: {interval: 1h, path: ./apps/dns, prune: true, sourceRef: {kind: GitRepository, name: other}}
    """,
}


def test_a_copy_of_a_judged_kustomization_in_a_same_owner_repository_is_judged_not_refused(flux_repo, guard):
    """The copy (flux-system/dns-app, applied by the probed dns/sync) reads this repository's
    coredns-custom.yaml through the cluster's own GitRepository: it is judged, and a harmless edit
    of that file passes; before, the copy counted as a second Kustomization not judged: refused."""
    edit = {"apps/dns/app/coredns-custom.yaml": configmap("coredns-custom", annotations="team: dns")}
    result = guard(_with_remote(flux_repo(SAME_OWNER, edit), "git@github.com:acme/fleet"))
    assert errors(result) == []
    assert [f.details["kustomization"] for f in by_rule(result.findings, "not-judged")] == ["dns/sync"]


def test_a_prune_through_a_copy_in_a_same_owner_repository_is_still_refused(flux_repo, guard):
    drop = {"apps/dns/app/kustomization.yaml": kustomization()}
    result = guard(_with_remote(flux_repo(SAME_OWNER, drop), "git@github.com:acme/fleet"))
    assert sorted(set(errors(result))) == CUSTOM_PRUNED


# -- a placeholder bootstrap and per-cluster ArtifactGenerators (fluxcd/flux2-kustomize-helm-example) --
def _cluster(name: str) -> dict[str, str]:
    return {
        f"clusters/{name}/flux-system/gotk-sync.yaml": "# This file will be generated automatically by flux bootstrap.\n",
        f"clusters/{name}/flux-system/kustomization.yaml": kustomization("gotk-sync.yaml"),
        f"clusters/{name}/artifacts.yaml": f"""
            apiVersion: source.extensions.fluxcd.io/v1beta1
            kind: ArtifactGenerator
            metadata: {{name: flux-system, namespace: flux-system}}
            spec:
              sources:
                - {{alias: monorepo, kind: GitRepository, name: flux-system}}
              artifacts:
                - name: apps
                  copy:
                    - {{from: "@monorepo/apps/{name}/**", to: "@artifact/{name}/"}}
        """,
        f"clusters/{name}/apps.yaml": f"""
            apiVersion: kustomize.toolkit.fluxcd.io/v1
            kind: Kustomization
            metadata: {{name: apps, namespace: flux-system}}
            spec: {{interval: 1h, path: ./{name}, prune: true, sourceRef: {{kind: ExternalArtifact, name: apps}}}}
        """,
        f"apps/{name}/kustomization.yaml": kustomization("coredns-custom.yaml"),
        f"apps/{name}/coredns-custom.yaml": configmap("coredns-custom"),
    }


def test_a_placeholder_gotk_sync_is_the_root_bootstrap_will_write_and_each_cluster_has_its_own_artifact(flux_repo, guard):
    files = {**_cluster("staging"), **_cluster("production")}
    result = guard(flux_repo(files, {"apps/staging/kustomization.yaml": kustomization()}, standard=False))
    assert [(f.rule, f.details["cluster"]) for f in result.findings] == [
        ("configmap-pruned", "clusters/staging/flux-system/gotk-sync.yaml")]
    assert result.stats["clusters"] == 2 and "roots:" not in result.summary()


# -- clusters named in .coredns-gen.yaml, and the older reading when nothing names them ---------
NAMED = {
    "clusters/prod/flux/config/cluster.yaml": flux_ks("cluster", "./clusters/prod/flux"),
    "clusters/prod/flux/platform.yaml": flux_ks("platform", "./platform"),
    "templates/new-cluster/ks.yaml": flux_ks("template", "./templates/does-not-exist"),
    "platform/kustomization.yaml": kustomization("coredns-custom.yaml"),
    "platform/coredns-custom.yaml": configmap("coredns-custom"),
}
CONFIG = {".coredns-gen.yaml": "guard:\n  clusters:\n    - {name: prod, root: clusters/prod/flux/config/cluster.yaml}\n"}


def test_clusters_named_in_the_config_are_the_only_roots(flux_repo, guard):
    result = guard(flux_repo({**NAMED, **CONFIG}, {"templates/new-cluster/ks.yaml": flux_ks("template", "./still/missing"),
                                                   "platform/kustomization.yaml": kustomization()}, standard=False))
    assert errors(result) == CUSTOM_PRUNED
    assert result.findings[0].details["cluster"] == "clusters/prod/flux/config/cluster.yaml"
    assert [f.file for f in by_rule(result.findings, "unreached")] == ["templates/new-cluster/ks.yaml"]


def test_without_a_bootstrap_every_unproduced_kustomization_is_a_root_and_the_summary_says_so(flux_repo, guard):
    result = guard(flux_repo(NAMED, {"templates/new-cluster/ks.yaml": flux_ks("template", "./still/missing")}, standard=False))
    assert [f.rule for f in result.findings if f.severity.value != "info"] == ["build-failed"]  # the older reading
    assert "roots: no flux bootstrap (flux-system Kustomization), FluxInstance or bootstrap script found" in result.summary()
    assert "roots guessed" in result.summary().splitlines()[0]


def test_a_child_of_a_parent_that_failed_at_base_is_not_taken_for_new(flux_repo, guard):
    """Base never showed the children of a parent that did not build there: a failing child at
    head may have been in the cluster all along, so it is a warning, not a new broken build. The
    parent's repair itself is refused (what Flux last applied through it is unknown)."""
    base = {"clusters/prod/apps.yaml": flux_ks("apps", "./apps"),
            "apps/kustomization.yaml": kustomization("web/ks.yaml", "missing.yaml"),
            "apps/web/ks.yaml": flux_ks("web", "./apps/web/${SITE}")}
    result = guard(flux_repo(base, {"apps/kustomization.yaml": kustomization("web/ks.yaml")}))
    assert [(f.rule, f.severity.value, f.details["kustomization"]) for f in result.findings] == [
        ("build-failed", "warning", "flux-system/web"), ("build-failed", "error", "flux-system/apps")]


def test_without_a_bootstrap_a_failing_parent_does_not_make_its_children_roots(flux_repo, guard):
    """The older reading: the child of a parent that does not build at base is not a cluster of
    its own there (rajsinghtech/kubernetes-manifests: 10 errors where 1 was real)."""
    base = {"clusters/prod/apps.yaml": flux_ks("apps", "./apps"),
            "apps/kustomization.yaml": kustomization("web/ks.yaml", "missing.yaml"),
            "apps/web/ks.yaml": flux_ks("web", "./apps/web/${SITE}")}
    result = guard(flux_repo(base, {"apps/kustomization.yaml": kustomization("web/ks.yaml")}, standard=False))
    assert result.stats["clusters"] == 1
    assert [(f.rule, f.severity.value) for f in result.findings if f.severity.value != "info"] == [
        ("build-failed", "warning"), ("build-failed", "error")]  # the child; the parent's repair


def test_a_broken_external_artifact_build_names_artifact_paths_not_temp_dirs(flux_repo, guard):
    head = {"deploy/dns/kustomization.yaml": kustomization("coredns-custom.yaml", "gone.yaml")}
    found = by_rule(guard(flux_repo(EXTERNAL, head)).findings, "build-failed")
    assert [f.severity.value for f in found] == ["error"]
    assert "coredns-gen-guard" not in found[0].message + found[0].details["error"]
    assert "gone.yaml" in found[0].details["error"]


def _placeholder_fleet(ref_branch: str) -> dict[str, str]:
    """A placeholder bootstrap (flux2-multi-tenancy's shape): which branch the cluster syncs is
    not written anywhere; a tenant's GitRepository of this repository tracks `ref_branch`."""
    return {
        "clusters/prod/flux-system/gotk-sync.yaml": "# This manifest was generated by flux. DO NOT EDIT.\n",
        "clusters/prod/tenants.yaml": f"""
            apiVersion: source.toolkit.fluxcd.io/v1
            kind: GitRepository
            metadata: {{name: tenant, namespace: flux-system}}
            spec: {{interval: 1m, url: https://github.com/acme/fleet, ref: {{branch: {ref_branch}}}}}
            ---
            apiVersion: kustomize.toolkit.fluxcd.io/v1
            kind: Kustomization
            metadata: {{name: tenant, namespace: flux-system}}
            spec: {{interval: 10m, path: ./tenant, prune: true, sourceRef: {{kind: GitRepository, name: tenant}}}}
        """,
        "tenant/cm.yaml": configmap("tenant-settings", namespace="default"),
        "tenant/kustomization.yaml": kustomization("cm.yaml"),
    }


@pytest.mark.parametrize(("ref_branch", "judged"), [("release", True), ("dev-team", False)])
def test_a_source_tracking_a_branch_is_judged_only_as_that_branch(flux_repo, guard, ref_branch, judged):
    """flux2-multi-tenancy: a tenant GitRepository of this repository on `ref: {branch: dev-team}`
    was built from the judged branch's files. Judged only when --base is that branch; another
    branch is another revision, named as not judged (and a change to its files refused)."""
    from tests.helpers import git

    root = flux_repo(_placeholder_fleet(ref_branch),
                     {"tenant/cm.yaml": None, "tenant/kustomization.yaml": kustomization()}, standard=False)
    git(root, "remote", "add", "origin", "https://github.com/acme/fleet.git")
    git(root, "branch", "release", "base")
    from gen.guard import GuardOptions, run_guard

    result = run_guard(GuardOptions(repo=root, base="release", head="HEAD", cache_dir=None))
    rules = [rule for rule, _ in errors(result)]
    if judged:
        assert rules == ["configmap-pruned"], rules
    else:
        assert rules == ["not-judged-touched"], rules
        assert any("tracks {'branch': 'dev-team'}" in m and "branch release (--base)" in m
                   for m in infos(result, "not-judged")), infos(result, "not-judged")
