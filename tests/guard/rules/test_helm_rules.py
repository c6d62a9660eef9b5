"""The Helm rules from values in memory: helm-upgrade-deletes (the renders of a release at both
revisions), helm-chart-not-judged (a chart kept here), helm-release-not-judged (a release the Helm
layer could not render) and helmrelease-retargeted (a release whose target changes)."""

from __future__ import annotations

from gen.finding import Severity
from gen.guard.flux.charts import RefChart
from gen.guard.helm.release_upgrades import HelmLayer, NotRendered
from gen.guard.model import ObjKey
from tests.guard.rules.change_builder import CLUSTER, Ks, change, findings, obj, upgrade

CONFIG = obj("ConfigMap", "qbittorrent-config", namespace="media")
DEPLOYMENT = obj("Deployment", "qbittorrent", namespace="media", api="apps/v1")
HEAD_RELEASE = (Ks("apps"),)


def _judged(*upgrades):
    return change(HEAD_RELEASE, HEAD_RELEASE, helm=HelmLayer(upgrades=tuple(upgrades)),
                  written={("media", "qbittorrent", "helm.toolkit.fluxcd.io", "HelmRelease"): ("apps/qbittorrent.yaml", 4)})


def test_an_upgrade_that_drops_a_configmap_is_refused_at_the_release():
    [found] = findings(_judged(upgrade("qbittorrent", [CONFIG, DEPLOYMENT], [DEPLOYMENT])), "helm-upgrade-deletes")
    assert (found.severity, found.file, found.line) == (Severity.ERROR, "apps/qbittorrent.yaml", 4)
    assert "deletes ConfigMap media/qbittorrent-config" in found.message
    assert found.details["helmrelease"] == "media_qbittorrent_helm.toolkit.fluxcd.io_HelmRelease"


def test_an_upgrade_that_keeps_everything_or_keeps_by_annotation_is_no_finding():
    assert findings(_judged(upgrade("qbittorrent", [CONFIG, DEPLOYMENT], [CONFIG, DEPLOYMENT])), "helm-upgrade-deletes") == []
    kept = {**CONFIG, "metadata": {**CONFIG["metadata"], "annotations": {"helm.sh/resource-policy": "keep"}}}
    assert findings(_judged(upgrade("qbittorrent", [kept, DEPLOYMENT], [DEPLOYMENT])), "helm-upgrade-deletes") == []


def test_other_kinds_and_suspended_releases_are_warnings():
    [other] = findings(_judged(upgrade("qbittorrent", [CONFIG, DEPLOYMENT], [CONFIG])), "helm-upgrade-deletes")
    assert other.severity is Severity.WARNING and "Deployment media/qbittorrent" in other.message
    [suspended] = findings(_judged(upgrade("qbittorrent", [CONFIG], [], suspended=True)), "helm-upgrade-deletes")
    assert suspended.severity is Severity.WARNING and "once it is resumed" in suspended.message


def test_a_configmap_moving_into_a_kustomization_is_refused_and_said_so():
    judged = change([Ks("apps")], [Ks("apps", (CONFIG,))], helm=HelmLayer(upgrades=(
        upgrade("qbittorrent", [CONFIG, DEPLOYMENT], [DEPLOYMENT]),)))
    [found] = findings(judged, "helm-upgrade-deletes")
    assert found.severity is Severity.ERROR and found.details["moved_to_kustomization"] == "yes"


# --- helm-chart-not-judged: a chart of this repository that a HelmRelease renders --------------

HELM = "helm.toolkit.fluxcd.io"
EXTRAS = ObjKey("kube-system", "dns-extras", HELM, "HelmRelease")
CHART_FILE = "charts/dns-extras/templates/coredns-custom.yaml"


def _release(spec):
    return obj("HelmRelease", "dns-extras", api=f"{HELM}/v2", spec=spec)


IN_GIT = _release({"chart": {"spec": {"chart": "./charts/dns-extras",
                                      "sourceRef": {"kind": "GitRepository", "name": "flux-system",
                                                    "namespace": "flux-system"}}}})
BY_REF = _release({"chartRef": {"kind": "OCIRepository", "name": "dns-chart", "namespace": "flux-system"}})


def test_a_change_to_a_chart_kept_here_is_refused_at_the_file():
    judged = change([Ks("apps", (IN_GIT,))], [Ks("apps", (IN_GIT,))], changed=[CHART_FILE, "README.md"])
    [found] = findings(judged, "helm-chart-not-judged")
    assert (found.severity, found.file, found.line) == (Severity.ERROR, CHART_FILE, 1)
    assert found.message.startswith("HelmRelease kube-system/dns-extras renders chart ./charts/dns-extras of "
                                    "GitRepository flux-system/flux-system, and this change touches 1 file of it")
    assert (found.details["object"], found.details["files"]) == (EXTRAS.id, CHART_FILE)
    assert found.hint.endswith(f"--allow {EXTRAS.id}")


def test_a_chart_change_elsewhere_or_judged_by_the_helm_layer_is_no_finding():
    kept = [Ks("apps", (IN_GIT,))]
    assert findings(change(kept, kept, changed=["dns/corefile.yaml"]), "helm-chart-not-judged") == []
    rendered = HelmLayer(not_rendered=(NotRendered(CLUSTER, EXTRAS, Ks("apps").ref, ("chart",), "no network", ""),))
    assert findings(change(kept, kept, changed=[CHART_FILE], helm=rendered), "helm-chart-not-judged") == []


