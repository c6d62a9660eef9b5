"""Cases found by replaying the history of public Flux repositories, reduced to small layouts.

Each test names the public repository and commit its layout was reduced from; the layout itself
is written here (no file of those repositories is copied). A case the guard gets wrong and that
no small change of one module fixes stays `xfail(strict=True)` with the reason, so the day it is
fixed the suite says so.
"""

from __future__ import annotations

import pytest

from gen.finding import Severity, blocking
from gen.guard import GuardOptions, run_guard
from tests.guard.conftest import FLUX_SYSTEM, by_rule, configmap, flux_ks, kustomization
from tests.helpers import build_tree, git

CUSTOM_ID = "kube-system_coredns-custom__ConfigMap"


def _git_chart_release(strategy: str) -> str:
    """A HelmRelease whose chart is a folder of this repository (the GitRepository flux-system)."""
    return f"""
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata:
          name: dns-extras
          namespace: kube-system
        spec:
          interval: 10m
          chart:
            spec:
              chart: ./charts/dns-extras
              reconcileStrategy: {strategy}
              sourceRef:
                kind: GitRepository
                name: flux-system
                namespace: flux-system
    """


def _chart_yaml(version: str) -> str:
    return f"""
        apiVersion: v2
        name: dns-extras
        version: {version}
    """


CHART_CONFIGMAP = """
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: coredns-custom
      namespace: kube-system
    data:
      log.override: log
"""


@pytest.mark.parametrize(("strategy", "head_version"), [("ChartVersion", "0.2.0"), ("Revision", "0.1.0")])
def test_template_removed_from_a_chart_in_git_is_refused(flux_repo, guard, strategy, head_version):
    """helm-controller deletes what a new chart version no longer renders: a ConfigMap here.

    Reduced from geoffdavis/talos-gitops b4ff271 ("remove failing hooks from
    authentik-proxy-config"): the chart `./charts/authentik-proxy-config` of the repository's own
    GitRepository loses templates and its version goes 0.1.10 -> 0.2.0, so helm-controller
    upgrades the release and deletes the removed templates' objects (there a Job; here the
    template is a ConfigMap). The guard said "1 of 1 clusters touched", 0 findings: it judged the
    HelmRelease object, never the chart. geoffdavis/talos-gitops e0e54b1 changes only chart
    templates (no version bump, so Flux does nothing there) and gets "0 of 1 clusters touched";
    with `reconcileStrategy: Revision` the same change upgrades the release without a bump.
    """
    base = {
        "clusters/prod/apps.yaml": flux_ks("apps", "./apps"),
        "apps/kustomization.yaml": kustomization("dns-extras.yaml"),
        "apps/dns-extras.yaml": _git_chart_release(strategy),
        "charts/dns-extras/Chart.yaml": _chart_yaml("0.1.0"),
        "charts/dns-extras/templates/coredns-custom.yaml": CHART_CONFIGMAP,
    }
    root = flux_repo(base, {"charts/dns-extras/Chart.yaml": _chart_yaml(head_version),
                            "charts/dns-extras/templates/coredns-custom.yaml": None})
    assert blocking(guard(root).findings)


def test_repair_of_a_build_broken_at_base_is_refused_until_judged_from_what_flux_applied(flux_repo, guard, tmp_path):
    """A repair applies, at once, everything changed while the build was broken.

    Reduced from monosense-io/k8s-gitops 3f860ac ("remove broken reference to non-existent
    dragonfly path"). Two commits before, abf943a moved the Flux Kustomization `coredns` from
    namespace flux-system to kube-system and, in the same change, broke the build of its parent
    `cluster-*-infrastructure` (refused there: build-failed at head). Flux kept what it had
    applied before the break. 3f860ac repairs the parent; Flux applies it, prunes
    flux-system/coredns, and that Kustomization's finalizer deletes what it applied (there the
    CoreDNS HelmRelease, uninstalled with its ConfigMap). The guard, judging 3f860ac against its
    parent, saw base not build and said "its prunes are not judged" as a warning: exit 0. The same
    in 606585d (strimzi-operator's HelmRelease and namespace). Here the Kustomization `dns`
    applies kube-system/coredns-custom.
    """
    good = {
        "clusters/prod/infra.yaml": flux_ks("infra", "./infra"),
        "infra/kustomization.yaml": kustomization("dns/ks.yaml"),
        "infra/dns/ks.yaml": flux_ks("dns", "./infra/dns/app"),
        "infra/dns/app/kustomization.yaml": kustomization("coredns-custom.yaml"),
        "infra/dns/app/coredns-custom.yaml": configmap("coredns-custom"),
    }
    moved = flux_ks("dns", "./infra/dns/app").replace("namespace: flux-system", "namespace: kube-system", 1)
    root = flux_repo(good, {"infra/kustomization.yaml": kustomization("dns/ks.yaml", "databases/ks.yaml"),
                            "infra/dns/ks.yaml": moved})
    git(root, "tag", "good", "base")
    git(root, "tag", "-f", "base", "HEAD")  # the broken revision is the repair's parent
    build_tree(root, {"infra/kustomization.yaml": kustomization("dns/ks.yaml")})
    git(root, "commit", "-q", "-am", "repair")

    findings = guard(root).findings
    failed = by_rule(findings, "build-failed")
    assert [(f.severity, f.details["kustomization"]) for f in failed] == [(Severity.ERROR, "flux-system/infra")]
    assert "did not build at base" in failed[0].message and "--base" in failed[0].hint
    assert blocking(findings)
    assert not blocking(guard(root, allow=("ks:flux-system/infra",)).findings)  # the hint's other way

    # Judged from the revision Flux last applied, the deletion shows.
    applied = run_guard(GuardOptions(repo=root, base="good", head="HEAD", cache_dir=tmp_path / "cache"))
    assert [f.rule for f in applied.findings if f.details.get("object") == CUSTOM_ID] == ["configmap-pruned"]
    assert blocking(applied.findings)


