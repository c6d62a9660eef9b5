"""helm-chart-not-judged for a HelmRelease whose chart comes through `spec.chartRef` (HelmRelease v2:
kind OCIRepository | HelmChart | ExternalArtifact, name, namespace), each in a real git repository.

A chart whose content is this repository's is refused when the change touches it, as a
`spec.chart.spec` GitRepository chart is; a chart from elsewhere (a registry, a HelmRepository)
is a remote chart, as before.
"""

from __future__ import annotations

import pytest

from tests.guard.conftest import by_rule, flux_ks, kustomization

CHART = {
    "charts/dns-extras/Chart.yaml": "apiVersion: v2\nname: dns-extras\nversion: 0.1.0\n",
    "charts/dns-extras/templates/coredns-custom.yaml": (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: coredns-custom\n  namespace: kube-system\n"
        "data:\n  log.override: log\n"),
    "docs/notes.md": "a\n",
}
DROP_TEMPLATE = {"charts/dns-extras/Chart.yaml": "apiVersion: v2\nname: dns-extras\nversion: 0.2.0\n",
                 "charts/dns-extras/templates/coredns-custom.yaml": None}


def _release(kind: str, name: str = "dns-extras", namespace: str = "") -> str:
    where = f", namespace: {namespace}" if namespace else ""
    return f"""
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata: {{name: dns-extras, namespace: kube-system}}
        spec:
          interval: 10m
          chartRef: {{kind: {kind}, name: {name}{where}}}
    """


def _apps(*docs: str) -> dict[str, str]:
    return {"clusters/prod/apps.yaml": flux_ks("apps", "./apps"),
            "apps/kustomization.yaml": kustomization(*[f"doc-{i}.yaml" for i in range(len(docs))]),
            **{f"apps/doc-{i}.yaml": doc for i, doc in enumerate(docs)}}


OCI = """
    apiVersion: source.toolkit.fluxcd.io/v1
    kind: OCIRepository
    metadata: {name: dns-extras, namespace: kube-system}
    spec:
      interval: 10m
      url: oci://ghcr.io/acme/charts/dns-extras
      ref: {tag: latest}
"""
PUSH = {".github/workflows/chart.yaml": """
    on: push
    jobs:
      push:
        runs-on: ubuntu-latest
        steps:
          - run: flux push artifact oci://ghcr.io/acme/charts/dns-extras:$(git rev-parse --short HEAD) --path=./charts/dns-extras --source=x --revision=y
"""}
GIT_HELMCHART = """
    apiVersion: source.toolkit.fluxcd.io/v1
    kind: HelmChart
    metadata: {name: dns-extras, namespace: flux-system}
    spec:
      interval: 10m
      chart: ./charts/dns-extras
      reconcileStrategy: Revision
      sourceRef: {kind: GitRepository, name: flux-system}
"""
REPO_HELMCHART = """
    apiVersion: source.toolkit.fluxcd.io/v1
    kind: HelmChart
    metadata: {name: dns-extras, namespace: flux-system}
    spec:
      interval: 10m
      chart: dns-extras
      version: "0.x"
      sourceRef: {kind: HelmRepository, name: acme}
"""
GENERATOR = """
    apiVersion: source.extensions.fluxcd.io/v1beta1
    kind: ArtifactGenerator
    metadata: {name: charts, namespace: kube-system}
    spec:
      sources:
        - {alias: repo, kind: GitRepository, name: flux-system, namespace: flux-system}
      artifacts:
        - name: dns-extras
          copy:
            - {from: "@repo/charts/dns-extras/**", to: "@artifact/"}
"""


