"""Clusters found by evidence: old Flux API versions judged alike, roots applied by the
repository's scripts and tools, the fallback's guesses never taken from a folder nothing applies
nor built from another repository, and a guess always said on the summary's first line.

Each layout is modelled on a public repository where the guard went wrong: fluxcd/flux2-multi-
tenancy (v1beta1, the bootstrap only in CI), szinn/k8s-homelab (a Kustomization on the
gateway-api repository among guessed roots), carpenike/haraldkoch (archives and entries
commented out taken as clusters), and Taskfile/helmfile/OpenTofu bootstraps."""

from __future__ import annotations

from textwrap import dedent

import pytest

from tests.guard.conftest import configmap, kustomization
from tests.helpers import git


def ks(name: str, path: str, api: str = "v1", source: str = "flux-system", namespace: str = "flux-system",
       source_namespace: str = "") -> str:
    """A Flux Kustomization of any served API version."""
    src_ns = f"\n            namespace: {source_namespace}" if source_namespace else ""
    path_line = f"\n          path: {path}" if path is not None else ""
    return f"""
        apiVersion: kustomize.toolkit.fluxcd.io/{api}
        kind: Kustomization
        metadata:
          name: {name}
          namespace: {namespace}
        spec:
          interval: 10m{path_line}
          prune: true
          sourceRef:
            kind: GitRepository
            name: {source}{src_ns}
    """


def docs(*texts: str) -> str:
    """YAML documents written apart, as one file."""
    return "---\n".join(dedent(t).lstrip("\n") for t in texts)


def errors(result: object) -> list[tuple[str, str]]:
    return [(f.rule, f.details.get("object", "")) for f in result.findings  # type: ignore[attr-defined]
            if f.severity.value == "error"]


PRUNED = [("configmap-pruned", "kube-system_coredns-custom__ConfigMap")]
DROP_CUSTOM = {"infrastructure/dns/kustomization.yaml": kustomization()}

# -- fluxcd/flux2-multi-tenancy, 2021: v1beta1, no gotk-sync.yaml, the bootstrap in CI ------------
E2E = """
    name: e2e
    on: push
    jobs:
      kubernetes:
        runs-on: ubuntu-latest
        steps:
          - name: Setup cluster reconciliation
            run: |
              flux create source git flux-system \\
              --url=${{ github.event.repository.html_url }} \\
              --branch=${GITHUB_REF#refs/heads/}
              flux create kustomization flux-system \\
              --source=flux-system \\
              --path=./clusters/staging
"""


def multi_tenancy(api: str) -> dict[str, str]:
    return {
        ".sourceignore": ".github/\n",
        ".github/workflows/e2e.yaml": E2E,
        "clusters/staging/infrastructure.yaml": ks("infrastructure", "./infrastructure", api),
        "clusters/staging/tenants.yaml": ks("tenants", "./tenants/staging", api),
        "infrastructure/kustomization.yaml": kustomization("dns"),
        "infrastructure/dns/kustomization.yaml": kustomization("coredns-custom.yaml"),
        "infrastructure/dns/coredns-custom.yaml": configmap("coredns-custom"),
        "tenants/staging/kustomization.yaml": kustomization("../base/dev-team",
                                                           extra="patches:\n  - path: dev-team-patch.yaml"),
        # a patch of a Flux Kustomization: no sourceRef, no object Flux applies by itself
        "tenants/staging/dev-team-patch.yaml": f"""
            apiVersion: kustomize.toolkit.fluxcd.io/{api}
            kind: Kustomization
            metadata:
              name: dev-team
              namespace: apps
            spec:
              path: ./staging
        """,
        "tenants/base/dev-team/kustomization.yaml": kustomization("sync.yaml"),
        "tenants/base/dev-team/sync.yaml": docs(f"""
            apiVersion: source.toolkit.fluxcd.io/{'v1beta1' if api == 'v1beta1' else 'v1'}
            kind: GitRepository
            metadata:
              name: dev-team
              namespace: apps
            spec:
              interval: 1m
              url: https://github.com/fluxcd/flux2-kustomize-helm-example
              ref:
                branch: main
        """, ks("dev-team", "./", api, source="dev-team", namespace="apps")),
    }


