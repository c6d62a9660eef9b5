"""The Azure Flux configuration readers (gen/guard/flux/fluxconfigs.py) held against whole real
files (tests/data/azure-flux/SOURCES.md), not only the examples written here: what each file
makes the Flux extension create, read in process, in milliseconds."""

from __future__ import annotations

from pathlib import Path

from gen.guard.flux.fluxconfigs import VAR, FluxConfig, FluxKustomization, arm_configs, bicep_configs, terraform_configs

DATA = Path(__file__).resolve().parents[1] / "data" / "azure-flux"


def test_the_aks_baseline_reference_cluster_bootstraps_one_branch_of_a_repository_it_is_given() -> None:
    """mspnp/aks-baseline's cluster stamp (1,300 lines of Bicep: network, identities, policies, the
    cluster) makes one fluxConfiguration: its URL and branch are parameters, `tag`, `semver` and
    `commit` are written `null` (not set: a branch is tracked), one pruning Kustomization."""
    found = bicep_configs((DATA / "mspnp-aks-baseline-cluster-stamp.bicep").read_text())
    assert found == [FluxConfig(
        tool="bicep", line=1142, name="bootstrap", namespace="flux-system", kind="GitRepository", url=VAR,
        ref=(("branch", VAR),),
        kustomizations=(FluxKustomization(name="unified", path="./cluster-manifests", prune=True),))]


def test_the_verified_module_itself_is_no_configuration_in_bicep_or_compiled_to_arm() -> None:
    """The Azure Verified Module's own source and its compiled ARM template (languageVersion 2.0,
    symbolic resources) write every property as a parameter: they declare how a configuration is
    made, not one. Neither file is read as a configuration (its callers are: the registry
    reference, tests/guard/test_azure_flux.py)."""
    assert bicep_configs((DATA / "avm-flux-configuration-main.bicep").read_text()) == []
    assert arm_configs((DATA / "avm-flux-configuration-main.json").read_text()) == []


def test_null_is_a_property_not_written_in_arm_and_terraform_too() -> None:
    """ARM leaves a null property out of the request, and the azurerm provider takes its default
    for an attribute set to null: no `tag` to track, a Kustomization at the repository's root that
    does not prune (garbage_collection_enabled's default)."""
    arm = """{"resources": [{"type": "Microsoft.KubernetesConfiguration/fluxConfigurations",
      "name": "cfg", "properties": {"namespace": "flux-system", "gitRepository":
      {"url": "https://github.com/o/r", "repositoryRef": {"branch": "main", "tag": null}},
      "kustomizations": {"apps": {"path": "./apps", "prune": null}}}}]}"""
    (config,) = arm_configs(arm)
    assert (config.ref, config.kustomizations) == ((("branch", "main"),), (FluxKustomization("apps", "./apps", False),))
    hcl = """resource "azurerm_kubernetes_flux_configuration" "x" {
      name      = "cfg"
      namespace = "flux-system"
      git_repository {
        url             = "https://github.com/o/r"
        reference_type  = "branch"
        reference_value = "main"
      }
      kustomizations {
        name                       = "apps"
        path                       = null
        garbage_collection_enabled = null
      }
    }"""
    (config,) = terraform_configs(hcl)
    assert config.kustomizations == (FluxKustomization("apps", "", False),)