def test_a_chart_of_another_repository_or_a_file_outside_the_chart_is_not_refused(flux_repo, guard):
    """helm-chart-not-judged counts only the chart folder of a GitRepository that is, or may be, this
    repository: a change elsewhere passes, and a chart of a GitRepository that only a Kustomization
    of another repository uses is that repository's."""
    other_source = """
        apiVersion: source.toolkit.fluxcd.io/v1
        kind: GitRepository
        metadata: {name: charts, namespace: flux-system}
        spec: {interval: 1m, url: https://example.invalid/charts, ref: {branch: main}}
    """
    base = {
        "clusters/prod/apps.yaml": flux_ks("apps", "./apps"),
        "clusters/prod/other.yaml": flux_ks("other", "./x").replace("name: flux-system", "name: charts"),
        "clusters/prod/charts-source.yaml": other_source,
        "apps/kustomization.yaml": kustomization("dns-extras.yaml"),
        "apps/dns-extras.yaml": _git_chart_release("ChartVersion").replace("name: flux-system", "name: charts"),
        "charts/dns-extras/Chart.yaml": _chart_yaml("0.1.0"),
        "charts/dns-extras/templates/coredns-custom.yaml": CHART_CONFIGMAP,
        "docs/notes.md": "a\n",
    }
    root = flux_repo(base, {"charts/dns-extras/Chart.yaml": _chart_yaml("0.2.0"),
                            "charts/dns-extras/templates/coredns-custom.yaml": None})
    assert not [f for f in guard(root).findings if f.rule == "helm-chart-not-judged"]


def test_a_change_beside_a_chart_in_git_passes(flux_repo, guard):
    base = {
        "clusters/prod/apps.yaml": flux_ks("apps", "./apps"),
        "apps/kustomization.yaml": kustomization("dns-extras.yaml"),
        "apps/dns-extras.yaml": _git_chart_release("ChartVersion"),
        "charts/dns-extras/Chart.yaml": _chart_yaml("0.1.0"),
        "charts/dns-extras/templates/coredns-custom.yaml": CHART_CONFIGMAP,
        "docs/notes.md": "a\n",
    }
    root = flux_repo(base, {"docs/notes.md": "b\n"})
    assert not blocking(guard(root).findings)


def _source(name: str, ref: str, url: str = "ssh://git@example.invalid/fleet") -> str:
    return f"""
        apiVersion: source.toolkit.fluxcd.io/v1
        kind: GitRepository
        metadata:
          name: {name}
          namespace: flux-system
        spec:
          interval: 1m
          url: {url}
          ref:
            branch: {ref}
    """


INFRA = {
    "infra/kustomization.yaml": kustomization("coredns-custom.yaml"),
    "infra/coredns-custom.yaml": configmap("coredns-custom"),
}
INFRA_EMPTIED = {"infra/kustomization.yaml": kustomization(), "infra/coredns-custom.yaml": None}


def _on(source: str, ks: str) -> str:
    return ks.replace("name: flux-system\n", f"name: {source}\n", 1) if "sourceRef" in ks else ks


def test_a_child_of_a_kustomization_not_judged_is_followed_from_its_folder(flux_repo, guard):
    """A Kustomization the guard cannot judge still applies the Kustomizations written in its folder,
    and they prune what leaves theirs: a change there is refused, not passed.

    Reduced from samclement/swhurl-platform (history around 41c72e1): `kubectl apply -k
    clusters/home/flux-system` (a script) applies Kustomizations of the GitRepository
    `swhurl-platform` (this repository, branch main); judged against a commit (`--base <sha>`, as
    a CI that passes the pull request's base SHA), that branch is not what is judged, so
    `homelab-flux-stack` (./clusters/home) is not judged. Its folder holds `homelab-infrastructure`
    (./infrastructure/overlays/home). Dropping minio from that overlay (a HelmRelease: helm-controller
    uninstalls it) passed with "0 of 1 clusters touched": only files under ./clusters/home counted as
    read by what was not judged. Here the not-judged `stack` tracks another branch.
    """
    base = {
        "clusters/prod/fleet.yaml": _source("fleet", "release"),
        "clusters/prod/stack.yaml": _on("fleet", flux_ks("stack", "./stack")),
        "stack/infra.yaml": _on("fleet", flux_ks("infra", "./infra")),
        **INFRA,
    }
    findings = guard(flux_repo(base, INFRA_EMPTIED)).findings
    touched = by_rule(findings, "not-judged-touched")
    assert "flux-system/infra" in {f.details["kustomization"] for f in touched}
    assert blocking(findings)


def test_a_child_of_a_script_bootstrap_judged_against_a_commit_is_followed(flux_repo, guard):
    """The swhurl-platform shape itself: a script bootstrap, its GitRepository on branch main, and
    `--base` a tag (no branch): the grandchild's folder is read by what was not judged."""
    base = {
        "Makefile": "flux:\n\tkubectl apply -k clusters/home/flux-system\n",
        "clusters/home/flux-system/kustomization.yaml": kustomization("sources.yaml", "stack.yaml"),
        "clusters/home/flux-system/sources.yaml": _source("fleet", "main", "https://example.invalid/o/fleet"),
        "clusters/home/flux-system/stack.yaml": _on("fleet", flux_ks("stack", "./clusters/home")),
        "clusters/home/kustomization.yaml": kustomization("infra.yaml"),
        "clusters/home/infra.yaml": _on("fleet", flux_ks("infra", "./infra")),
        **INFRA,
    }
    root = flux_repo(base, INFRA_EMPTIED, standard=False)
    git(root, "remote", "add", "origin", "https://example.invalid/o/fleet")
    findings = guard(root).findings
    touched = {f.details["kustomization"]: f for f in by_rule(findings, "not-judged-touched")}
    assert "flux-system/infra" in touched
    assert "--base origin/<branch>" in touched["flux-system/infra"].hint  # the fix: judge against the branch
    assert blocking(findings)


NAMESPACE = """
    apiVersion: v1
    kind: Namespace
    metadata:
      name: nginx
"""


def _namespaced_infra(*, holds: bool) -> dict[str, str]:
    return {
        "clusters/prod/infra.yaml": flux_ks("infra", "./infra"),
        "infra/kustomization.yaml": kustomization("nginx", "redis"),
        "infra/nginx/kustomization.yaml": kustomization("namespace.yaml", extra="namespace: cluster-config"),
        "infra/nginx/namespace.yaml": NAMESPACE,
        "infra/redis/kustomization.yaml": kustomization("values.yaml"),
        "infra/redis/values.yaml": configmap("redis-values", namespace="cluster-config" if holds else "redis"),
    }


