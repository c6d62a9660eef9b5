"""The reviewer's view: the Corefile CoreDNS loads in each cluster a change touches, base -> head.

A DNS change is reviewed as YAML (a coredns-custom key, chart values), but what matters is the
Corefile CoreDNS ends up loading: the platform's stock Corefile with the keys spliced where it
imports them, or the Corefile the repository owns. gen/lint/effective.py decides which, from the
objects each cluster's builds apply; this module diffs base against head per touched cluster and
hands each change on as an `info` finding (rule `corefile-diff`, never blocking), so `--result`
envelopes and guard-merge carry it like any finding, and every output format can show it.

A change that moves the cluster to another platform release (`platformVersion` of its values
file, or a release its upgrade objects record: gen/guard/upgrades.py) also carries the diff of
the platform's own stock Corefiles for the two releases (gen/platforms/drift.py), even when
what CoreDNS loads does not change: a repository-owned Corefile keeps the old defaults.
"""

from __future__ import annotations

import difflib
from typing import Any, Mapping

from gen.finding import Finding, Severity
from gen.guard.flux.platform_facts import ClusterFacts, folder_name
from gen.guard.model import ObjKey, Revision
from gen.lint.effective import Effective, effective_corefile
from gen.guard.upgrades import Recorded, recorded_releases
from gen.platforms import PLATFORMS
from gen.platforms.drift import StockDrift, stock_drift

ID = "corefile-diff"
_KINDS = ("ConfigMap", "HelmChartConfig", "Addon")  # what can carry a Corefile or coredns-custom


def _dns_objects(rev: Revision, clusters: set[str],
                 helm: Mapping[str, dict[ObjKey, dict[str, Any]]]) -> dict[str, dict[ObjKey, dict[str, Any]] | None]:
    """Per cluster, the objects that may say what CoreDNS loads (first Kustomization wins, as Flux;
    then what the Helm releases the change upgrades render, e.g. the coredns chart's ConfigMap);
    None for a cluster with a Kustomization that does not build: what it applies is not known."""
    out: dict[str, dict[ObjKey, dict[str, Any]] | None] = {}
    for ref in sorted(rev.nodes):
        node = rev.nodes[ref]
        if ref.cluster not in clusters:
            continue
        if node.build.error is not None:
            out[ref.cluster] = None
        if out.get(ref.cluster, {}) is None:
            continue
        held = out.setdefault(ref.cluster, {})
        assert held is not None
        for key, obj in node.build.objects.items():
            if key.kind in _KINDS and key.namespace == "kube-system":
                held.setdefault(key, obj)
    for cluster, rendered in sorted(helm.items()):
        held_by = out.get(cluster, {}) if cluster in clusters else None
        if held_by is None:
            continue
        out[cluster] = held_by
        for key, obj in rendered.items():
            if key.kind in _KINDS and key.namespace == "kube-system":
                held_by.setdefault(key, obj)
    return out


def corefile_views(revisions: Mapping[str, Revision], touched: set[str],
                   facts: Mapping[str, ClusterFacts], base_facts: Mapping[str, ClusterFacts] | None = None,
                   helm: Mapping[str, Mapping[str, dict[ObjKey, dict[str, Any]]]] | None = None) -> list[Finding]:
    """One `corefile-diff` finding per touched cluster whose loaded Corefile changes, or whose
    platform release changes (`base_facts`: what the values files at base say)."""
    # a values file is read by no build: bumping only its platformVersion touches no cluster
    bumped = {c for c, f in facts.items() if base_facts is not None and c in base_facts
              and _drift(_release(base_facts[c], {}), _release(f, {})) is not None}
    objects = {label: _dns_objects(rev, touched | bumped, (helm or {}).get(label, {})) for label, rev in revisions.items()}
    recorded = {label: recorded_releases(rev, touched | bumped) for label, rev in revisions.items()}
    out = []
    built = {label: {ref.cluster for ref in rev.nodes} for label, rev in revisions.items()}
    for cluster in sorted(touched | bumped):
        fact = facts.get(cluster) or ClusterFacts(folder_name(cluster), None, None)
        old = base_facts.get(cluster) if base_facts is not None else fact  # none given: the head's values stand
        if cluster not in touched and not all(cluster in built[label] for label in ("base", "head")):
            out.append(_untouched(cluster, fact, _drift(_release(old, {}), _release(fact, {}))))
            continue
        platform = PLATFORMS.get(fact.platform) if fact.platform else None
        held = {label: objects[label].get(cluster, {}) for label in ("base", "head")}
        if held["base"] is None or held["head"] is None:
            continue  # a build fails: build-failed says so, and a guess here would mislead
        releases = {"head": _release(fact, recorded["head"].get(cluster, {})),
                    "base": _release(old, recorded["base"].get(cluster, {}))}
        sides = {label: effective_corefile(objs.values(), platform, _at(releases[label], fact))
                 for label, objs in held.items() if objs is not None}
        drift = _drift(releases["base"], releases["head"])
        base, head = sides["base"], sides["head"]
        if base == head and drift is None:
            continue
        out.append(_finding(cluster, fact, base, head, drift))
    return out


