"""helmrelease-pruned: a HelmRelease Flux prunes is a `helm uninstall` of the whole release."""

from __future__ import annotations

import pytest

from gen.finding import blocking
from tests.guard.conftest import flux_ks, kustomization, summary

HR_ID = "apps_podinfo_helm.toolkit.fluxcd.io_HelmRelease"


def helmrelease(version: str = "v2", suspend: bool = False) -> str:
    return f"""
        apiVersion: helm.toolkit.fluxcd.io/{version}
        kind: HelmRelease
        metadata:
          name: podinfo
          namespace: apps
        spec:
          interval: 10m{chr(10) + '          suspend: true' if suspend else ''}
          chart:
            spec:
              chart: podinfo
              sourceRef:
                kind: HelmRepository
                name: podinfo
    """


def _base(version: str = "v2", suspend: bool = False) -> dict[str, str]:
    return {"clusters/prod/apps.yaml": flux_ks("apps", "./apps"),
            "apps/kustomization.yaml": kustomization("podinfo.yaml"),
            "apps/podinfo.yaml": helmrelease(version, suspend)}


@pytest.mark.parametrize("version", ["v2", "v2beta2", "v2beta1"])
def test_dropped_helmrelease_is_refused_as_an_uninstall(flux_repo, guard, version):
    root = flux_repo(_base(version), {"apps/kustomization.yaml": kustomization()})
    findings = guard(root).findings
    hr_id = HR_ID
    assert summary(findings) == [("helmrelease-pruned", "error", "apps/kustomization.yaml", 3, hr_id)]
    assert "uninstalls release apps/podinfo" in findings[0].message
    assert "ConfigMaps included" in findings[0].message
    assert blocking(findings)


def test_kept_helmrelease_passes(flux_repo, guard):
    root = flux_repo(_base(), {"apps/podinfo.yaml": helmrelease().replace("10m", "5m")})
    assert guard(root).findings == []


def test_kustomization_leaving_git_uninstalls_its_helmreleases(flux_repo, guard):
    root = flux_repo(_base(), {"clusters/prod/apps.yaml": None})
    rules = [(f.rule, f.severity.value, f.details.get("object")) for f in guard(root).findings]
    assert ("helmrelease-pruned", "error", HR_ID) in rules
    assert not any(r[0] == "object-pruned" and r[2] == HR_ID for r in rules)  # one finding, not two


def test_suspended_helmrelease_is_not_uninstalled_warning(flux_repo, guard):
    root = flux_repo(_base(suspend=True), {"apps/kustomization.yaml": kustomization()})
    findings = guard(root).findings
    assert [(f.rule, f.severity.value) for f in findings] == [("helmrelease-pruned", "warning")]
    assert "suspended" in findings[0].message and not blocking(findings)


def test_helmrelease_removal_can_be_allowed(flux_repo, guard):
    root = flux_repo(_base(), {"apps/kustomization.yaml": kustomization()})
    findings = guard(root, allow=(HR_ID,)).findings
    assert [(f.rule, f.severity.value) for f in findings] == [("helmrelease-pruned", "allowed")]
    assert not blocking(findings)


def test_prune_false_only_orphans_the_helmrelease(flux_repo, guard):
    base = {**_base(), "clusters/prod/apps.yaml": flux_ks("apps", "./apps", prune=False)}
    root = flux_repo(base, {"apps/kustomization.yaml": kustomization()})
    assert [(f.rule, f.severity.value) for f in guard(root).findings] == [("object-orphaned", "warning")]