def test_a_pruned_namespace_takes_its_configmaps_with_it(flux_repo, guard):
    """Kubernetes deletes every object of a deleted Namespace: a ConfigMap applied there is lost.

    Reduced from Azure/gitops-flux2-kustomize-helm-mt 4f1bdad ("Update kustomization.yaml"): it
    drops `namespace: cluster-config` from infrastructure/nginx/kustomization.yaml, whose
    namespace.yaml was renamed by kustomize to Namespace `cluster-config`; at head it is `nginx`,
    so Flux prunes Namespace cluster-config, where the same Kustomization applies the redis values
    ConfigMap and the nginx, redis (and podinfo) HelmReleases. The guard said "object-pruned"
    (a warning) for the Namespace: exit 0.
    """
    root = flux_repo(_namespaced_infra(holds=True), {"infra/nginx/kustomization.yaml": kustomization("namespace.yaml")})
    findings = guard(root).findings
    pruned = by_rule(findings, "namespace-pruned")
    assert [f.details["object"] for f in pruned] == ["_cluster-config__Namespace"]
    assert "ConfigMap cluster-config/redis-values" in pruned[0].message
    assert "release is uninstalled" not in pruned[0].message  # it holds no HelmRelease
    assert not [f for f in by_rule(findings, "object-pruned") if f.details["object"] == "_cluster-config__Namespace"]
    assert blocking(findings)


def test_a_pruned_namespace_that_holds_nothing_applied_is_a_warning(flux_repo, guard):
    root = flux_repo(_namespaced_infra(holds=False), {"infra/nginx/kustomization.yaml": kustomization("namespace.yaml")})
    findings = guard(root).findings
    assert not by_rule(findings, "namespace-pruned")
    assert [f.details["object"] for f in by_rule(findings, "object-pruned")] == ["_cluster-config__Namespace"]
    assert not blocking(findings)


def test_what_a_kustomization_not_judged_reads_outside_its_folder_counts(flux_repo, guard):
    """A Kustomization not judged whose source may be this repository is built here to learn what it
    reads: an overlay's `../base` is read, though it lies outside its folder.

    The same swhurl-platform history: `homelab-infrastructure` builds ./infrastructure/overlays/home,
    whose kustomization.yaml lists `../../storage/minio/base`; emptying that base's kustomization.yaml
    uninstalls minio, and passed (only files under the overlay's folder counted).
    """
    base = {
        "clusters/prod/fleet.yaml": _source("fleet", "release"),
        "clusters/prod/stack.yaml": _on("fleet", flux_ks("stack", "./stack")),
        "stack/infra.yaml": _on("fleet", flux_ks("infra", "./infra/prod")),
        "infra/prod/kustomization.yaml": kustomization("../base"),
        "infra/base/kustomization.yaml": kustomization("coredns-custom.yaml"),
        "infra/base/coredns-custom.yaml": configmap("coredns-custom"),
    }
    root = flux_repo(base, {"infra/base/kustomization.yaml": kustomization()})
    findings = guard(root).findings
    touched = {f.details["kustomization"]: f for f in by_rule(findings, "not-judged-touched")}
    assert touched["flux-system/infra"].file == "infra/base/kustomization.yaml"
    assert blocking(findings)


def _release(extra: str = "", chart: str = "sonarr", source: str = "HelmRepository", *, ref: str = "") -> str:
    """A HelmRelease media/sonarr-4k whose chart comes from `source` (or, with `ref`, whose
    `spec.chartRef` is that kind, named `chart`), with `extra` spec lines."""
    lines = "".join(f"\n          {line}" for line in extra.splitlines())
    where = (f"chartRef:\n            kind: {ref}\n            name: {chart}\n            namespace: flux-system" if ref else
             f"chart:\n            spec:\n              chart: {chart}\n              sourceRef:\n                kind: {source}"
             "\n                name: charts\n                namespace: flux-system")
    return f"""
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata:
          name: sonarr-4k
          namespace: media
        spec:
          interval: 1h
          {where}{lines}
    """


_LONG_NS = "downloaders-and-indexers-for-the-media-library"  # + "-sonarr-4k": 56 characters


HTTP_CHARTS = """
    apiVersion: source.toolkit.fluxcd.io/v1
    kind: HelmRepository
    metadata:
      name: charts
      namespace: flux-system
    spec:
      interval: 1h
      url: https://charts.example.com
"""


def _media(release: str) -> dict[str, str]:
    """HelmRelease `release` beside the HTTP HelmRepository flux-system/charts its chart names."""
    return {"clusters/prod/apps.yaml": flux_ks("apps", "./apps"),
            "apps/kustomization.yaml": kustomization("sonarr-4k.yaml", "charts.yaml"),
            "apps/sonarr-4k.yaml": release, "apps/charts.yaml": HTTP_CHARTS}


@pytest.mark.parametrize(("head", "what"), [
    (_release("targetNamespace: media"), "release name sonarr-4k -> media-sonarr-4k"),
    (_release("releaseName: sonarr"), "release name sonarr-4k -> sonarr"),
    (_release("targetNamespace: kube-system"), "release namespace media -> kube-system"),
    (_release("storageNamespace: flux-system"), "storage namespace media -> flux-system"),
    (_release(chart="app-template"), "chart sonarr -> app-template"),
])
def test_a_helmrelease_whose_release_target_changes_is_refused(flux_repo, guard, head, what):
    """helm-controller uninstalls a release whose name, namespace, storage namespace or chart changes.

    Reduced from sulibot/home-ops c6c1b45 ("fixing options"): HelmRelease sonarr-4k gains
    `targetNamespace: media`, so its release name becomes `media-sonarr-4k`; helm-controller's
    ReleaseTargetChanged then uninstalls release sonarr-4k (every object in it) before installing
    the new one. The HelmRelease object stays, so the guard saw nothing: "1 of 1 clusters touched",
    0 findings, exit 0. The same in 1ed5842 (cilium's targetNamespace cilium -> kube-system: the
    CNI uninstalled) and damacus/home-ops 2c7aa42 (minio's chart minio -> app-template).
    """
    root = flux_repo(_media(_release()), {"apps/sonarr-4k.yaml": head})
    findings = guard(root).findings
    moved = by_rule(findings, "helmrelease-retargeted")
    assert [(f.severity, f.file, f.details["object"]) for f in moved] == [
        (Severity.ERROR, "apps/sonarr-4k.yaml", "media_sonarr-4k_helm.toolkit.fluxcd.io_HelmRelease")]
    assert what in moved[0].message and "uninstalls release media/sonarr-4k" in moved[0].message
    assert moved[0].line > 6  # at the spec line that changed, not the document's start
    assert blocking(findings)
    assert not blocking(guard(root, allow=("media_sonarr-4k_helm.toolkit.fluxcd.io_HelmRelease",)).findings)