@pytest.mark.parametrize("api", ["v1beta1", "v1beta2", "v1"])
def test_every_kustomization_api_flux_served_is_judged_alike_from_a_ci_bootstrap(flux_repo, guard, api):
    result = guard(flux_repo(multi_tenancy(api), DROP_CUSTOM, standard=False))
    assert errors(result) == PRUNED
    assert result.coverage.roots_how == "bootstrap"  # the CI's `flux create kustomization --path`
    assert result.stats["clusters"] == 1
    assert "roots guessed" not in result.summary()
    # the patch is no root, and the tenant on another repository is named, not built
    assert [str(ref) for ref, *_ in result.coverage.not_judged] == ["apps/dev-team"]


# -- szinn/k8s-homelab: one guessed root on another repository's GitRepository -----------------
FOREIGN_CRDS = docs("""
    apiVersion: source.toolkit.fluxcd.io/v1
    kind: GitRepository
    metadata:
      name: gateway-api-crd
      namespace: networking
    spec:
      interval: 30m
      url: https://github.com/kubernetes-sigs/gateway-api
      ref:
        tag: v1.2.1
      ignore: |
        /*
        !config/crd/standard/gateway.networking.k8s.io_httproutes.yaml
""", ks("gateway-api-crd", None, source="gateway-api-crd", namespace="networking",  # type: ignore[arg-type]
        source_namespace="networking"))

HOMELAB = {
    "kubernetes/main/cluster/config/cluster.yaml": docs("""
        apiVersion: source.toolkit.fluxcd.io/v1
        kind: GitRepository
        metadata:
          name: home-kubernetes
          namespace: flux-system
        spec:
          interval: 30m
          url: https://github.com/acme/homelab
          ref:
            branch: main
    """, ks("cluster", "./kubernetes/main/apps", source="home-kubernetes")),
    "kubernetes/main/apps/kustomization.yaml": kustomization("dns", "networking"),
    "kubernetes/main/apps/dns/kustomization.yaml": kustomization("coredns-custom.yaml"),
    "kubernetes/main/apps/dns/coredns-custom.yaml": configmap("coredns-custom"),
    # its own Flux Kustomization, applied by nothing in git (an app of the cluster, guessed a root)
    "kubernetes/main/apps/networking/kustomization.yaml": kustomization(),
    "kubernetes/main/extra/gateway-api/install.yaml": FOREIGN_CRDS,
}


def test_a_guessed_root_on_another_repository_is_not_built_and_poisons_nothing(flux_repo, guard):
    repo = flux_repo(HOMELAB, {"kubernetes/main/apps/dns/kustomization.yaml": kustomization()}, standard=False)
    git(repo, "remote", "add", "origin", "https://github.com/acme/homelab.git")
    result = guard(repo)
    # the prune is refused; the CRDs' own Kustomization, at `path: ./` of kubernetes-sigs/gateway-api
    # (another owner and name on the remote's host: no mirror of this repository), reads no file here
    assert errors(result) == PRUNED
    assert result.coverage.roots_how == "fallback"
    assert [(str(ref), why) for ref, why, *_ in result.coverage.not_judged] == [
        ("networking/gateway-api-crd",
         "source GitRepository networking/gateway-api-crd is not this repository (https://github.com/kubernetes-sigs/gateway-api): "
         "no file of this repository is in it (owner and name differ from every remote on github.com)")]
    first = result.summary().splitlines()[0]
    assert "roots guessed" in first and "coredns-gen guard --discover --write" in first


