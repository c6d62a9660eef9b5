"""not-judged-touched, from a Kustomization the guard could not judge, in memory."""

from __future__ import annotations

from gen.finding import Severity
from gen.guard.model import KsRef
from gen.guard.unjudged import Unjudged
from tests.guard.rules.change_builder import CLUSTER, Ks, change, findings

OTHER = ("GitRepository", "flux-system", "other-repo")


def _unjudged(reads=frozenset(), folders=("apps",)):
    return Unjudged(KsRef(CLUSTER, "flux-system", "apps"), "source", "its source is another repository", OTHER,
                    "apps", frozenset(reads), folders)


def test_a_change_to_a_file_it_may_read_is_refused():
    judged = change([Ks("dns")], [Ks("dns")], changed=["apps/x/helmrelease.yaml", "README.md"], unjudged=[_unjudged()])
    [found] = findings(judged, "not-judged-touched")
    assert (found.severity, found.file) == (Severity.ERROR, "apps/x/helmrelease.yaml")
    assert found.details["files"] == "apps/x/helmrelease.yaml"
    assert "guard.sources" in found.hint and "--allow ks:flux-system/apps" in found.hint


def test_a_change_elsewhere_is_no_finding():
    assert findings(change([Ks("dns")], [Ks("dns")], changed=["dns/corefile.yaml"], unjudged=[_unjudged()]),
                    "not-judged-touched") == []
    assert findings(change([Ks("dns")], [Ks("dns")], unjudged=[_unjudged()]), "not-judged-touched") == []


def test_a_file_a_judged_kustomization_reads_is_judged_there_unless_it_reads_it_too():
    shared = "apps/common/values.yaml"
    dns = Ks("dns", inputs=(shared,))
    assert findings(change([dns], [dns], changed=[shared], unjudged=[_unjudged()]), "not-judged-touched") == []
    [found] = findings(change([dns], [dns], changed=[shared], unjudged=[_unjudged(reads={shared})]), "not-judged-touched")
    assert found.file == shared