@pytest.mark.parametrize(("base", "head"), [
    (_release(), _release("install:\n  createNamespace: true")),          # the target is the same
    (_release("targetNamespace: media"), _release("releaseName: media-sonarr-4k\ntargetNamespace: media")),
    (_release(chart="./charts/sonarr", source="GitRepository"),          # the same chart of git: its values change
     _release("values:\n  replicas: 2", chart="./charts/sonarr", source="GitRepository")),
    (_release("suspend: false"), _release("suspend: false")),
    (_release(chart="hashicorp/sonarr"), _release()),  # pjmagee/fleet-infra 36228f7: the same chart name
    # helm-controller's release.ShortenName: the release of a 56-character default name is stored
    # under its short form, so a releaseName written as that short form is the same release
    (_release(f"targetNamespace: {_LONG_NS}"),
     _release(f"targetNamespace: {_LONG_NS}\nreleaseName: downloaders-and-indexers-for-the-media-l-bf54a0a777f5")),
    # chartNameChangeStrategy InPlaceUpdate: helm-controller upgrades the release under the new chart
    (_release(), _release("upgrade:\n  chartNameChangeStrategy: InPlaceUpdate", chart="app-template")),
])
def test_a_helmrelease_keeping_its_release_target_passes(flux_repo, guard, base, head):
    root = flux_repo(_media(base), {"apps/sonarr-4k.yaml": head})
    assert not by_rule(guard(root).findings, "helmrelease-retargeted")


@pytest.mark.parametrize(("base", "head"), [
    # the head's strategy decides (the controller reads the object it reconciles), and its default is Reinstall
    (_release("upgrade:\n  chartNameChangeStrategy: InPlaceUpdate"), _release(chart="app-template")),
    # two long names whose short forms differ (the hash is of the whole name)
    (_release(f"targetNamespace: {_LONG_NS}"), _release(f"targetNamespace: {_LONG_NS}\nreleaseName: {_LONG_NS}-sonarr-4kx")),
    # resumed at head: helm-controller reconciles it now, and uninstalls the old release
    (_release("suspend: true"), _release("releaseName: x")),
])
def test_a_helmrelease_retargeted_despite_its_spelling_is_refused(flux_repo, guard, base, head):
    root = flux_repo(_media(base), {"apps/sonarr-4k.yaml": head})
    moved = by_rule(guard(root).findings, "helmrelease-retargeted")
    assert [f.severity for f in moved] == [Severity.ERROR]


def _ref_release(kind: str, name: str = "sonarr", extra: str = "") -> str:
    """HelmRelease media/sonarr-4k whose chart is `spec.chartRef` `kind` flux-system/`name`."""
    return _release(extra, name, ref=kind)


def _oci(name: str, url: str, tag: str = "1.0.0") -> str:
    return f"""
        apiVersion: source.toolkit.fluxcd.io/v1
        kind: OCIRepository
        metadata:
          name: {name}
          namespace: flux-system
        spec:
          interval: 1h
          url: {url}
          ref:
            tag: {tag}
    """


def _charted(release: str, *sources: str) -> dict[str, str]:
    """_media with chart sources beside the release, applied by the same Kustomization."""
    names = [f"source-{i}.yaml" for i in range(len(sources))]
    return {**_media(release), "apps/kustomization.yaml": kustomization("sonarr-4k.yaml", "charts.yaml", *names),
            **{f"apps/{n}": text for n, text in zip(names, sources, strict=True)}}


OCI_SONARR = _oci("sonarr", "oci://ghcr.io/example/charts/sonarr")


def _git(url: str, branch: str = "main") -> str:
    """GitRepository flux-system/charts of `url` at `branch`."""
    return f"""
        apiVersion: source.toolkit.fluxcd.io/v1
        kind: GitRepository
        metadata:
          name: charts
          namespace: flux-system
        spec:
          interval: 1h
          url: {url}
          ref:
            branch: {branch}
    """


GIT_SONARR = _release(chart="./charts/sonarr", source="GitRepository")


_HELM_CHART = """
    apiVersion: source.toolkit.fluxcd.io/v1
    kind: HelmChart
    metadata:
      name: sonarr
      namespace: flux-system
    spec:
      interval: 1h
      chart: sonarr
      sourceRef:
        kind: HelmRepository
        name: mirror
        namespace: other
"""


def _repository(namespace: str, url: str, kind: str = "default") -> str:
    """HelmRepository `namespace`/mirror of `url`, of type `kind`."""
    return f"""
        apiVersion: source.toolkit.fluxcd.io/v1
        kind: HelmRepository
        metadata:
          name: mirror
          namespace: {namespace}
        spec:
          interval: 1h
          type: {kind}
          url: {url}
    """


def _generator(folder: str) -> str:
    """ArtifactGenerator flux-system/charts making ExternalArtifact sonarr of `folder` of GitRepository charts."""
    return f"""
        apiVersion: source.extensions.fluxcd.io/v1beta1
        kind: ArtifactGenerator
        metadata:
          name: charts
          namespace: flux-system
        spec:
          sources:
            - alias: charts
              kind: GitRepository
              name: charts
          artifacts:
            - name: sonarr
              copy:
                - from: "@charts/{folder}/**"
                  to: "@artifact/"
    """


@pytest.mark.parametrize(("base", "head"), [
    (_charted(_ref_release("OCIRepository"), OCI_SONARR),                   # a new version of the same chart
     _charted(_ref_release("OCIRepository"), _oci("sonarr", "oci://ghcr.io/example/charts/sonarr", "2.0.0"))),
    # onedr0p/home-ops 129855bd02: an OCI HelmRepository's chart and an OCIRepository of its path
    # are the same artifact (source-controller pulls <url>/<chart>), so the same chart
    (_charted(_release(source="HelmRepository").replace("name: charts", "name: oci-charts"),
              _oci("oci-charts", "oci://ghcr.io/example/charts").replace("OCIRepository", "HelmRepository")
              .replace("ref:\n            tag: 1.0.0", "type: oci")),
     _charted(_ref_release("OCIRepository"), OCI_SONARR)),
    (_charted(_ref_release("ExternalArtifact")),                            # the same source, whatever its chart
     _charted(_ref_release("ExternalArtifact", extra="values:\n  replicas: 2"))),
    (_charted(_release()),                                                  # the head upgrades in place
     _charted(_ref_release("ExternalArtifact", extra="upgrade:\n  chartNameChangeStrategy: InPlaceUpdate"))),
    (_charted(_ref_release("ExternalArtifact"), _generator("charts/sonarr"), _git("https://github.com/example/charts")),
     _charted(_ref_release("ExternalArtifact", extra="values:\n  replicas: 2"), _generator("charts/sonarr"),
              _git("https://github.com/example/charts", "release-2"))),
    # another branch of the same git repository: a new revision of the same source, as a new version is
    (_charted(GIT_SONARR, _git("https://github.com/example/charts")),
     _charted(GIT_SONARR, _git("https://github.com/example/charts", "release-2"))),
])
def test_a_chart_whose_source_stays_or_that_updates_in_place_passes(flux_repo, guard, base, head):
    root = flux_repo(base, head)
    assert not by_rule(guard(root).findings, "helmrelease-retargeted")