# -- archives and entries commented out are never roots ------------------------------------------
def test_an_archive_and_an_entry_commented_out_are_never_guessed_roots(flux_repo, guard):
    base = {
        "kubernetes/flux/cluster.yaml": ks("cluster", "./kubernetes/apps"),
        "kubernetes/apps/kustomization.yaml": kustomization("dns", "media"),
        "kubernetes/apps/dns/kustomization.yaml": kustomization("coredns-custom.yaml"),
        "kubernetes/apps/dns/coredns-custom.yaml": configmap("coredns-custom"),
        # an app taken out: commented out of its folder's kustomization, its path long gone
        "kubernetes/apps/media/kustomization.yaml": "resources:\n  # - plex.yaml\n  - jellyfin.yaml\n",
        "kubernetes/apps/media/jellyfin.yaml": ks("jellyfin", "./kubernetes/apps/media/jellyfin-app"),
        "kubernetes/apps/media/jellyfin-app/kustomization.yaml": kustomization(),
        "kubernetes/apps/media/plex.yaml": ks("plex", "./kubernetes/apps/media/plex-app"),
        ".archive/old-cluster/flux.yaml": ks("old", "./.archive/old-cluster/gone"),
    }
    result = guard(flux_repo(base, {"kubernetes/apps/dns/kustomization.yaml": kustomization()}, standard=False))
    assert errors(result) == PRUNED  # not a build-failed of a pseudo-root
    assert result.stats["clusters"] == 1
    assert result.coverage.unreached == [".archive/old-cluster/flux.yaml", "kubernetes/apps/media/plex.yaml"]


def test_an_underscore_archive_and_an_app_commented_out_above_its_folder_are_never_guessed_roots(flux_repo, guard):
    """carpenike/k8s-gitops: `_archive/` (no dot) and `apps/home/mosquitto/ks.yaml`, commented out of
    `apps/home/kustomization.yaml` (its own folder has none), were 16 guessed clusters."""
    base = {
        "kubernetes/flux/cluster.yaml": ks("cluster", "./kubernetes/apps"),
        "kubernetes/apps/kustomization.yaml": kustomization("dns", "home"),
        "kubernetes/apps/dns/kustomization.yaml": kustomization("coredns-custom.yaml"),
        "kubernetes/apps/dns/coredns-custom.yaml": configmap("coredns-custom"),
        "kubernetes/apps/home/kustomization.yaml": "resources:\n  - ./esphome/ks.yaml\n  # - ./mosquitto/ks.yaml\n",
        "kubernetes/apps/home/esphome/ks.yaml": ks("esphome", "./kubernetes/apps/home/esphome/app"),
        "kubernetes/apps/home/esphome/app/kustomization.yaml": kustomization(),
        "kubernetes/apps/home/mosquitto/ks.yaml": ks("mosquitto", "./kubernetes/apps/home/mosquitto/app"),
        "kubernetes/apps/home/mosquitto/app/kustomization.yaml": kustomization(),
        "_archive/cluster-0/thanos/ks.yaml": ks("thanos", "./_archive/cluster-0/thanos/app"),
        "_archive/cluster-0/thanos/app/kustomization.yaml": kustomization(),
    }
    result = guard(flux_repo(base, {"kubernetes/apps/dns/kustomization.yaml": kustomization()}, standard=False))
    assert errors(result) == PRUNED
    assert result.stats["clusters"] == 1
    assert result.coverage.unreached == ["_archive/cluster-0/thanos/ks.yaml", "kubernetes/apps/home/mosquitto/ks.yaml"]


# -- bootstraps in the repository's tools ---------------------------------------------------------
TASKFILE = """
    version: "3"
    tasks:
      bootstrap:
        cmds:
          - kubectl apply --server-side --kustomize {{.KUBERNETES_DIR}}/{{.CLUSTER}}/flux/config
"""


def _fleet(cluster: str) -> dict[str, str]:
    return {
        f"kubernetes/{cluster}/flux/config/kustomization.yaml": kustomization("cluster.yaml"),
        f"kubernetes/{cluster}/flux/config/cluster.yaml": ks("cluster", f"./kubernetes/{cluster}/apps"),
        f"kubernetes/{cluster}/apps/kustomization.yaml": kustomization("coredns-custom.yaml"),
        f"kubernetes/{cluster}/apps/coredns-custom.yaml": configmap("coredns-custom"),
    }


