"""The Helm layer on charts kept in this repository: rendered by Helm's own library at both revisions.

Each test is a real git repository with a Flux bootstrap, a Kustomization applying a HelmRelease
whose chart is a folder of the repository (spec.chart.spec of the bootstrap GitRepository), and a
change; the guard renders the release at base and head through coredns-gen-helper.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from gen.guard import GuardResult
from tests.guard.conftest import by_rule, flux_ks, kustomization

CHART = {
    "charts/app/Chart.yaml": "apiVersion: v2\nname: app\nversion: 1.0.0\n",
    "charts/app/values.yaml": "configMaps:\n  config:\n    enabled: true\n    data: {a: '1'}\nhost: example.org\nnameSuffix: ''\n",
    "charts/app/templates/configmaps.yaml": """
        {{- range $name, $cm := .Values.configMaps }}
        {{- if $cm.enabled }}
        ---
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: {{ $.Release.Name }}-{{ $name }}
          {{- with $cm.annotations }}
          annotations: {{ toYaml . | nindent 4 }}
          {{- end }}
        data: {{ toYaml $cm.data | nindent 2 }}
        {{- end }}
        {{- end }}
    """,
    "charts/app/templates/service.yaml": """
        apiVersion: v1
        kind: Service
        metadata:
          name: {{ .Release.Name }}{{ .Values.nameSuffix }}
          labels: {host: {{ .Values.host | quote }}}
        spec:
          ports: [{port: 80}]
    """,
}


def release(values: str = "", extra: str = "") -> str:
    body = "".join(f"            {line}\n" for line in values.splitlines())
    more = "".join(f"          {line}\n" for line in extra.splitlines())
    return f"""
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata:
          name: qbittorrent
          namespace: media
        spec:
          interval: 1h
          chart:
            spec:
              chart: ./charts/app
              sourceRef:
                kind: GitRepository
                name: flux-system
                namespace: flux-system
          values:
{body or '            {}'}
""" + more


def layout(values: str = "", extra: str = "") -> dict[str, str]:
    return {
        "clusters/prod/kustomization.yaml": kustomization("apps.yaml"),
        "clusters/prod/apps.yaml": flux_ks("apps", "./apps"),
        "apps/kustomization.yaml": kustomization("release.yaml"),
        "apps/release.yaml": release(values, extra),
        **CHART,
    }


def test_values_dropping_a_configmap_is_refused(flux_repo: Callable[..., Path], guard: Callable[..., GuardResult]) -> None:
    """onedr0p/home-ops 15ed4ffaa4's shape: the values turn a chart's ConfigMap off; the upgrade deletes it."""
    root = flux_repo(layout(), {"apps/release.yaml": release("configMaps:\n  config:\n    enabled: false")})
    result = guard(root)
    found = by_rule(result.findings, "helm-upgrade-deletes")
    assert [f.details["object"] for f in found] == ["media_qbittorrent-config__ConfigMap"], result.findings
    assert found[0].severity.value == "error" and found[0].file == "apps/release.yaml"
    assert "values at configMaps" in found[0].message


def test_an_image_bump_deletes_nothing(flux_repo: Callable[..., Path], guard: Callable[..., GuardResult]) -> None:
    root = flux_repo(layout("host: a.example.org"), {"apps/release.yaml": release("host: b.example.org")})
    result = guard(root)
    assert not [f for f in result.findings if f.severity.value == "error"], result.findings


def test_a_chart_file_change_is_rendered_not_refused_wholesale(flux_repo: Callable[..., Path],
                                                             guard: Callable[..., GuardResult]) -> None:
    """A change to the chart's folder used to be refused as not judged (helm-chart-not-judged);
    rendered, a harmless edit passes and a removal is named."""
    harmless = flux_repo(layout(), {"charts/app/values.yaml": CHART["charts/app/values.yaml"].replace("example.org", "x.org")})
    result = guard(harmless)
    assert not [f for f in result.findings if f.severity.value == "error"], result.findings


def test_keep_policy_spares_the_configmap(flux_repo: Callable[..., Path], guard: Callable[..., GuardResult]) -> None:
    keep = "configMaps:\n  config:\n    annotations: {helm.sh/resource-policy: keep}"
    root = flux_repo(layout(keep), {"apps/release.yaml": release("configMaps:\n  config:\n    enabled: false")})
    assert not by_rule(guard(root).findings, "helm-upgrade-deletes")


def test_a_post_renderer_deleting_a_configmap_is_refused(flux_repo: Callable[..., Path],
                                                        guard: Callable[..., GuardResult]) -> None:
    patch = """postRenderers:
  - kustomize:
      patches:
        - target: {kind: ConfigMap}
          patch: |
            $patch: delete
            apiVersion: v1
            kind: ConfigMap
            metadata: {name: any}