@pytest.mark.parametrize(("base", "head", "said"), [
    # onedr0p/home-ops' many moves to a charts mirror: the OCI path need not be the chart's name
    # (bfe9ef9a0b: chart volsync is mirrored at .../volsync-perfectra1n), so an unchanged name is not known
    (_charted(_release()), _charted(_ref_release("OCIRepository"), OCI_SONARR),
     "chart sonarr of HelmRepository flux-system/charts (https://charts.example.com) -> chartRef OCIRepository "
     "flux-system/sonarr (oci://ghcr.io/example/charts/sonarr)) and the chart's name at head"),
    (_charted(_ref_release("OCIRepository"), OCI_SONARR),
     _charted(_ref_release("OCIRepository"), _oci("sonarr", "oci://ghcr.io/home-operations/charts-mirror/sonarr")),
     "at base and head"),
    (_charted(_release()), _charted(_ref_release("ExternalArtifact")),
     "-> chartRef ExternalArtifact flux-system/sonarr (not applied by this cluster's builds)"),
    (_charted(_release()), _charted(_release().replace("HelmRepository", "GitRepository")), "at head"),
    (_charted(_release(chart="./charts/sonarr", source="GitRepository")),
     _charted(_release(chart="./charts/radarr", source="GitRepository")), "at base and head"),
    # an OCIRepository no build of the cluster applies (made out of band): its url is not known here
    (_charted(_release()), _charted(_ref_release("OCIRepository")), "not applied by this cluster's builds"),
    # the same folder of another git repository (the GitRepository's url changes): another chart,
    # whose Chart.yaml may name it otherwise; passed before (the artifact was kind/name/folder)
    (_charted(GIT_SONARR, _git("https://github.com/example/charts")),
     _charted(GIT_SONARR, _git("https://github.com/other/helm-charts")),
     "(https://github.com/example/charts) -> chart ./charts/sonarr of GitRepository flux-system/charts "
     "(https://github.com/other/helm-charts))"),
    # an ExternalArtifact whose ArtifactGenerator copies another folder, or from another repository
    (_charted(_ref_release("ExternalArtifact"), _generator("charts/sonarr"), _git("https://github.com/example/charts")),
     _charted(_ref_release("ExternalArtifact"), _generator("charts/radarr"), _git("https://github.com/example/charts")),
     "at base and head"),
    (_charted(_ref_release("ExternalArtifact"), _generator("charts/sonarr"), _git("https://github.com/example/charts")),
     _charted(_ref_release("ExternalArtifact"), _generator("charts/sonarr"), _git("https://github.com/other/charts")),
     "(made by ArtifactGenerator flux-system/charts"),
    # a HelmChart's sourceRef has no namespace (LocalHelmChartSourceReference): its HelmRepository
    # is flux-system/mirror, an OCI one, not the HTTP other/mirror the written namespace names
    (_charted(_release()),
     _charted(_ref_release("HelmChart"), _HELM_CHART, _repository("flux-system", "oci://ghcr.io/example/charts", "oci"),
              _repository("other", "https://charts.example.com")),
     "(oci://ghcr.io/example/charts))"),
    # another layer of the same OCI artifact
    (_charted(_ref_release("OCIRepository"), OCI_SONARR),
     _charted(_ref_release("OCIRepository"), OCI_SONARR.rstrip(" ") + "          layerSelector:\n            mediaType: application/x-other\n"),
     "at base and head"),
])
def test_a_chart_whose_name_is_not_known_here_and_whose_source_moves_is_refused(flux_repo, guard, base, head, said):
    """helm-controller uninstalls the release when the chart's name changes (ReleaseTargetChanged
    compares its Chart.yaml's name with the release's): a chart moved to a source whose name only
    its own files say passed before, judged by nothing."""
    root = flux_repo(base, head)
    findings = guard(root).findings
    moved = by_rule(findings, "helmrelease-retargeted")
    assert [(f.severity, f.details["fate"]) for f in moved] == [(Severity.ERROR, "not-judged")]
    assert said in moved[0].message and "not judged, refused" in moved[0].message
    assert "chartNameChangeStrategy: InPlaceUpdate" in moved[0].hint
    assert blocking(findings)
    assert not blocking(guard(root, allow=("media_sonarr-4k_helm.toolkit.fluxcd.io_HelmRelease",)).findings)


def _marked(release: str, marker: str) -> str:
    """`release` with one Flux annotation `marker` (`key: value`)."""
    return release.replace("namespace: media\n", f"namespace: media\n          annotations:\n            {marker}\n", 1)


PRUNE_OFF = "kustomize.toolkit.fluxcd.io/prune: disabled"


@pytest.mark.parametrize(("marker", "refused"), [
    (PRUNE_OFF, True),  # stops deletion only: kustomize-controller applies the new spec
    ("kustomize.toolkit.fluxcd.io/reconcile: disabled", False),
    ("kustomize.toolkit.fluxcd.io/ssa: Ignore", False),
    ("kustomize.toolkit.fluxcd.io/ssa: IfNotPresent", False),  # the object exists: not applied
])
def test_a_retargeted_helmrelease_is_judged_unless_flux_skips_its_apply(flux_repo, guard, marker, refused):
    """fluxcd/pkg ssa shouldSkipApply: only `reconcile: disabled` and `ssa: Ignore` (or
    `IfNotPresent` on an existing object) keep the new spec from helm-controller. A HelmRelease
    marked `prune: disabled` (the marker for objects one means to keep) passed the guard while
    helm-controller uninstalled its release."""
    base = _marked(_release(), PRUNE_OFF if marker != PRUNE_OFF else marker)
    head = _marked(_release("releaseName: sonarr"), marker)
    moved = by_rule(guard(flux_repo(_media(base), {"apps/sonarr-4k.yaml": head})).findings, "helmrelease-retargeted")
    assert [f.severity for f in moved] == ([Severity.ERROR] if refused else [])


