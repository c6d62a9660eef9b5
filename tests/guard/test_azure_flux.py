"""AKS clusters bootstrapped by Azure's Flux extension (`Microsoft.KubernetesConfiguration/
fluxConfigurations`): the Kustomizations it makes are written in Bicep, an ARM template, Terraform
or an `az k8s-configuration flux create` line, never as YAML, and the guard takes them as the
cluster's roots.

The fixtures are the public examples, abridged (placeholders filled with this repository's URL):
- Bicep: Azure/gitops-flux2-kustomize-helm-mt `bicep/flux-aks-example.bicep` (its kustomizations
  write no `prune`, so they prune nothing: the extension's default is false);
- ARM: the template in Azure's docs "GitOps Flux v2 configurations with AKS and Azure
  Arc-enabled Kubernetes" (conceptual-gitops-flux2.md, "ARM Template" tab);
- Terraform: hashicorp/terraform-provider-azurerm `website/docs/r/kubernetes_flux_configuration.
  html.markdown` example (`garbage_collection_enabled` defaults to false);
- az: Azure's "Tutorial: Deploy applications using GitOps with Flux v2" (tutorial-use-gitops-
  flux2.md), whose configuration `cluster-config` makes `cluster-config/cluster-config-infra`.
The replay of Azure/gitops-flux2-kustomize-helm-mt never reached `./apps/production`: the Bicep
files were the only bootstrap naming it."""

from __future__ import annotations

import json

import pytest

from gen.errors import UsageError
from gen.guard.flux import bootstraps
from gen.guard.repo.checkout import load_tree
from tests.guard.conftest import configmap, kustomization
from tests.guard.test_discovery_evidence import E2E, PRUNED, _cli, errors
from tests.helpers import git

URL = "https://github.com/Azure/gitops-flux2-kustomize-helm-mt"

BICEP = """
    param location string = resourceGroup().location

    resource managedClusters 'Microsoft.ContainerService/managedClusters@2021-08-01' = [for i in range(0,3): {
      name: 'bicep-cluster${i}'
      location: location
    }]

    resource fluxConfig 'Microsoft.KubernetesConfiguration/fluxConfigurations@2022-03-01' = [for i in range(0,3): {
      name: 'bicep-fluxconfig'
      properties: {
        scope: 'cluster'
        namespace: 'cluster-config'
        sourceKind: 'GitRepository'
        gitRepository: {
          url: 'https://github.com/Azure/gitops-flux2-kustomize-helm-mt'
          repositoryRef: {
            branch: 'main'
          }
          syncIntervalInSeconds: 120
        }
        kustomizations: {
          'infra': {
            path: './infrastructure'
            syncIntervalInSeconds: 120%(prune)s
          }
          'apps': {
            path: %(apps)s
            syncIntervalInSeconds: 120
            dependsOn: [
              'infra'
            ]%(prune)s
          }
        }
      }
      scope: managedClusters[i]
    }]
"""

ARM = """
    {
        "$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#",
        "contentVersion": "1.0.0.0",
        "parameters": {"env": {"type": "string", "defaultValue": "production"}},
        "resources": [
            {
                "type": "Microsoft.KubernetesConfiguration/fluxConfigurations",
                "apiVersion": "2022-03-01",
                "name": "cluster-config",
                "scope": "Microsoft.Kubernetes/connectedClusters/flux-demo-arc",
                "properties": {
                    "configurationProtectedSettings": {},
                    "gitRepository": {
                        "repositoryRef": {"branch": "main"},
                        "url": "https://github.com/Azure/gitops-flux2-kustomize-helm-mt"
                    },
                    "kustomizations": {
                        "apps": {"path": %(apps)s, "prune": true}
                    },
                    "scope": "cluster",
                    "sourceKind": "GitRepository"
                }
            }
        ]
    }
"""

TERRAFORM = """
    resource "azurerm_kubernetes_flux_configuration" "example" {
      name       = "example-fc"
      cluster_id = azurerm_kubernetes_cluster.test.id
      namespace  = "flux"

      git_repository {
        url             = "https://github.com/Azure/gitops-flux2-kustomize-helm-mt"
        reference_type  = "branch"
        reference_value = "main"
      }

      kustomizations {
        name = "kustomization-1"
        path = %(apps)s%(prune)s

        post_build {
          substitute = {
            example_var = "substitute_with_this"
          }
          substitute_from {
            kind = "ConfigMap"
            name = "example-configmap"
          }
        }
      }

      depends_on = [
        azurerm_kubernetes_cluster_extension.example
      ]
    }
"""