def test_a_taskfile_that_applies_each_clusters_flux_folder_names_the_clusters(flux_repo, guard):
    base = {"Taskfile.yaml": TASKFILE, **_fleet("main"), **_fleet("lab"),
            "kubernetes/main/apps/unused/ks.yaml": ks("unused", "./kubernetes/main/apps/unused/app")}
    result = guard(flux_repo(base, {"kubernetes/lab/apps/kustomization.yaml": kustomization()}, standard=False))
    assert errors(result) == PRUNED
    assert (result.coverage.roots_how, result.stats["clusters"]) == ("bootstrap", 2)
    assert result.coverage.unreached == ["kubernetes/main/apps/unused/ks.yaml"]


HELMFILE_VALUES = """
    instance:
      distribution:
        version: 2.x
      sync:
        kind: GitRepository
        url: https://github.com/acme/homelab.git
        ref: refs/heads/main
        path: kubernetes/main/flux/cluster
"""


@pytest.mark.parametrize("tool", ["helmfile", "opentofu"])
def test_a_flux_instance_installed_by_a_tool_is_the_clusters_root(flux_repo, guard, tool):
    if tool == "helmfile":
        files = {"bootstrap/helmfile.yaml": """
            releases:
              - name: flux-instance
                namespace: flux-system
                chart: oci://ghcr.io/controlplaneio-fluxcd/charts/flux-instance
                values:
                  - values/flux-instance.yaml
        """, "bootstrap/values/flux-instance.yaml": HELMFILE_VALUES}
    else:
        files = {"infra/flux.tf": """
            resource "helm_release" "flux_instance" {
              name       = "flux-instance"
              chart      = "flux-instance"
              values = [yamlencode({
                instance = {
                  sync = {
                    kind = "GitRepository"
                    url  = "https://github.com/acme/homelab.git"
                    ref  = "refs/heads/main"
                    path = "kubernetes/main/flux/cluster"
                  }
                }
              })]
            }
        """}
    base = {**files,
            "kubernetes/main/flux/cluster/ks.yaml": ks("apps", "./kubernetes/main/apps"),
            "kubernetes/main/apps/kustomization.yaml": kustomization("coredns-custom.yaml"),
            "kubernetes/main/apps/coredns-custom.yaml": configmap("coredns-custom"),
            "kubernetes/attic/ks.yaml": ks("attic", "./kubernetes/attic/app")}
    repo = flux_repo(base, {"kubernetes/main/apps/kustomization.yaml": kustomization()}, standard=False)
    git(repo, "remote", "add", "origin", "git@github.com:acme/homelab.git")
    result = guard(repo)
    assert errors(result) == PRUNED
    assert (result.coverage.roots_how, result.stats["clusters"]) == ("bootstrap", 1)
    assert result.coverage.unreached == ["kubernetes/attic/ks.yaml"]


# -- guard --discover: what the guard believes, with its evidence; --write confirms it once --------
def _cli(*args: str) -> tuple[int, str, str]:
    from typer.testing import CliRunner

    from gen.cli import app

    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_discover_names_each_cluster_with_its_evidence_and_what_is_not_judged(flux_repo):
    import json

    base = {**multi_tenancy("v1beta1"),
            "clusters/staging/operator.yaml": """
                apiVersion: fluxcd.controlplane.io/v1
                kind: ResourceSet
                metadata:
                  name: tenants
                  namespace: flux-system
                spec:
                  resources: []
            """}
    repo = flux_repo(base, {}, standard=False)
    code, out, _ = _cli("guard", "--discover", "--repo", str(repo))
    assert code == 0
    assert ("  cluster staging: flux create kustomization (a script) — .github/workflows/e2e.yaml:12: "
            "flux create kustomization --path clusters/staging; syncs ./clusters/staging") in out
    assert "  Kustomization apps/dev-team [clusters/staging]: source GitRepository apps/dev-team is not this repository" in out
    assert "ResourceSet" not in out  # rendered by the Flux Operator's builder: its output is judged
    assert "  Kustomization flux-system/infrastructure: kustomize.toolkit.fluxcd.io/v1beta1" in out
    code, out, _ = _cli("guard", "--discover", "--repo", str(repo), "--format", "json")
    top = json.loads(out)
    assert [(c["name"], c["path"], c["form"]) for c in top["clusters"]] == [
        ("staging", "clusters/staging", "flux create kustomization (a script)")]
    assert top["unreached"] == []  # the patch is read by the tenants' build
    assert top["operator"] == []


