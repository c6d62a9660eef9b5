"""helm-upgrade-deletes, from the renders of a release at both revisions, in memory."""

from __future__ import annotations

from gen.finding import Severity
from gen.guard.helm.release_upgrades import HelmLayer
from tests.guard.rules.change_builder import Ks, change, findings, obj, upgrade

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
