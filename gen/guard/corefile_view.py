"""The reviewer's view: the Corefile CoreDNS loads in each cluster a change touches, base -> head.

A DNS change is reviewed as YAML (a coredns-custom key, chart values), but what matters is the
Corefile CoreDNS ends up loading: the platform's stock Corefile with the keys spliced where it
imports them, or the Corefile the repository owns. gen/lint/effective.py decides which, from the
objects each cluster's builds apply; this module diffs base against head per touched cluster and
hands each change on as an `info` finding (rule `corefile-diff`, never blocking), so `--result`
envelopes and guard-merge carry it like any finding, and every output format can show it.
"""

from __future__ import annotations

import difflib
from typing import Any, Mapping

from gen.finding import Finding, Severity
from gen.guard.flux.platform_facts import ClusterFacts, folder_name
from gen.guard.model import ObjKey, Revision
from gen.lint.effective import Effective, effective_corefile
from gen.platforms import PLATFORMS

ID = "corefile-diff"
_KINDS = ("ConfigMap", "HelmChartConfig", "Addon")  # what can carry a Corefile or coredns-custom


def _dns_objects(rev: Revision, clusters: set[str]) -> dict[str, dict[ObjKey, dict[str, Any]] | None]:
    """Per cluster, the objects that may say what CoreDNS loads (first Kustomization wins, as Flux);
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
    return out


def corefile_views(revisions: Mapping[str, Revision], touched: set[str],
                   facts: Mapping[str, ClusterFacts]) -> list[Finding]:
    """One `corefile-diff` finding per touched cluster whose loaded Corefile changes."""
    objects = {label: _dns_objects(rev, touched) for label, rev in revisions.items()}
    out = []
    for cluster in sorted(touched):
        fact = facts.get(cluster) or ClusterFacts(folder_name(cluster), None, None)
        platform = PLATFORMS.get(fact.platform) if fact.platform else None
        held = {label: objects[label].get(cluster, {}) for label in ("base", "head")}
        if held["base"] is None or held["head"] is None:
            continue  # a build fails: build-failed says so, and a guess here would mislead
        sides = {label: effective_corefile(objs.values(), platform, fact.release)
                 for label, objs in held.items() if objs is not None}
        base, head = sides["base"], sides["head"]
        if base == head:
            continue
        out.append(_finding(cluster, fact, base, head))
    return out


def _finding(cluster: str, fact: ClusterFacts, base: Effective | None, head: Effective | None) -> Finding:
    before = base.text if base else ""
    after = head.text if head else ""
    diff = "".join(difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                        f"{fact.name}: Corefile at base", f"{fact.name}: Corefile at head"))
    if diff and not diff.endswith("\n"):
        diff += "\n"
    lines = diff.splitlines()[2:]
    added = sum(1 for line in lines if line.startswith("+"))
    removed = sum(1 for line in lines if line.startswith("-"))
    change = f"+{added} -{removed} lines" if diff else "same text, read from elsewhere"
    message = f"the Corefile CoreDNS loads in cluster {fact.name} changes ({change})"
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
    }
    return Finding(ID, Severity.INFO, cluster, 1, message, details=details)