def test_discover_write_records_guessed_clusters_and_the_guard_stops_guessing(flux_repo, guard):
    config = "# our repository's settings\nvalues:\n  - dns/*.yaml  # rendered by CI\nguard:\n  allow: []\n"
    base = {**HOMELAB, ".coredns-gen.yaml": config}
    repo = flux_repo(base, {"kubernetes/main/apps/dns/kustomization.yaml": kustomization()}, standard=False)
    git(repo, "remote", "add", "origin", "https://github.com/acme/homelab.git")
    code, out, err = _cli("guard", "--discover", "--repo", str(repo), "--write", "--head", "base")
    assert code == 0, err
    assert "guessed" in out
    written = (repo / ".coredns-gen.yaml").read_text()
    assert written.startswith("# our repository's settings\nvalues:\n  - dns/*.yaml  # rendered by CI\nguard:\n  allow: []\n")
    assert "  clusters:\n    - name: main\n      root: kubernetes/main/cluster/config/cluster.yaml  # guess" in written
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "confirm the clusters")
    result = guard(repo)
    assert result.coverage.roots_how == "config"
    assert "roots guessed" not in result.summary()
    assert PRUNED[0] in errors(result)


# -- the flux-instance chart's values from a configMapGenerator (szinn/k8s-homelab's main cluster) --
def test_a_flux_instance_whose_sync_comes_from_a_values_generator_is_the_clusters_root(flux_repo, guard):
    base = {
        "kubernetes/main/apps/flux-system/flux-instance/app/helmrelease.yaml": """
            apiVersion: helm.toolkit.fluxcd.io/v2
            kind: HelmRelease
            metadata:
              name: flux-instance
              namespace: flux-system
            spec:
              interval: 1h
              chartRef:
                kind: OCIRepository
                name: flux-instance
              valuesFrom:
                - kind: ConfigMap
                  name: flux-instance-helm-values
        """,
        "kubernetes/main/apps/flux-system/flux-instance/app/kustomization.yaml": kustomization(
            "helmrelease.yaml", extra="configMapGenerator:\n  - name: flux-instance-helm-values\n"
                                      "    files:\n      - values.yaml=./helm-values.yaml"),
        "kubernetes/main/apps/flux-system/flux-instance/app/helm-values.yaml": HELMFILE_VALUES,
        "kubernetes/main/flux/cluster/ks.yaml": ks("apps", "./kubernetes/main/apps/dns"),
        "kubernetes/main/apps/dns/kustomization.yaml": kustomization("coredns-custom.yaml"),
        "kubernetes/main/apps/dns/coredns-custom.yaml": configmap("coredns-custom"),
    }
    repo = flux_repo(base, {"kubernetes/main/apps/dns/kustomization.yaml": kustomization()}, standard=False)
    git(repo, "remote", "add", "origin", "https://github.com/acme/homelab")
    result = guard(repo)
    assert errors(result) == PRUNED
    assert (result.coverage.roots_how, result.stats["clusters"]) == ("bootstrap", 1)


# -- ResourceSets (controlplaneio-fluxcd/d2-fleet): rendered and judged (tests/guard/test_resourcesets.py)
def test_a_resourceset_a_cluster_applies_is_rendered_and_judged(flux_repo, guard):
    from tests.guard.conftest import flux_ks

    resourceset = """
        apiVersion: fluxcd.controlplane.io/v1
        kind: ResourceSet
        metadata:
          name: tenants
          namespace: flux-system
        spec:
          inputs:
            - tenant: team-{n}
          resources:
            - apiVersion: v1
              kind: ConfigMap
              metadata:
                name: << inputs.tenant >>
                namespace: flux-system
    """
    base = {"clusters/prod/tenants.yaml": flux_ks("tenants", "./tenants"),
            "tenants/kustomization.yaml": kustomization("resourceset.yaml"),
            "tenants/resourceset.yaml": resourceset.format(n=1)}
    result = guard(flux_repo(base, {"tenants/resourceset.yaml": resourceset.format(n=2)}))
    assert [f.rule for f in result.findings if f.rule == "operator-not-judged"] == []
    assert [(f.rule, f.message.split(":")[0]) for f in result.findings if f.severity.value == "error"] == [
        ("configmap-pruned", "ConfigMap flux-system/team-1 would be deleted by Flux")]