def test_a_chart_ref_counts_when_its_artifact_is_made_of_this_repository():
    kept = [Ks("apps", (BY_REF,))]
    ours = RefChart("OCIRepository flux-system/dns-chart (pushed from ./charts/dns-extras)",
                    files=frozenset({CHART_FILE}))
    [found] = findings(change(kept, kept, changed=[CHART_FILE], ref_charts={"head": {(CLUSTER, EXTRAS): [ours]}}),
                       "helm-chart-not-judged")
    assert found.file == CHART_FILE and "OCIRepository flux-system/dns-chart" in found.message
    remote = RefChart("OCIRepository flux-system/dns-chart", elsewhere="oci://ghcr.io/acme/charts is a registry")
    assert findings(change(kept, kept, changed=[CHART_FILE], ref_charts={"head": {(CLUSTER, EXTRAS): [remote]}}),
                    "helm-chart-not-judged") == []


# --- helm-release-not-judged: an upgrade the Helm layer could not render ----------------------

def test_a_release_the_helm_layer_could_not_render_is_refused_at_the_release():
    missed = NotRendered(CLUSTER, EXTRAS, Ks("apps").ref, ("chart version 3.5.1 -> 3.6.0",),
                         "oci://ghcr.io/acme/charts cannot be reached", "mirror it in .coredns-gen.yaml guard.helm")
    judged = change([Ks("apps")], [Ks("apps")], helm=HelmLayer(not_rendered=(missed,)),
                    written={EXTRAS: ("apps/dns-extras.yaml", 7)})
    [found] = findings(judged, "helm-release-not-judged")
    assert (found.severity, found.file, found.line) == (Severity.ERROR, "apps/dns-extras.yaml", 7)
    assert found.message.startswith("HelmRelease kube-system/dns-extras changes (chart version 3.5.1 -> 3.6.0)")
    assert "oci://ghcr.io/acme/charts cannot be reached" in found.message
    assert found.hint == f"mirror it in .coredns-gen.yaml guard.helm; if nothing in place is lost, allow it with --allow {EXTRAS.id}"
    assert found.details["why"] == "oci://ghcr.io/acme/charts cannot be reached"
    assert findings(change([Ks("apps")], [Ks("apps")]), "helm-release-not-judged") == []


# --- helmrelease-retargeted: a HelmRelease whose release target changes ------------------------

SONARR = ObjKey("media", "sonarr-4k", HELM, "HelmRelease")
FROM_REPOSITORY = {"chart": {"spec": {"chart": "sonarr", "sourceRef": {"kind": "HelmRepository", "name": "charts",
                                                                      "namespace": "flux-system"}}}}


def _sonarr(**spec):
    return obj("HelmRelease", "sonarr-4k", namespace="media", api=f"{HELM}/v2", spec=spec)


def _retargeted(base, head):
    return findings(change([Ks("apps", (base,))], [Ks("apps", (head,))], written={SONARR: ("apps/sonarr-4k.yaml", 9)}),
                    "helmrelease-retargeted")


def test_a_release_name_change_uninstalls_the_release_and_is_refused():
    [found] = _retargeted(_sonarr(**FROM_REPOSITORY), _sonarr(targetNamespace="media", **FROM_REPOSITORY))
    assert (found.severity, found.file, found.line) == (Severity.ERROR, "apps/sonarr-4k.yaml", 9)
    assert found.message.startswith("HelmRelease media/sonarr-4k changes its release target "
                                    "(release name sonarr-4k -> media-sonarr-4k): helm-controller uninstalls "
                                    "release media/sonarr-4k")
    assert (found.details["object"], found.details["fate"]) == (SONARR.id, "uninstalled")


def test_a_suspended_release_is_a_warning_and_an_unchanged_or_new_one_no_finding():
    [found] = _retargeted(_sonarr(**FROM_REPOSITORY), _sonarr(targetNamespace="media", suspend=True, **FROM_REPOSITORY))
    assert found.severity is Severity.WARNING and "once it is resumed" in found.message
    assert _retargeted(_sonarr(**FROM_REPOSITORY), _sonarr(interval="5m", **FROM_REPOSITORY)) == []
    assert findings(change([Ks("apps")], [Ks("apps", (_sonarr(targetNamespace="media", **FROM_REPOSITORY),))]),
                    "helmrelease-retargeted") == []


def test_a_chart_moving_to_a_source_whose_chart_name_is_unknown_is_refused_unless_updated_in_place():
    by_ref = {"chartRef": {"kind": "OCIRepository", "name": "sonarr"}}
    [found] = _retargeted(_sonarr(**FROM_REPOSITORY), _sonarr(**by_ref))
    assert found.severity is Severity.ERROR and found.details["fate"] == "not-judged"
    assert "chartNameChangeStrategy: InPlaceUpdate" in found.hint
    in_place = _sonarr(upgrade={"chartNameChangeStrategy": "InPlaceUpdate"}, **by_ref)
    assert _retargeted(_sonarr(**FROM_REPOSITORY), in_place) == []