AZ = """
    #!/bin/bash
    az k8s-configuration flux create -g flux-demo-rg \\
    -c flux-demo-arc \\
    -n cluster-config \\
    --namespace cluster-config \\
    -t connectedClusters \\
    --scope cluster \\
    -u https://github.com/Azure/gitops-flux2-kustomize-helm-mt \\
    --branch main  \\
    --kustomization name=infra path=./infrastructure%(prune)s \\
    --kustomization name=apps path=%(apps)s%(prune)s dependsOn=\\["infra"\\]
"""

PRUNE = {"bicep": "\n        prune: true", "arm": "", "terraform": "\n    garbage_collection_enabled = true",
         "az": " prune=true"}
FILES = {"bicep": ("bicep/flux-aks-example.bicep", BICEP), "arm": ("arm/fluxconfig.json", ARM),
         "terraform": ("terraform/flux.tf", TERRAFORM), "az": ("scripts/gitops.sh", AZ)}


def _quoted(form: str, path: str) -> str:
    if form == "bicep":
        return f"'{path}'"
    return path if form == "az" else f'"{path}"'


def _files(form: str, apps: str = "./apps/production", prune: bool = True, quote: bool = True) -> dict[str, str]:
    name, text = FILES[form]
    body = text % {"apps": _quoted(form, apps) if quote else apps, "prune": PRUNE[form] if prune else ""}
    return {name: body,
            "infrastructure/kustomization.yaml": kustomization(),
            "apps/production/kustomization.yaml": kustomization("coredns-custom.yaml"),
            "apps/production/coredns-custom.yaml": configmap("coredns-custom"),
            "apps/staging/kustomization.yaml": kustomization()}


DROP = {"apps/production/kustomization.yaml": kustomization()}


def _repo(flux_repo, base: dict[str, str], head: dict[str, str | None] | None = None):
    repo = flux_repo(base, DROP if head is None else head, standard=False)
    git(repo, "remote", "add", "origin", URL + ".git")
    return repo


def _scan(repo, tmp_path) -> list[bootstraps.Evidence]:
    return bootstraps.scan(load_tree(repo, git(repo, "rev-parse", "HEAD").strip(), tmp_path / "tree"))


# the replayed repository's other bootstrap: CI syncs ./clusters/staging into a kind cluster (the same
# workflow as flux2-multi-tenancy's, tests/guard/test_discovery_evidence.py)
STAGING = {".github/workflows/e2e.yaml": E2E, "clusters/staging/apps.yaml": """
    apiVersion: kustomize.toolkit.fluxcd.io/v1
    kind: Kustomization
    metadata:
      name: apps
      namespace: flux-system
    spec:
      interval: 10m0s
      sourceRef:
        kind: GitRepository
        name: flux-system
      path: ./apps/staging
      prune: true
"""}


@pytest.mark.parametrize("form", ["bicep", "arm", "terraform", "az"])
def test_a_flux_configuration_written_outside_yaml_is_the_clusters_root(flux_repo, guard, form):
    """A ConfigMap dropped from the folder a fluxConfiguration's Kustomization prunes is refused;
    before, only the CI's staging cluster was found, and the production change passed unjudged."""
    result = guard(_repo(flux_repo, {**_files(form), **STAGING}))
    assert errors(result) == PRUNED
    assert result.coverage.roots_how == "bootstrap"
    assert result.stats["clusters"] == 2


@pytest.mark.parametrize("form", ["bicep", "terraform", "az"])
def test_a_flux_configuration_prunes_only_where_it_says_so(flux_repo, guard, tmp_path, form):
    """The extension's API, the az CLI and Terraform's garbage_collection_enabled all default to
    no pruning: the ConfigMap stays in the cluster, so nothing is refused, yet the path is judged."""
    repo = _repo(flux_repo, _files(form, prune=False))
    result = guard(repo)
    assert "configmap-pruned" not in {rule for rule, _ in errors(result)}
    assert result.coverage.roots_how == "bootstrap"
    evidence = [e for e in _scan(repo, tmp_path) if e.path == "apps/production"]
    assert [(e.form, e.prune) for e in evidence] == [("flux-configuration", False)]