@pytest.mark.parametrize("base", [_release("suspend: true"), _release()])
def test_a_suspended_helmrelease_retargeted_is_a_warning(flux_repo, guard, base):
    """Suspended at head (whether or not at base): helm-controller skips it until it is resumed."""
    root = flux_repo(_media(base), {"apps/sonarr-4k.yaml": _release("suspend: true\nreleaseName: x")})
    moved = by_rule(guard(root).findings, "helmrelease-retargeted")
    assert [f.severity for f in moved] == [Severity.WARNING] and "once it is resumed" in moved[0].message


@pytest.mark.parametrize("ref", ["name: refs/heads/main", "branch: main\n            name: refs/heads/main"])
def test_a_source_naming_the_synced_branch_by_its_full_ref_is_judged(flux_repo, guard, ref):
    """`ref: {name: refs/heads/main}` and `ref: {branch: main}` check out the same revision.

    Reduced from damacus/home-ops (the last 30 commits to 7c84bd5): the cluster's FluxInstance
    (flux-instance chart values) syncs `ref: refs/heads/main`, which the Flux Operator writes as the
    GitRepository's `ref.name`, while the apps' GitRepository `home-kubernetes` (the same URL) says
    `branch: main`. The guard compared the two refs as written, took home-kubernetes for another
    revision and judged none of its 161 Kustomizations: 54 of 60 commits were refused by
    not-judged-touched (an image bump each), and no removal through them was judged.
    """
    gotk = FLUX_SYSTEM["clusters/prod/flux-system/gotk-sync.yaml"].replace("branch: main", ref, 1)
    base = {"clusters/prod/flux-system/gotk-sync.yaml": gotk,
            "clusters/prod/apps-source.yaml": _source("apps", "main"),
            "clusters/prod/infra.yaml": _on("apps", flux_ks("infra", "./infra")), **INFRA}
    findings = guard(flux_repo(base, INFRA_EMPTIED)).findings
    assert not by_rule(findings, "not-judged-touched")
    assert [f.details["object"] for f in by_rule(findings, "configmap-pruned")] == [CUSTOM_ID]


def test_a_source_tracking_another_branch_or_a_commit_is_still_not_judged(flux_repo, guard):
    gotk = FLUX_SYSTEM["clusters/prod/flux-system/gotk-sync.yaml"].replace("branch: main", "name: refs/heads/main", 1)
    base = {"clusters/prod/flux-system/gotk-sync.yaml": gotk,
            "clusters/prod/apps-source.yaml": _source("apps", "main").replace("branch: main", "commit: 0123abc"),
            "clusters/prod/infra.yaml": _on("apps", flux_ks("infra", "./infra")), **INFRA}
    findings = guard(flux_repo(base, INFRA_EMPTIED)).findings
    assert [f.details["kustomization"] for f in by_rule(findings, "not-judged-touched")] == ["flux-system/infra"]


MEDIA_NAMESPACE = """
    apiVersion: v1
    kind: Namespace
    metadata:
      name: media
"""


@pytest.mark.parametrize("spec", ["targetNamespace: media", "storageNamespace: media"])
def test_a_pruned_namespace_holding_a_release_installed_from_elsewhere_is_refused(flux_repo, guard, spec):
    """A HelmRelease written in flux-system whose release lives in the Namespace (its
    targetNamespace, or its storage namespace, where Helm keeps the release) loses it with the
    Namespace: Kubernetes deletes the release's objects (and Helm's record of it).

    Reduced from sulibot/home-ops, whose HelmReleases live in flux-system with `targetNamespace:
    media` (c6c1b45, sonarr-4k): the guard counted only objects whose own namespace is the pruned
    Namespace, so dropping `media`'s manifest was an object-pruned warning, exit 0.
    """
    base = {"clusters/prod/apps.yaml": flux_ks("apps", "./apps"),
            "apps/kustomization.yaml": kustomization("namespace.yaml", "sonarr-4k.yaml"),
            "apps/namespace.yaml": MEDIA_NAMESPACE,
            "apps/sonarr-4k.yaml": _release(spec).replace("namespace: media\n", "namespace: flux-system\n", 1)}
    root = flux_repo(base, {"apps/kustomization.yaml": kustomization("sonarr-4k.yaml"), "apps/namespace.yaml": None})
    findings = guard(root).findings
    pruned = by_rule(findings, "namespace-pruned")
    assert [f.details["object"] for f in pruned] == ["_media__Namespace"]
    assert "HelmRelease flux-system/sonarr-4k" in pruned[0].message
    assert blocking(findings)


@pytest.mark.parametrize(("target", "refused"), [("downloads", False), ("media", True)])
def test_a_pruned_namespace_holding_a_suspended_helmrelease_counts_only_its_release_there(flux_repo, guard, target,
                                                                                           refused):
    """helm-controller deletes a suspended HelmRelease without uninstalling its release (as
    helmrelease-pruned says): a Namespace holding only such a HelmRelease, whose targetNamespace
    is another Namespace, takes no release with it. The same HelmRelease with its release in the
    Namespace is refused (Kubernetes deletes the release's objects whatever helm-controller does)."""
    release = _release(f"suspend: true\ntargetNamespace: {target}")
    base = {"clusters/prod/apps.yaml": flux_ks("apps", "./apps"),
            "apps/kustomization.yaml": kustomization("namespace.yaml", "sonarr-4k.yaml"),
            "apps/namespace.yaml": MEDIA_NAMESPACE, "apps/sonarr-4k.yaml": release}
    root = flux_repo(base, {"apps/kustomization.yaml": kustomization("sonarr-4k.yaml"), "apps/namespace.yaml": None})
    pruned = [f.details["object"] for f in by_rule(guard(root).findings, "namespace-pruned")]
    assert pruned == (["_media__Namespace"] if refused else [])


SCRIPT_BOOTSTRAP = """
    name: e2e
    on: push
    jobs:
      kubernetes:
        runs-on: ubuntu-latest
        steps:
          - run: |
              flux create source git flux-system --url=${{ github.event.repository.html_url }} --branch=main
              flux create kustomization flux-system --source=flux-system --path=./clusters/staging
"""
GOTK_SYNC = "clusters/staging/flux-system/gotk-sync.yaml"