"""
    root = flux_repo(layout(), {"apps/release.yaml": release("", patch)})
    found = by_rule(guard(root).findings, "helm-upgrade-deletes")
    assert [f.details["object"] for f in found] == ["media_qbittorrent-config__ConfigMap"]


def test_a_configmap_moving_from_helm_to_a_kustomization_is_refused(flux_repo: Callable[..., Path],
                                                                   guard: Callable[..., GuardResult]) -> None:
    """bjw-s-labs/home-ops 6deef21d0a's shape: the ConfigMap leaves the values for a Kustomization
    of the same folder; Helm deletes its copy whenever it upgrades."""
    head_kustomization = kustomization("release.yaml", "cm.yaml")
    cm = """
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: qbittorrent-config
          namespace: media
        data: {a: '1'}
    """
    root = flux_repo(layout(), {"apps/release.yaml": release("configMaps:\n  config:\n    enabled: false"),
                                "apps/kustomization.yaml": head_kustomization, "apps/cm.yaml": cm})
    found = by_rule(guard(root).findings, "helm-upgrade-deletes")
    assert len(found) == 1 and "both own it" in found[0].message


def test_an_unreadable_value_that_feeds_only_data_is_judged(flux_repo: Callable[..., Path],
                                                            guard: Callable[..., GuardResult]) -> None:
    """A valuesFrom Secret the repository does not hold, used through targetPath for a label: both
    placeholder renders name the same objects, so the change is judged (and passes)."""
    ref = "valuesFrom:\n  - kind: Secret\n    name: app-secret\n    valuesKey: host\n    targetPath: host\n"
    root = flux_repo(layout("", ref), {"apps/release.yaml": release("configMaps:\n  other:\n    enabled: true\n    data: {b: '2'}", ref)})
    result = guard(root)
    assert not by_rule(result.findings, "helm-release-not-judged"), result.findings
    assert not by_rule(result.findings, "helm-upgrade-deletes")


def test_an_unreadable_value_that_names_objects_is_not_judged(flux_repo: Callable[..., Path],
                                                              guard: Callable[..., GuardResult]) -> None:
    ref = "valuesFrom:\n  - kind: Secret\n    name: app-secret\n    valuesKey: suffix\n    targetPath: nameSuffix\n"
    root = flux_repo(layout("", ref), {"apps/release.yaml": release("host: other.org", ref)})
    found = by_rule(guard(root).findings, "helm-release-not-judged")
    assert len(found) == 1 and "Secret media/app-secret" in found[0].message


def test_a_chart_folder_change_is_judged_with_an_index(tmp_path: Path, git_bin: str) -> None:
    """With the index of an earlier run (which says what each cluster's builds read), a change to a
    chart folder no build reads still reaches the release: the index run says what a run without
    cache says."""
    from gen.guard import GuardOptions, run_guard
    from tests.guard.conftest import FLUX_SYSTEM
    from tests.helpers import build_tree, git

    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    build_tree(root, {**FLUX_SYSTEM, **layout()})
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    git(root, "tag", "base")
    for name, edits in (("other", {"README.md": "x\n"}),
                        ("head", {"charts/app/templates/configmaps.yaml": "# gone\n"})):
        git(root, "checkout", "-q", "-b", name, "base")
        build_tree(root, edits)
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", name)
    cache = tmp_path / "cache"
    run_guard(GuardOptions(repo=root, base="base", head="other", cache_dir=cache))
    with_index = run_guard(GuardOptions(repo=root, base="base", head="head", cache_dir=cache))
    whole = run_guard(GuardOptions(repo=root, base="base", head="head", cache_dir=None))
    assert [f.details["object"] for f in by_rule(whole.findings, "helm-upgrade-deletes")] == \
        ["media_qbittorrent-config__ConfigMap"]
    assert [(f.rule, f.message) for f in with_index.findings] == [(f.rule, f.message) for f in whole.findings]


def test_a_runaway_template_is_stopped_and_refused(flux_repo: Callable[..., Path], guard: Callable[..., GuardResult],
                                                   monkeypatch) -> None:
    """A chart in a pull request whose template loops for ever must not hang the gate: the render is
    stopped at COREDNS_GEN_HELM_TIMEOUT and the release refused as not judged."""
    monkeypatch.setenv("COREDNS_GEN_HELM_TIMEOUT", "3")
    spin = "{{- range until 100000 }}{{- range until 100000 }}{{- end }}{{- end }}\n"
    root = flux_repo(layout(), {"charts/app/templates/spin.yaml": spin})
    [found] = by_rule(guard(root).findings, "helm-release-not-judged")
    assert "ran too long" in found.message


def test_a_suspended_release_warns_and_an_unapplied_one_passes(flux_repo: Callable[..., Path],
                                                               guard: Callable[..., GuardResult]) -> None:
    """Suspended at head, helm-controller upgrades once it is resumed: a warning. Marked
    `reconcile: disabled`, kustomize-controller never applies the new spec: nothing to judge."""
    drop = "configMaps:\n  config:\n    enabled: false"
    suspended = release(drop, "suspend: true\n")
    found = by_rule(guard(flux_repo(layout(), {"apps/release.yaml": suspended})).findings, "helm-upgrade-deletes")
    assert [(f.severity.value, "once it is resumed" in f.message) for f in found] == [("warning", True)]


def test_a_release_kustomize_controller_does_not_update_is_not_judged(flux_repo: Callable[..., Path],
                                                                      guard: Callable[..., GuardResult]) -> None:
    marked = release("configMaps:\n  config:\n    enabled: false").replace(
        "namespace: media\n", "namespace: media\n          annotations: {kustomize.toolkit.fluxcd.io/reconcile: disabled}\n", 1)
    assert not by_rule(guard(flux_repo(layout(), {"apps/release.yaml": marked})).findings, "helm-upgrade-deletes")


def test_a_values_from_configmap_edit_that_drops_a_configmap_is_refused(flux_repo: Callable[..., Path],
                                                                       guard: Callable[..., GuardResult]) -> None:
    """The values come from a ConfigMap the same build applies (valuesFrom): its edit is the upgrade's
    input like spec.values (passed before with no note)."""
    ref = "valuesFrom:\n  - kind: ConfigMap\n    name: qbittorrent-values\n"

    def values_cm(enabled: str) -> str:
        return f"""
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: qbittorrent-values
          namespace: media
        data:
          values.yaml: |
            configMaps:
              config:
                enabled: {enabled}
    """
    files = {**layout("", ref), "apps/kustomization.yaml": kustomization("release.yaml", "values.yaml"),
             "apps/values.yaml": values_cm("true")}
    root = flux_repo(files, {"apps/values.yaml": values_cm("false")})
    found = by_rule(guard(root).findings, "helm-upgrade-deletes")
    assert [f.details["object"] for f in found] == ["media_qbittorrent-config__ConfigMap"]
    assert "valuesFrom" in found[0].message


def test_damaged_kept_renders_are_misses_with_the_same_verdict(flux_repo: Callable[..., Path], tmp_path: Path) -> None:
    """A kept render is sealed like every cache entry: one byte flipped (or the entry swapped for
    another's) and the run renders again, says the cache did not verify, and gives the same verdict."""
    from gen.guard import GuardOptions, run_guard

    root = flux_repo(layout(), {"apps/release.yaml": release("configMaps:\n  config:\n    enabled: false")})
    cache = tmp_path / "cache"
    first = run_guard(GuardOptions(repo=root, base="base", head="HEAD", cache_dir=cache))
    kept = sorted((cache / "helm").iterdir())
    assert len(kept) == 2
    data = bytearray(kept[0].read_bytes())
    data[len(data) // 2] ^= 0x01
    kept[0].write_bytes(bytes(data))
    kept[1].write_bytes(kept[0].read_bytes())  # another key's entry in its place
    again = run_guard(GuardOptions(repo=root, base="base", head="HEAD", cache_dir=cache))
    assert [(f.rule, f.message) for f in again.findings] == [(f.rule, f.message) for f in first.findings]
    assert any("did not verify" in note for note in again.notes), again.notes


def test_a_namespace_the_upgrade_deletes_is_refused_with_what_it_holds(flux_repo: Callable[..., Path],
                                                                       guard: Callable[..., GuardResult]) -> None:
    """A chart that makes its release's Namespace (`namespace.create`): turning it off makes Helm's
    upgrade delete the Namespace, and Kubernetes every ConfigMap and HelmRelease in it (passed
    before as a warning about a Namespace)."""
    namespace = "{{- if .Values.createNamespace }}\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: {{ .Release.Namespace }}\n{{- end }}\n"
    files = {**layout("createNamespace: true"), "charts/app/templates/namespace.yaml": namespace}
    root = flux_repo(files, {"apps/release.yaml": release("createNamespace: false")})
    found = by_rule(guard(root).findings, "helm-upgrade-deletes")
    assert [(f.details["object"], f.severity.value) for f in found] == [("_media__Namespace", "error")], found
    assert "media/qbittorrent-config" in found[0].message and "HelmRelease media/qbittorrent" in found[0].message



def test_a_configmap_behind_an_api_version_check_is_judged(flux_repo: Callable[..., Path],
                                                           guard: Callable[..., GuardResult]) -> None:
    """A chart's ConfigMap made only where the cluster serves an API (`.Capabilities.APIVersions.Has`,
    kube-prometheus-stack's dashboards' shape): Helm's default capabilities hold no such API, so
    the base render lacked it and turning it off passed; the cluster that serves it loses it."""
    gated = ("{{- if and .Values.dashboards (.Capabilities.APIVersions.Has \"monitoring.coreos.com/v1\") }}\n"
             "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-dashboards\ndata: {a: '1'}\n"
             "{{- end }}\n")
    files = {**layout("dashboards: true"), "charts/app/templates/dashboards.yaml": gated}
    root = flux_repo(files, {"apps/release.yaml": release("dashboards: false")})
    found = by_rule(guard(root).findings, "helm-upgrade-deletes")
    assert [f.details["object"] for f in found] == ["media_qbittorrent-dashboards__ConfigMap"], found


def test_a_file_dependency_beside_the_chart_is_rendered_and_judged(flux_repo: Callable[..., Path],
                                                                    guard: Callable[..., GuardResult]) -> None:
    """A chart whose Chart.yaml depends on a chart beside it (`repository: file://../lib`, not
    vendored in charts/): source-controller builds it into the chart. The guard rendered without it
    and never looked at its folder, so a change there that deletes its ConfigMap passed."""
    lib = {"charts/lib/Chart.yaml": "apiVersion: v2\nname: lib\nversion: 1.0.0\n",
           "charts/lib/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-lib\n"
                                           "data: {a: '1'}\n",
           "charts/app/Chart.yaml": "apiVersion: v2\nname: app\nversion: 1.0.0\ndependencies:\n  - name: lib\n"
                                    "    version: 1.0.0\n    repository: file://../lib\n"}
    root = flux_repo({**layout(), **lib}, {"charts/lib/templates/cm.yaml": "# gone\n"})
    found = by_rule(guard(root).findings, "helm-upgrade-deletes")
    assert [f.details["object"] for f in found] == ["media_qbittorrent-lib__ConfigMap"], found


def test_the_helmrelease_crd_the_upgrade_deletes_is_refused(flux_repo: Callable[..., Path],
                                                            guard: Callable[..., GuardResult]) -> None:
    """A chart making Flux's CRDs in its templates (installCRDs): turned off, Helm's upgrade deletes
    the HelmRelease CRD, Kubernetes every HelmRelease, and helm-controller uninstalls each release
    (passed before as a warning about a CustomResourceDefinition)."""
    crd = ("{{- if .Values.installCRDs }}\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n"
           "metadata:\n  name: helmreleases.helm.toolkit.fluxcd.io\nspec:\n  group: helm.toolkit.fluxcd.io\n"
           "  names: {kind: HelmRelease, plural: helmreleases}\n  scope: Namespaced\n"
           "  versions: [{name: v2, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}]\n"
           "{{- end }}\n")
    files = {**layout("installCRDs: true"), "charts/app/templates/crds.yaml": crd}
    root = flux_repo(files, {"apps/release.yaml": release("installCRDs: false")})
    found = by_rule(guard(root).findings, "helm-upgrade-deletes")
    assert [(f.details["object"], f.severity.value) for f in found] == [
        ("_helmreleases.helm.toolkit.fluxcd.io_apiextensions.k8s.io_CustomResourceDefinition", "error")], found
    assert "uninstalls each release: HelmRelease media/qbittorrent" in found[0].message