def _release(fact: ClusterFacts | None, recorded: Mapping[str, Recorded]) -> tuple[str, str, str] | None:
    """(platform, release, where it is written): the values file's `platformVersion` first,
    else the one release the cluster's upgrade objects record for its platform."""
    if fact is not None and fact.platform and fact.release:
        return fact.platform, fact.release, "platformVersion"
    candidates = [r for p, r in recorded.items() if fact is None or fact.platform is None or p == fact.platform]
    if len(candidates) == 1:
        return candidates[0].platform, candidates[0].release, candidates[0].where
    return None


def _at(release: tuple[str, str, str] | None, fact: ClusterFacts) -> str | None:
    """The release to read a side's stock Corefile at: that side's own, on the head's platform."""
    if release is not None and release[0] == fact.platform:
        return release[1]
    return fact.release


def _drift(base: tuple[str, str, str] | None, head: tuple[str, str, str] | None) -> StockDrift | None:
    """The stock Corefile drift when the cluster stays on one platform and changes release."""
    if base is None or head is None or base[0] != head[0]:
        return None
    return stock_drift(head[0], base[1], head[1])


def _untouched(cluster: str, fact: ClusterFacts, drift: StockDrift | None) -> Finding:
    """A cluster whose values file changes release while nothing it applies changes."""
    assert drift is not None
    same = "not rebuilt: nothing this cluster applies changes"
    return Finding(ID, Severity.INFO, cluster, 1,
                   f"the Corefile CoreDNS loads in cluster {fact.name} does not change (+0 -0 lines); {drift.summary()}",
                   details={"cluster": cluster, "cluster_name": fact.name, "platform": fact.platform or "",
                            "base_origin": same, "head_origin": same, "base": "", "head": "", "diff": "",
                            **drift.as_details()})


def _finding(cluster: str, fact: ClusterFacts, base: Effective | None, head: Effective | None,
             drift: StockDrift | None = None) -> Finding:
    before = base.text if base else ""
    after = head.text if head else ""
    diff = "".join(difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                        f"{fact.name}: Corefile at base", f"{fact.name}: Corefile at head"))
    if diff and not diff.endswith("\n"):
        diff += "\n"
    lines = diff.splitlines()[2:]
    added = sum(1 for line in lines if line.startswith("+"))
    removed = sum(1 for line in lines if line.startswith("-"))
    if base == head:
        message = f"the Corefile CoreDNS loads in cluster {fact.name} does not change (+0 -0 lines)"
    else:
        change = f"+{added} -{removed} lines" if diff else "same text, read from elsewhere"
        message = f"the Corefile CoreDNS loads in cluster {fact.name} changes ({change})"
    if drift is not None:
        message += f"; {drift.summary()}"
    if head and head.problem:
        message += f"; at head it does not parse: {head.problem}"
    details = {
        "cluster": cluster,
        "cluster_name": fact.name,
        "platform": fact.platform or "",
        "base_origin": base.origin if base else "nothing of cluster DNS is applied",
        "head_origin": head.origin if head else "nothing of cluster DNS is applied",
        "base": before,
        "head": after,
        "diff": diff,
        **(drift.as_details() if drift is not None else {}),
    }
    return Finding(ID, Severity.INFO, cluster, 1, message, details=details)
