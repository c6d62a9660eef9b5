"""A HelmRelease the change upgrades but the guard could not render: what the upgrade deletes is unknown.

The Helm layer (gen/guard/helm/release_upgrades.py) renders both revisions of each HelmRelease whose
inputs change. When it cannot (the chart cannot be fetched here: no network, no credentials, no
mirror; a chart of another repository or an ExternalArtifact; Helm refuses the chart or values; a
value the guard cannot read decides an object's name or the set of objects), the upgrade may
delete anything the release holds, so the change is refused, naming why and the fix. A HelmRelease
whose inputs do not change is never rendered and never refused here.

PASS: the HelmRelease's chart is fetched (or mirrored) and rendered at both revisions.
FAIL: its chart version moves from 3.5.1 to 3.6.0 and the registry cannot be reached -> error at
      the HelmRelease, with the mirror that would let the guard judge it.
"""

from __future__ import annotations

from collections.abc import Iterator

from gen.finding import Finding, Severity
from gen.guard.change import Change

ID = "helm-release-not-judged"
SEVERITY = Severity.ERROR


def check(change: Change) -> Iterator[Finding]:
    for missed in change.helm.not_rendered:
        file, line = change.locator.invariant_anchor(missed.ks, missed.key, "spec")
        fix = missed.fix or "render it with `helm template` at both revisions"
        yield Finding(
            ID, SEVERITY, file or ".", line,
            f"{missed.key.ref} changes ({', '.join(missed.changed)}), so helm-controller upgrades it, but the guard "
            f"could not render it: {missed.why}; what the upgrade deletes is unknown: refused" + change.where(missed.ks),
            f"{fix}; if nothing in place is lost, allow it with --allow {missed.key.id}",
            details={"object": missed.key.id, "cluster": missed.cluster, "kustomization": str(missed.ks),
                     "why": missed.why})