@pytest.mark.parametrize("written", [
    "# This file will be generated automatically by flux bootstrap.\n",
    FLUX_SYSTEM["clusters/prod/flux-system/gotk-sync.yaml"].replace("./clusters/prod", "./clusters/staging"),
])
def test_a_cluster_whose_bootstrap_comes_into_git_is_judged_as_the_same_cluster(flux_repo, guard, written):
    """A cluster bootstrapped by a script at base, whose `flux-system` Kustomization head writes in
    git (a gotk-sync.yaml, or bootstrap's placeholder for one) syncing the same folder, is the
    same cluster: the same Kustomization reconciles head, and prunes what head drops.

    Reduced from fluxcd/flux2-kustomize-helm-example eb17b57 ("Refactor: Add Flux UI", 8cee664 on
    its branch): the e2e workflow's `flux create kustomization flux-system --path=./clusters/staging`
    was the root at base; the change commits clusters/staging/flux-system/gotk-sync.yaml
    placeholders and replaces the Kustomization `infrastructure` (nginx and redis HelmReleases)
    with `infra-controllers`/`infra-configs`. The guard named the cluster by the script's folder
    at base and by the placeholder at head, took the base cluster for gone ("root Kustomization
    flux-system/flux-system was applied outside git": orphaned, warnings) and the head one for
    new: exit 0, while flux-system prunes `infrastructure` and its finalizer uninstalls both
    releases. Here `infra` applies kube-system/coredns-custom.
    """
    base = {
        ".github/workflows/e2e.yaml": SCRIPT_BOOTSTRAP,
        "clusters/staging/infra.yaml": flux_ks("infra", "./infra"),
        "infra/kustomization.yaml": kustomization("coredns-custom.yaml"),
        "infra/coredns-custom.yaml": configmap("coredns-custom"),
    }
    head = {GOTK_SYNC: written, "clusters/staging/infra.yaml": flux_ks("infra-configs", "./configs"),
            "configs/kustomization.yaml": kustomization()}
    root = flux_repo(base, head, standard=False)
    git(root, "remote", "add", "origin", "ssh://git@example.invalid/fleet")
    findings = guard(root).findings
    pruned = by_rule(findings, "configmap-pruned")
    assert [f.details["object"] for f in pruned] == [CUSTOM_ID]
    assert pruned[0].details["cluster"] == GOTK_SYNC
    assert blocking(findings)


def test_a_script_bootstrap_moved_into_git_keeping_what_it_applies_passes(flux_repo, guard):
    """The same move with nothing dropped: the cluster is judged once, and nothing is lost."""
    base = {
        ".github/workflows/e2e.yaml": SCRIPT_BOOTSTRAP,
        "clusters/staging/infra.yaml": flux_ks("infra", "./infra"),
        "infra/kustomization.yaml": kustomization("coredns-custom.yaml"),
        "infra/coredns-custom.yaml": configmap("coredns-custom"),
    }
    root = flux_repo(base, {GOTK_SYNC: "# This file will be generated automatically by flux bootstrap.\n"},
                     standard=False)
    result = guard(root)
    assert not [f for f in result.findings if f.severity in (Severity.ERROR, Severity.WARNING)]
    assert result.stats["clusters"] == 1


@pytest.mark.parametrize("applied", [
    "clusters/$CLUSTER_NAME/infra.yaml",   # microsoft/multicluster-gitops utils/add-cluster.sh
    "./clusters/edge/infra.yaml",
    "clusters/edge/",                      # a folder: its manifests
    "clusters -R",                         # every level
])
def test_a_kustomization_a_script_applies_with_kubectl_apply_f_is_a_root(flux_repo, guard, applied):
    """`kubectl apply -f FILE` applies the Flux Kustomizations written in FILE once, outside
    git: they reconcile their paths and prune like any other.

    Reduced from microsoft/multicluster-gitops, whose clusters are bootstrapped with `flux
    bootstrap --path=clusters/base` and then `kubectl apply -f clusters/$CLUSTER_NAME/infra.yaml`
    (utils/add-cluster.sh): the Kustomization `infrastructure` of ./infra/k3d-america (an nginx
    HelmRelease) was listed as unreached, so every change under infra/k3d-america passed with "0
    of 1 clusters touched". Here it applies kube-system/coredns-custom.
    """
    base = {
        "utils/add-cluster.sh": f"#!/bin/bash\nCLUSTER_NAME=$1\nkubectl apply -f {applied}\n",
        "clusters/edge/infra.yaml": flux_ks("infrastructure", "./infra/edge"),
        "infra/edge/kustomization.yaml": kustomization("coredns-custom.yaml"),
        "infra/edge/coredns-custom.yaml": configmap("coredns-custom"),
    }
    result = guard(flux_repo(base, {"infra/edge/kustomization.yaml": kustomization()}))
    pruned = by_rule(result.findings, "configmap-pruned")
    assert [(f.details["object"], f.details["cluster"]) for f in pruned] == [(CUSTOM_ID, "clusters/edge/infra.yaml")]
    assert blocking(result.findings)


@pytest.mark.parametrize("applied", ["https://example.invalid/ks.yaml", "-", "/dev/stdin", "/clusters/edge/infra.yaml",
                                     "utils/role.yaml"])
def test_kubectl_apply_f_of_no_flux_kustomization_of_the_repository_is_no_root(flux_repo, guard, applied):
    """A URL, stdin or a file without a Flux Kustomization starts no cluster: the file the
    script does not apply stays unreached, as before."""
    base = {
        "utils/add-cluster.sh": f"#!/bin/bash\nkubectl apply -f {applied}\n",
        "utils/role.yaml": "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: x\n  namespace: default\n",
        "clusters/edge/infra.yaml": flux_ks("infrastructure", "./infra/edge"),
        "infra/edge/kustomization.yaml": kustomization("coredns-custom.yaml"),
        "infra/edge/coredns-custom.yaml": configmap("coredns-custom"),
    }
    result = guard(flux_repo(base, {"infra/edge/kustomization.yaml": kustomization()}))
    assert not blocking(result.findings)
    assert result.coverage.unreached == ["clusters/edge/infra.yaml"]