# -- xunholy/k8s-gitops: ExternalArtifacts copied from the FluxInstance's own OCIRepository ----------
def test_an_external_artifact_copied_from_the_flux_instances_oci_source_is_this_repository(flux_repo, guard):
    base = {
        ".github/workflows/push.yaml": """
            on: push
            jobs:
              push:
                runs-on: ubuntu-latest
                steps:
                  - run: flux push artifact oci://ghcr.io/acme/fleet:$(git rev-parse --short HEAD) --path=./kubernetes
        """,
        "kubernetes/clusters/prod/flux-instance.yaml": """
            apiVersion: fluxcd.controlplane.io/v1
            kind: FluxInstance
            metadata: {name: flux, namespace: flux-system}
            spec:
              distribution: {version: 2.x, registry: ghcr.io/fluxcd}
              sync: {kind: OCIRepository, url: "oci://ghcr.io/acme/fleet", ref: latest, path: clusters/prod}
        """,
        "kubernetes/clusters/prod/kustomization.yaml": kustomization("apps.yaml"),
        "kubernetes/clusters/prod/apps.yaml": docs("""
            apiVersion: source.extensions.fluxcd.io/v1beta1
            kind: ArtifactGenerator
            metadata: {name: apps, namespace: flux-system}
            spec:
              sources:
                - {alias: repo, kind: OCIRepository, name: flux-system}
              artifacts:
                - name: dns
                  copy:
                    - {from: "@repo/apps/dns/**", to: "@artifact/"}
        """, """
            apiVersion: kustomize.toolkit.fluxcd.io/v1
            kind: Kustomization
            metadata: {name: dns, namespace: flux-system}
            spec:
              interval: 10m
              path: ./
              prune: true
              sourceRef: {kind: ExternalArtifact, name: dns}
        """),
        "kubernetes/apps/dns/kustomization.yaml": kustomization("coredns-custom.yaml"),
        "kubernetes/apps/dns/coredns-custom.yaml": configmap("coredns-custom"),
    }
    result = guard(flux_repo(base, {"kubernetes/apps/dns/kustomization.yaml": kustomization()}, standard=False))
    assert errors(result) == PRUNED
    assert result.coverage.not_judged == []


def test_an_artifact_generator_copying_a_folder_without_a_glob_copies_it_as_cp_r(flux_repo, guard):
    """xunholy/k8s-gitops: `from: "@repo/apps/base/<app>/app/"` (no glob) copies the folder itself
    into `to`, under its own name, as source-watcher's builder does (cp -r)."""
    base = {
        "clusters/prod/dns.yaml": docs("""
            apiVersion: source.extensions.fluxcd.io/v1beta1
            kind: ArtifactGenerator
            metadata: {name: split, namespace: flux-system}
            spec:
              sources:
                - {alias: repo, kind: GitRepository, name: flux-system}
              artifacts:
                - name: dns
                  originRevision: "@repo"
                  copy:
                    - {from: "@repo/deploy/dns/app/", to: "@artifact/deploy/dns/"}
        """, """
            apiVersion: kustomize.toolkit.fluxcd.io/v1
            kind: Kustomization
            metadata: {name: dns, namespace: flux-system}
            spec:
              interval: 10m
              path: ./deploy/dns/app
              prune: true
              sourceRef: {kind: ExternalArtifact, name: dns}
        """),
        "deploy/dns/app/kustomization.yaml": kustomization("coredns-custom.yaml"),
        "deploy/dns/app/coredns-custom.yaml": configmap("coredns-custom"),
    }
    result = guard(flux_repo(base, {"deploy/dns/app/kustomization.yaml": kustomization()}))
    assert errors(result) == PRUNED
    assert result.findings[0].file == "deploy/dns/app/kustomization.yaml"