@pytest.mark.parametrize("form", ["bicep", "arm", "terraform", "az"])
def test_a_variable_in_a_flux_configuration_path_stands_for_each_folder(flux_repo, guard, tmp_path, form):
    apps = {"bicep": "./apps/${env}", "arm": "[concat('./apps/', parameters('env'))]",
            "terraform": "./apps/${var.env}", "az": "./apps/$ENV"}[form]
    base = {**_files(form, apps), "apps/staging/kustomization.yaml": kustomization("coredns-custom.yaml"),
            "apps/staging/coredns-custom.yaml": configmap("coredns-custom")}
    repo = _repo(flux_repo, base, {"apps/staging/kustomization.yaml": kustomization()})
    paths = sorted(e.path for e in _scan(repo, tmp_path) if e.name.endswith(("-apps", "-kustomization-1")))
    assert paths == ["apps/production", "apps/staging"]
    result = guard(repo)
    assert errors(result) == PRUNED  # staging's ConfigMap, though production's Kustomization has the same name
    assert result.stats["clusters"] == 2  # one deployment per value: one cluster never holds two of a name


@pytest.mark.parametrize("form", ["bicep", "arm", "terraform", "az"])
def test_a_flux_configuration_whose_path_is_all_variables_is_no_evidence(flux_repo, tmp_path, form):
    apps = {"bicep": "appsPath", "arm": '"[parameters(\'appsPath\')]"', "terraform": "var.apps_path",
            "az": "$APPS_PATH"}[form]
    repo = _repo(flux_repo, _files(form, apps, quote=False))
    assert [e.path for e in _scan(repo, tmp_path) if not e.name.endswith("-infra")] == []


def test_a_flux_configuration_of_another_repository_is_not_judged_and_says_why(flux_repo, guard):
    """Its only cluster syncs another repository: the guard judged nothing and says so (exit 2),
    never a pass."""
    base = _files("az")
    base["scripts/gitops.sh"] = base["scripts/gitops.sh"].replace(URL, "https://github.com/acme/other")
    repo = _repo(flux_repo, base)
    with pytest.raises(UsageError, match="syncs https://github.com/acme/other, not this repository"):
        guard(repo)
    code, out, _ = _cli("guard", "--discover", "--repo", str(repo))
    assert code == 0
    assert "fluxConfiguration cluster-config/cluster-config in scripts/gitops.sh syncs https://github.com/acme/other" in out


def test_discover_names_the_extensions_objects_with_their_evidence(flux_repo):
    code, out, _ = _cli("guard", "--discover", "--repo", str(_repo(flux_repo, _files("bicep", prune=False))),
                        "--format", "json")
    assert code == 0
    top = json.loads(out)
    assert [(c["cluster"], c["form"], c["evidence"], c["path"]) for c in top["clusters"]] == [
        ("bicep/flux-aks-example.bicep#bicep-fluxconfig", "Azure fluxConfiguration (Bicep)",
         "bicep/flux-aks-example.bicep:8: Bicep fluxConfiguration cluster-config/bicep-fluxconfig, Kustomization "
         "bicep-fluxconfig-infra of infrastructure (prune false)", "infrastructure"),
        ("bicep/flux-aks-example.bicep#bicep-fluxconfig", "Azure fluxConfiguration (Bicep)",
         "bicep/flux-aks-example.bicep:8: Bicep fluxConfiguration cluster-config/bicep-fluxconfig, Kustomization "
         "bicep-fluxconfig-apps of apps/production (prune false)", "apps/production")]
    assert [s["source"] for s in top["sources"]] == ["GitRepository/cluster-config/bicep-fluxconfig"]


def test_discover_write_records_a_configuration_once_and_the_guard_reads_it(flux_repo, guard):
    """`--write` names the configuration's cluster by `file#configuration` (one entry for its
    two Kustomizations), and the guard, reading the clusters from the config, still judges it."""
    repo = _repo(flux_repo, _files("az"))
    code, _, err = _cli("guard", "--discover", "--repo", str(repo), "--write", "--head", "base")
    assert code == 0, err
    written = (repo / ".coredns-gen.yaml").read_text()
    assert written.count("root: scripts/gitops.sh#cluster-config") == 1
    assert "  clusters:\n    - name: cluster-config\n      root: scripts/gitops.sh#cluster-config  # Azure" in written
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "confirm the clusters")
    result = guard(repo)
    assert result.coverage.roots_how == "config"
    assert errors(result) == PRUNED


