"""RKE2's chart values and the EKS add-on's configurationValues keep a Corefile CoreDNS can serve.

On RKE2 the repo's HelmChartConfig kube-system/rke2-coredns sets the chart's whole `servers`
list, and on EKS an ACK Addon `coredns` may set the add-on's whole `corefile`: a hand edit that
drops the default server's `kubernetes`, `health` or `ready` leaves cluster names unresolved or
the pods failing the probes both charts define (/health on :8080, /ready on :8181), and a
`forward` with `next` and no forward after it returns the failure (lint's forward-next-ignored). The Corefile judged is the
one the platform renders from those values (the rke2-coredns chart's template as
gen/platforms/rke2_chart.py ports it, newest vendored chart; the add-on's `corefile` as
written); values that do not parse are a violation too (the platform would refuse them).

PASS: the rendered valuesContent; a configurationValues without `corefile` (the add-on's own).
FAIL: `servers` without the `ready` plugin -> error at the object's `spec` line.
"""

from __future__ import annotations

from typing import Iterator

from gen.corefile import CorefileError, parse_corefile
from gen.finding import Finding, Severity
from gen.guard.change import Change, ClusterObjects, Violation
from gen.guard.model import KsRef, ObjKey
from gen.lint.effective import managed_corefile
from gen.lint.objects import lint_text, rules_for

ID = "managed-corefile-kept"
SEVERITY = Severity.ERROR
CHART_CONFIG = ObjKey("kube-system", "rke2-coredns", "helm.cattle.io", "HelmChartConfig")
REQUIRED = ("kubernetes", "health", "ready")


def _zone(key: str) -> str:
    """`dns://.:53` -> `.`"""
    bare = key.split("://", 1)[-1]
    return bare.rsplit(":", 1)[0] if ":" in bare else bare


def _problems(text: str) -> Iterator[tuple[str, str]]:
    try:
        blocks = parse_corefile(text, filename="Corefile").server_blocks
    except CorefileError as err:
        yield f"its Corefile does not parse ({err}), so CoreDNS would refuse it", "fix the Corefile syntax"
        return
    root = [b for b in blocks if any(_zone(k) == "." for k in b.keys)]
    if not root:
        yield "its Corefile has no server for `.`: every name outside the extra zones goes unanswered", \
            "keep the platform's default `.:53` server"
    for block in root:
        names = {d.name for d in block.directives}
        for plugin in REQUIRED:
            if plugin not in names:
                yield (f"its default server has no `{plugin}`" + (": cluster names stop resolving" if plugin == "kubernetes"
                       else ": the CoreDNS pods fail their probes and DNS goes down")), f"keep the platform's `{plugin}` plugin"
    for f in lint_text(text, rules_for(["forward-next-ignored"])):  # the fact is lint's, decided once
        yield f"line {f.line}: {f.message}", f.hint


def _managed(key: ObjKey, obj: dict[str, object]) -> bool:
    if key == CHART_CONFIG:
        return True
    spec = obj.get("spec")
    return key.kind == "Addon" and key.group == "eks.services.k8s.aws" and isinstance(spec, dict) and spec.get("name") == "coredns"


def violations(objects: ClusterObjects, previous: ClusterObjects) -> Iterator[Violation]:
    for key, (ks, obj) in sorted(objects.items()):
        if not _managed(key, obj):
            continue
        yield from _judge(ks, key, obj)


def _judge(ks: KsRef, key: ObjKey, obj: dict[str, object]) -> Iterator[Violation]:
    try:
        managed = managed_corefile(obj)
    except ValueError as err:
        yield Violation(ks, key, f"{key.ref}: {err}", "fix the values so the platform can read them", "spec")
        return
    text = managed[1] if managed is not None else None
    if text is None:
        return  # the add-on keeps its own corefile
    for problem, hint in _problems(text):
        yield Violation(ks, key, f"{key.ref}: {problem}", hint, "spec")


def check(change: Change) -> Iterator[Finding]:
    yield from change.invariant_findings(ID, SEVERITY, violations)