def _two_clusters(script: str) -> dict[str, str]:
    """Two clusters no bootstrap in git starts (the guard guesses their roots) and a script."""
    files = {"scripts/setup.sh": script}
    for c in ("a", "b"):
        files[f"clusters/{c}/apps.yaml"] = flux_ks("apps", f"./infra/{c}")
        files[f"infra/{c}/kustomization.yaml"] = kustomization("coredns-custom.yaml")
        files[f"infra/{c}/coredns-custom.yaml"] = configmap("coredns-custom")
    return files


@pytest.mark.parametrize("line", [
    "# kubectl apply -f clusters/a/apps.yaml",                     # commented out
    "  #kubectl apply -f clusters/a/apps.yaml",
    "kubectl apply --dry-run=client -f clusters/a/apps.yaml",      # dry runs apply nothing
    "kubectl apply -f clusters/a/apps.yaml --dry-run=server",
    "kubectl apply --server-dry-run -f clusters/a/apps.yaml",
    "echo 'then run: kubectl apply -f clusters/a/apps.yaml'",      # text, not a command
    "cat <<EOF\nthen run: kubectl apply -f clusters/a/apps.yaml\nEOF",
    "kubectl apply -f clusters/a/apps.yaml",                       # applies a; says nothing of b
    "# flux bootstrap github --owner=me --path=clusters/a",
    "flux create kustomization apps --path=./infra/a --export > clusters/a/apps.yaml",
    "vendor: flux bootstrap github --owner=me --path=clusters/a",   # another project's script
])
def test_a_script_line_that_applies_no_root_of_the_fleet_keeps_the_other_clusters_judged(flux_repo, guard, line):
    """A `kubectl apply -f FILE` line made FILE's cluster the only one: with no bootstrap in git,
    the guard stopped guessing roots and every other cluster was unreached, so a prune there
    passed. A line commented out, a dry run or an `--export` applies nothing; a real `kubectl
    apply -f` says that FILE is applied, not that nothing else is."""
    files = _two_clusters(f"#!/bin/bash\n{line}\n")
    if line.startswith("vendor: "):
        files["third_party/flux2/scripts/setup.sh"] = files.pop("scripts/setup.sh").replace("vendor: ", "")
    root = flux_repo(files, {"infra/b/kustomization.yaml": kustomization()}, standard=False)
    result = guard(root)
    pruned = by_rule(result.findings, "configmap-pruned")
    assert [f.details["cluster"] for f in pruned] == ["clusters/b/apps.yaml"]
    assert result.coverage.unreached == []
    assert blocking(result.findings)


FLUX_INSTANCE = """
    apiVersion: fluxcd.controlplane.io/v1
    kind: FluxInstance
    metadata:
      name: flux
      namespace: flux-system
    spec:
      distribution:
        version: "2.x"
        registry: ghcr.io/fluxcd
      sync:
        kind: GitRepository
        url: ssh://git@example.invalid/fleet
        ref: refs/heads/main
        path: clusters/prod
"""


def test_a_gotk_sync_replaced_by_a_flux_instance_is_one_cluster(flux_repo, guard):
    """Moving a cluster from `flux bootstrap` to the Flux Operator (its FluxInstance makes the same
    `flux-system` Kustomization of the same folder) keeps the cluster: judged once, base against
    head, what head drops refused (it was judged twice: the gotk-sync root carried over as gone
    from git beside a new FluxInstance cluster)."""
    base = {"clusters/prod/infra.yaml": flux_ks("infra", "./infra"),
            "infra/kustomization.yaml": kustomization("coredns-custom.yaml"),
            "infra/coredns-custom.yaml": configmap("coredns-custom")}
    head = {"clusters/prod/flux-system/gotk-sync.yaml": None,
            "clusters/prod/flux-system/kustomization.yaml": kustomization("flux-instance.yaml"),
            "clusters/prod/flux-system/flux-instance.yaml": FLUX_INSTANCE,
            "infra/kustomization.yaml": kustomization()}
    root = flux_repo(base, head)
    git(root, "remote", "add", "origin", "ssh://git@example.invalid/fleet")
    result = guard(root)
    assert [f.details["object"] for f in by_rule(result.findings, "configmap-pruned")] == [CUSTOM_ID]
    assert result.stats["clusters"] == 1


APPS_NAMESPACE = """
    apiVersion: v1
    kind: Namespace
    metadata:
      name: apps
"""


@pytest.mark.parametrize(("held", "refused"), [(configmap("app-config", namespace="apps"), True),
                                               ("apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: app\n"
                                                "  namespace: apps\n", False)])
def test_a_namespace_moving_away_from_a_deleted_kustomization_takes_what_it_holds(flux_repo, guard, held, refused):
    """A Namespace that moves to another Kustomization while its old one is deleted (renamed) is
    deleted by the old one's finalizer unless the new one has taken it over first, which nothing
    orders (as for a ConfigMap or HelmRelease: object-moved-deleted), and Kubernetes then deletes
    every object in it, including ConfigMaps and HelmReleases that other Kustomizations apply and
    that stay in git.

    Found replaying controlplaneio-fluxcd/d1-fleet 58997c0 ("Set branch var for tenants": the
    Kustomization `tenants` becomes `flux-tenants`, with a new dependsOn that delays its first
    apply; Namespace frontend moves, an object-moved warning). There the Namespace held only a
    ServiceAccount and a RoleBinding (a warning, as here with a ServiceAccount); here Kustomization
    `apps` applies ConfigMap apps/app-config in it, and the rename passed with a warning.
    """
    base = {"clusters/prod/namespaces.yaml": flux_ks("namespaces", "./namespaces"),
            "clusters/prod/apps.yaml": flux_ks("apps", "./apps"),
            "namespaces/kustomization.yaml": kustomization("apps.yaml"),
            "namespaces/apps.yaml": APPS_NAMESPACE,
            "apps/kustomization.yaml": kustomization("held.yaml"),
            "apps/held.yaml": held}
    root = flux_repo(base, {"clusters/prod/namespaces.yaml": flux_ks("cluster-namespaces", "./namespaces")})
    findings = guard(root).findings
    moved = by_rule(findings, "object-moved-deleted")
    assert [f.details["object"] for f in moved] == (["_apps__Namespace"] if refused else [])
    assert bool(blocking(findings)) is refused
    if refused:
        assert "ConfigMap apps/app-config" in moved[0].message
    else:
        assert [f.details["object"] for f in by_rule(findings, "object-moved")] == ["_apps__Namespace"]
