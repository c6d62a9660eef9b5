"""`--allow ks:<namespace>/<name>` and `--allow cluster:<root file>`: whole removals."""

from __future__ import annotations

import pytest

from gen.errors import UsageError
from gen.finding import blocking
from tests.guard.conftest import FLUX_SYSTEM, configmap, flux_ks, hpa, kustomization

STAGING = {path.replace("clusters/prod", "clusters/staging"): text.replace("./clusters/prod", "./clusters/staging")
           for path, text in FLUX_SYSTEM.items()}
STAGING_ROOT = "clusters/staging/flux-system/gotk-sync.yaml"
FLEET = {
    **STAGING,
    "clusters/prod/dns.yaml": flux_ks("dns", "./dns"),
    "clusters/staging/dns.yaml": flux_ks("dns", "./dns"),
    "dns/kustomization.yaml": kustomization("custom.yaml"),
    "dns/custom.yaml": configmap("coredns-custom"),
}


def _severities(findings):
    return sorted({(f.rule, f.severity.value) for f in findings})


def test_decommissioned_cluster_is_refused(flux_repo, guard):
    root = flux_repo(FLEET, {"clusters/staging": None})
    findings = guard(root).findings
    assert blocking(findings)
    assert all(f.details["cluster"] == STAGING_ROOT for f in findings)


@pytest.mark.parametrize("entry", [f"cluster:{STAGING_ROOT}", "cluster:clusters/staging/*"])
def test_decommissioned_cluster_passes_when_allowed(flux_repo, guard, entry):
    root = flux_repo(FLEET, {"clusters/staging": None})
    findings = guard(root, allow=(entry,)).findings
    assert findings and not blocking(findings)
    assert {f.severity.value for f in findings} == {"allowed"}
    assert all(entry in f.message for f in findings)


def test_cluster_allow_in_the_repository_config(flux_repo, guard):
    root = flux_repo(FLEET, {"clusters/staging": None,
                             ".coredns-gen.yaml": f"guard:\n  allow:\n    - cluster:{STAGING_ROOT}\n"})
    assert not blocking(guard(root).findings)


def test_cluster_allow_does_not_cover_another_cluster(flux_repo, guard):
    root = flux_repo(FLEET, {"clusters/staging": None, "dns/kustomization.yaml": kustomization()})
    findings = guard(root, allow=(f"cluster:{STAGING_ROOT}",)).findings
    refused = [f for f in findings if f.severity.value == "error"]
    assert [(f.rule, f.details["cluster"]) for f in refused] == [
        ("configmap-pruned", "clusters/prod/flux-system/gotk-sync.yaml")]


def test_ks_allow_covers_every_prune_of_that_kustomization(flux_repo, guard):
    base = {"clusters/prod/dns.yaml": flux_ks("dns", "./dns"), "dns/kustomization.yaml": kustomization("a.yaml", "b.yaml"),
            "dns/a.yaml": configmap("a", namespace="default"), "dns/b.yaml": configmap("b", namespace="default")}
    root = flux_repo(base, {"clusters/prod/dns.yaml": None})
    assert blocking(guard(root).findings)
    findings = guard(root, allow=("ks:flux-system/dns",)).findings
    assert sorted((f.rule, f.severity.value) for f in findings) == [
        ("configmap-pruned", "allowed"), ("configmap-pruned", "allowed"),
        ("object-pruned", "warning")]  # the Kustomization object itself, a warning of flux-system's


def test_ks_allow_covers_a_build_failure(flux_repo, guard):
    base = {"clusters/prod/dns.yaml": flux_ks("dns", "./dns"), "dns/custom.yaml": configmap("coredns-custom")}
    root = flux_repo(base, {"dns": None})
    assert [f.severity.value for f in guard(root).findings] == ["error"]
    assert [(f.rule, f.severity.value) for f in guard(root, allow=("ks:flux-system/dns",)).findings] == [
        ("build-failed", "allowed")]


def test_ks_allow_does_not_waive_an_invariant(flux_repo, guard):
    base = {"clusters/prod/dns.yaml": flux_ks("dns", "./dns"), "dns/hpa.yaml": hpa(2)}
    root = flux_repo(base, {"dns/hpa.yaml": hpa(1)})
    findings = guard(root, allow=("ks:flux-system/dns", "cluster:*")).findings
    assert [(f.rule, f.severity.value) for f in findings] == [("k3s-hpa-min-replicas", "error")]


@pytest.mark.parametrize("entry", ["ks:dns", "ks:/dns", "cluster:", "cluster:/etc/x", "cluster:../x", "kind:Foo"])
def test_malformed_scoped_entries_are_bad_input(flux_repo, guard, entry):
    root = flux_repo(FLEET, {})
    with pytest.raises(UsageError) as err:
        guard(root, allow=(entry,))
    assert "--allow" in str(err.value) and entry in str(err.value)


def test_malformed_config_entry_names_file_key_and_line(flux_repo, guard):
    config = "guard:\n  allow:\n    - kube-system_x__ConfigMap\n    - ks:only-a-name\n"
    root = flux_repo({**FLEET, ".coredns-gen.yaml": config}, {})
    with pytest.raises(UsageError) as err:
        guard(root)
    assert str(err.value).startswith(".coredns-gen.yaml:4:7: guard.allow[1]: 'ks:only-a-name' is not ks:<namespace>/<name>")
