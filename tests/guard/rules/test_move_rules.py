"""object-moved, object-moved-pruned and object-moved-deleted, from values in memory."""

from __future__ import annotations

from gen.finding import Severity
from tests.guard.rules.change_builder import Ks, change, findings, obj

METRICS = obj("Service", "dns-metrics")
CUSTOM = obj("ConfigMap", "coredns-custom")


def test_an_object_moving_to_another_kustomization_is_a_warning():
    judged = change([Ks("platform", (METRICS,)), Ks("dns")], [Ks("platform"), Ks("dns", (METRICS,))])
    [found] = findings(judged, "object-moved")
    assert found.severity is Severity.WARNING
    assert found.details["kustomization"] == "flux-system/platform" and found.details["moved_to"] == "flux-system/dns"
    assert findings(judged, "object-pruned") == []  # moved, not deleted


def test_a_move_that_depends_on_orders_is_no_finding():
    base = [Ks("platform", (METRICS,), depends_on=("dns",)), Ks("dns")]
    head = [Ks("platform", depends_on=("dns",)), Ks("dns", (METRICS,))]
    assert findings(change(base, head), "object-moved") == []


def test_a_configmap_moving_away_from_a_kustomization_that_prunes_is_refused():
    judged = change([Ks("platform", (CUSTOM,)), Ks("dns")], [Ks("platform"), Ks("dns", (CUSTOM,))])
    [found] = findings(judged, "object-moved-pruned")
    assert found.severity is Severity.ERROR and found.details["moved_to"] == "flux-system/dns"
    assert findings(judged, "object-moved") == []  # refused, not only warned


def test_a_configmap_moving_out_of_a_deleted_kustomization_is_refused():
    judged = change([Ks("platform", (CUSTOM,)), Ks("dns")], [Ks("dns", (CUSTOM,))])
    [found] = findings(judged, "object-moved-deleted")
    assert found.severity is Severity.ERROR and found.details["kustomization"] == "flux-system/platform"
    assert findings(judged, "object-moved-pruned") == []