# Altinn/altinn-platform infrastructure/adminservices-test/admin-test-aks-rg/whoami.tf (azapi), abridged
AZAPI = """
    resource "azapi_resource" "whoami" {
      depends_on = [azurerm_kubernetes_cluster_extension.flux_ext]
      type       = "Microsoft.KubernetesConfiguration/fluxConfigurations@2024-11-01"
      name       = "whoami"
      parent_id  = azurerm_kubernetes_cluster.aks.id
      body = {
        properties = {
          kustomizations = {
            whoami = {
              force                  = false
              path                   = "./apps/production"
              prune                  = %(prune)s
              retryIntervalInSeconds = 300
            }
          }
          namespace = "flux-system"
          %(source)s
        }
      }
    }
"""
OCI_SOURCE = """ociRepository = {
            insecure = false
            repositoryRef = {
              tag = var.flux_release_tag
            }
            url                   = "oci://altinncr.azurecr.io/manifests/infra/whoami"
            useWorkloadIdentity   = true
          }
          sourceKind                 = "OCIRepository\""""
GIT_SOURCE = """gitRepository = {
            url = "https://github.com/Azure/gitops-flux2-kustomize-helm-mt"
            repositoryRef = { branch = "main" }
          }
          sourceKind = "GitRepository\""""


def test_an_azapi_flux_configuration_is_read_as_the_arm_resource_it_is(flux_repo, guard):
    """The azapi provider writes the ARM resource itself (here with its source as a Git
    repository, the example's OCI source swapped out): its Kustomization prunes ./apps/production."""
    base = {**_files("az"), "infra/whoami.tf": AZAPI % {"prune": "true", "source": GIT_SOURCE}}
    del base["scripts/gitops.sh"]
    result = guard(_repo(flux_repo, base))
    assert errors(result) == PRUNED
    assert result.stats["clusters"] == 1


def test_an_azapi_flux_configuration_of_an_oci_artifact_is_not_judged_and_says_why(flux_repo):
    base = {**_files("az"), "infra/whoami.tf": AZAPI % {"prune": "false", "source": OCI_SOURCE}}
    del base["scripts/gitops.sh"]
    code, out, _ = _cli("guard", "--discover", "--repo", str(_repo(flux_repo, base)))
    assert code == 0
    assert ("Kustomization flux-system/whoami-whoami [infra/whoami.tf#whoami]: fluxConfiguration "
            "flux-system/whoami in infra/whoami.tf syncs a source of kind OCIRepository, not known to be this "
            "repository") in out


# A public PowerShell script (an aks-baseline-ado fork) running the tutorial's command with
# PowerShell's backtick continuations; its Azure DevOps URL replaced by this repository's.
POWERSHELL = """
    # 1 - Create a new flux repo
    az k8s-configuration flux create --resource-group rg-bu0001a0008 `
    --cluster-name aks-fx7h5e6qdj4sg `
    --name cluster-config `
    --namespace cluster-config `
    --cluster-type managedClusters `
    --scope cluster `
    --url https://github.com/Azure/gitops-flux2-kustomize-helm-mt `
    --branch main `
    --kustomization name=infra path=./infrastructure prune=true `
    --kustomization name=apps path=./apps/production prune=true dependsOn=\\["infra"\\]
"""
# Azure's docs (conceptual-gitops-flux2.md): a kustomization added to a configuration afterwards
KUSTOMIZATION_CREATE = """
    az k8s-configuration flux create -g flux-demo-rg -c flux-demo-arc -n cluster-config \\
      --namespace cluster-config -t connectedClusters --scope cluster \\
      -u https://github.com/Azure/gitops-flux2-kustomize-helm-mt --branch main \\
      --kustomization name=infra path=./infrastructure prune=true
    az k8s-configuration flux kustomization create -g flux-demo-rg -c flux-demo-arc -n cluster-config \\
      -t connectedClusters -k apps --path ./apps/production --prune true --depends-on infra
"""


@pytest.mark.parametrize("script", ["powershell", "kustomization-create"])
def test_an_az_script_in_powershell_or_adding_a_kustomization_names_the_root(flux_repo, guard, tmp_path, script):
    name, text = {"powershell": ("scripts/flux.ps1", POWERSHELL),
                  "kustomization-create": ("scripts/gitops.sh", KUSTOMIZATION_CREATE)}[script]
    base = {**_files("az"), name: text}
    if script == "powershell":
        del base["scripts/gitops.sh"]
    repo = _repo(flux_repo, base)
    evidence = sorted((e.name, e.path, e.prune, e.depends_on) for e in _scan(repo, tmp_path))
    assert evidence == [("cluster-config-apps", "apps/production", True, ("cluster-config-infra",)),
                        ("cluster-config-infra", "infrastructure", True, ())]
    assert errors(guard(repo)) == PRUNED