# -- xunholy/k8s-gitops: a templated helmfile installs the FluxInstance; CI pushes the OCI artifact --
XUNHOLY = {
    "kubernetes/bootstrap/helmfile.yaml.gotmpl": """
        ---
        {{- $rootDir := requiredEnv "ROOT_DIR" }}
        {{- $clusterId := requiredEnv "CLUSTER_ID" }}
        {{- $fluxInstance := readFile (printf "%s/kubernetes/clusters/%s/flux-system/flux-instance/app/helmrelease.yaml" $rootDir $clusterId) | fromYaml }}
        {{- $fluxInstanceOCI := index $fluxInstance.spec.resources 0 }}
        releases:
          - name: flux-instance
            namespace: flux-system
            chart: {{ $fluxInstanceOCI.spec.url }}
            version: "{{ $fluxInstanceOCI.spec.ref.tag }}"
            values: ['{{ $rootDir }}/kubernetes/clusters/{{ $clusterId }}/flux-system/flux-instance/app/values.yaml']
    """,
    "kubernetes/clusters/cluster-00/flux-system/flux-instance/app/values.yaml": """
        instance:
          sync:
            kind: OCIRepository
            url: oci://ghcr.io/acme/manifests/fleet
            ref: main
            path: ./clusters/cluster-00
    """,
    ".github/workflows/oci.yaml": """
        on: {push: {branches: [main]}}
        env:
          OCI_REPO: "oci://ghcr.io/acme/manifests/${{ github.event.repository.name }}"
        jobs:
          publish:
            runs-on: ubuntu-latest
            steps:
              - name: Create OCI artifact
                run: |
                  flux push artifact "$OCI_REPO:$(git rev-parse --short HEAD)" \\
                    --path="./kubernetes" \\
                    --revision="$(git branch --show-current)@sha1:$(git rev-parse HEAD)"
    """,
    "kubernetes/clusters/cluster-00/kustomization.yaml": kustomization("dns.yaml"),
    "kubernetes/clusters/cluster-00/dns.yaml": configmap("coredns-custom"),
}


def test_a_templated_helmfile_and_a_ci_push_from_env_make_the_cluster_and_its_source(flux_repo, guard):
    repo = flux_repo(XUNHOLY, {"kubernetes/clusters/cluster-00/kustomization.yaml": kustomization()}, standard=False)
    git(repo, "remote", "add", "origin", "https://github.com/acme/fleet.git")
    result = guard(repo)
    assert errors(result) == PRUNED
    assert (result.coverage.roots_how, result.stats["clusters"]) == ("bootstrap", 1)
    assert result.coverage.not_judged == []


def test_a_plain_helmfile_naming_its_values_file_by_a_template_makes_the_cluster(flux_repo, guard):
    """xunholy/k8s-gitops before 1e44a732c: `kubernetes/bootstrap/helmfile.yaml` (no .gotmpl) names
    the flux-instance values file `{{ requiredEnv "ROOT_DIR" }}/kubernetes/clusters/{{ requiredEnv
    "CLUSTER_ID"}}/…/values.yaml`. The template was taken as a literal path: no root, exit 2."""
    files = {k: v for k, v in XUNHOLY.items() if not k.endswith(".gotmpl")}
    files["kubernetes/bootstrap/helmfile.yaml"] = """
        releases:
          - name: flux-instance
            namespace: flux-system
            chart: oci://ghcr.io/controlplaneio-fluxcd/charts/flux-instance
            version: 0.49.0
            values: ['{{ requiredEnv "ROOT_DIR" }}/kubernetes/clusters/{{ requiredEnv "CLUSTER_ID"}}/flux-system/flux-instance/app/values.yaml']
    """
    repo = flux_repo(files, {"kubernetes/clusters/cluster-00/kustomization.yaml": kustomization()}, standard=False)
    git(repo, "remote", "add", "origin", "https://github.com/acme/fleet.git")
    result = guard(repo)
    assert errors(result) == PRUNED
    assert (result.coverage.roots_how, result.stats["clusters"]) == ("bootstrap", 1)