MIXED_GENERATOR = """
    apiVersion: source.toolkit.fluxcd.io/v1
    kind: GitRepository
    metadata: {name: upstream, namespace: kube-system}
    spec: {interval: 1m, url: https://example.invalid/upstream-charts, ref: {branch: main}}
    ---
    apiVersion: source.extensions.fluxcd.io/v1beta1
    kind: ArtifactGenerator
    metadata: {name: charts, namespace: kube-system}
    spec:
      sources:
        - {alias: upstream, kind: GitRepository, name: upstream}
        - {alias: repo, kind: GitRepository, name: flux-system, namespace: flux-system}
      artifacts:
        - name: dns-extras
          copy:
            - {from: "@upstream/charts/base/**", to: "@artifact/"}
            - {from: "@repo/charts/dns-extras/**", to: "@artifact/"}
"""


def _refused(result: object) -> list[tuple[str, str]]:
    return [(f.file, f.details["chart"]) for f in by_rule(result.findings, "helm-chart-not-judged")]  # type: ignore[attr-defined]


@pytest.mark.parametrize(("files", "via"), [
    ({**_apps(_release("OCIRepository"), OCI), **PUSH}, "OCIRepository kube-system/dns-extras"),
    ({**_apps(_release("OCIRepository"), OCI),
      ".coredns-gen.yaml": "guard:\n  sources:\n    - source: OCIRepository/kube-system/dns-extras\n"
                           "      path: charts/dns-extras/\n"}, "OCIRepository kube-system/dns-extras"),
    (_apps(_release("ExternalArtifact"), GENERATOR), "ExternalArtifact kube-system/dns-extras"),
    # files of another repository beside this one's: this one's are still in the chart
    (_apps(_release("ExternalArtifact"), MIXED_GENERATOR), "ExternalArtifact kube-system/dns-extras"),
], ids=["oci-pushed-by-ci", "oci-in-guard-sources", "external-artifact",
        "external-artifact-with-another-source"])
def test_a_chart_ref_whose_chart_is_this_repository_is_refused_when_touched(flux_repo, guard, files, via):
    """Before, only `spec.chart.spec.sourceRef` was read: each of these passed with 0 findings."""
    result = guard(flux_repo({**CHART, **files}, DROP_TEMPLATE))
    assert _refused(result) == [("charts/dns-extras/Chart.yaml", via)]
    [finding] = by_rule(result.findings, "helm-chart-not-judged")
    assert finding.severity.value == "error" and "touches 2 files of it" in finding.message
    assert "--allow kube-system_dns-extras_helm.toolkit.fluxcd.io_HelmRelease" in finding.hint


def test_a_helmchart_of_this_repository_is_rendered_and_its_deletion_named(flux_repo, guard):
    """A chartRef HelmChart of a folder of this repository was refused wholesale as not judged; the
    Helm layer renders both revisions and names what the upgrade deletes."""
    files = _apps(_release("HelmChart", namespace="flux-system"), GIT_HELMCHART)
    result = guard(flux_repo({**CHART, **files}, DROP_TEMPLATE))
    assert not _refused(result)
    found = by_rule(result.findings, "helm-upgrade-deletes")
    assert [f.details["object"] for f in found] == ["kube-system_coredns-custom__ConfigMap"]


@pytest.mark.parametrize("files", [
    _apps(_release("OCIRepository"), OCI),  # no CI pushes it, no guard.sources maps it: a registry's chart
    _apps(_release("HelmChart", namespace="flux-system"), REPO_HELMCHART),
    _apps(_release("HelmChart", name="made-elsewhere")),
], ids=["oci-of-unknown-origin", "helmchart-of-a-helmrepository", "helmchart-not-in-the-repository"])
def test_a_chart_ref_from_elsewhere_is_a_remote_chart(flux_repo, guard, files):
    result = guard(flux_repo({**CHART, **files}, DROP_TEMPLATE))
    assert _refused(result) == []


def test_a_change_beside_a_chart_ref_chart_passes(flux_repo, guard):
    result = guard(flux_repo({**CHART, **_apps(_release("OCIRepository"), OCI), **PUSH}, {"docs/notes.md": "b\n"}))
    assert _refused(result) == []