# Azure/bicep-registry-modules avm/res/kubernetes-configuration/flux-configuration tests/e2e/defaults,
# as a consumer writes it (the registry reference of its README), with kustomizations
AVM = """
    module fluxConfiguration 'br/public:avm/res/kubernetes-configuration/flux-configuration:0.3.3' = {
      name: '${uniqueString(deployment().name, location)}-flux'
      params: {
        name: 'kcfcmin001'
        clusterName: aks.name
        namespace: 'flux-system'
        scope: 'cluster'
        sourceKind: 'GitRepository'
        gitRepository: {
          repositoryRef: {
            branch: 'main'
          }
          syncIntervalInSeconds: 300
          url: 'https://github.com/Azure/gitops-flux2-kustomize-helm-mt'
        }
        kustomizations: {
          apps: {
            path: './apps/production'
            prune: true
          }
        }
      }
    }
"""


def test_the_verified_modules_flux_configuration_in_bicep_is_a_root(flux_repo, guard, tmp_path):
    base = {**_files("az"), "infra/flux.bicep": AVM}
    del base["scripts/gitops.sh"]
    repo = _repo(flux_repo, base)
    assert [(e.namespace, e.name, e.path) for e in _scan(repo, tmp_path)] == [
        ("flux-system", "kcfcmin001-apps", "apps/production")]
    assert errors(guard(repo)) == PRUNED


WORKFLOW = """
    name: gitops
    on: push
    jobs:
      flux:
        runs-on: ubuntu-latest
        steps:
          - run: |
              az k8s-configuration flux create -g $RG -c $CLUSTER -n cluster-config \\\\
                --namespace cluster-config -t managedClusters --scope cluster \\\\
                -u %(url)s --branch main \\\\
                --kustomization name=apps path=./apps/production prune=true
"""


@pytest.mark.parametrize("url", ["${{ github.server_url }}/${{ github.repository }}", "$REPO_URL"])
def test_an_az_url_written_as_a_variable_is_this_repository_only_when_ci_names_its_own(flux_repo, guard, url):
    """`${{ github.repository }}` is the repository the workflow runs in; any other variable is
    not known, and its cluster is not judged (here the only one: the guard says it judged nothing)."""
    base = {**_files("az"), ".github/workflows/gitops.yaml": WORKFLOW % {"url": url}}
    del base["scripts/gitops.sh"]
    repo = _repo(flux_repo, base)
    if url.startswith("$REPO"):
        with pytest.raises(UsageError, match=r"syncs a URL written as a variable \(\$REPO_URL\)"):
            guard(repo)
        return
    result = guard(repo)
    assert errors(result) == PRUNED
    assert any("the repository whose CI runs .github/workflows/gitops.yaml" in why for why in result.coverage.identity)


@pytest.mark.parametrize(("form", "written"), [("bicep", "\n        prune: pruneEnabled"),
                                               ("terraform", "\n    garbage_collection_enabled = var.prune")])
def test_a_flux_configuration_prune_written_as_a_parameter_is_judged_as_pruning(flux_repo, guard, form, written):
    """A `prune` the file writes as a parameter may be true: what cannot be told is not passed.
    It was read as the writer's default, false, so the dropped ConfigMap passed as orphaned."""
    name, text = FILES[form]
    base = {**_files(form, prune=False), name: text % {"apps": _quoted(form, "./apps/production"), "prune": written}}
    assert "configmap-pruned" in {rule for rule, _ in errors(guard(_repo(flux_repo, base)))}


@pytest.mark.parametrize("name,text", [
    ("infra/deep.json", '{"type": "Microsoft.KubernetesConfiguration/fluxConfigurations", "x": '
                        + "[" * 100_000 + "]" * 100_000 + "} flux"),
    ("infra/deep.bicep", "resource fc 'Microsoft.KubernetesConfiguration/fluxConfigurations@2023-05-01' = "
                         + "{ a: " * 20_000 + "1" + " }" * 20_000 + "\n// flux\n"),
], ids=["arm", "bicep"])
def test_a_template_nested_past_the_readers_is_bad_input(tmp_path, name, text):
    """The ARM reader (the JSON decoder) and the Bicep reader raised RecursionError: exit 4."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "infra").mkdir()
    (root / name).write_text(text)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "deep")
    commit = git(root, "rev-parse", "HEAD").strip()
    with pytest.raises(UsageError) as err:
        bootstraps.scan(load_tree(root, commit, tmp_path / "tree"))
    assert name in str(err.value) and "nested too deep" in str(err.value)
