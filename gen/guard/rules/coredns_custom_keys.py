"""kube-system/coredns-custom keys end `.server`/`.override`; on AKS no override has a root `forward .`.

AKS and k3s both load only `*.server` files (whole server blocks) and `*.override` files (lines
spliced into the default `.:53` block) from coredns-custom; any other key is silently ignored, so
the suffix check applies wherever a build produces that ConfigMap.

Both facts are lint's rules (`custom-key-ignored`; `override-root-forward` and
`forward-unreachable` with the overrides spliced into the platform's own Corefile), run on the
head build's ConfigMaps (gen/lint/objects.py). A root `forward .` in an override is wrong where
the platform's Corefile imports overrides *after* its own root forward: AKS does, k3s (since v1.34.2/v1.32.10) and Gardener import them *before* it, which is
how coredns-gen's k3s and Gardener renders chain `next` into it. So that check is an error on a
cluster whose platform is a fact (platform_facts.py: a values file or `.coredns-gen.yaml` says
`platform: aks`; or the object names it, `coredns-gen.io/platform`, as the render writes it). Where no fact says what the cluster
runs, content is evidence for a warning only: coredns-custom carries `kustomize.toolkit.fluxcd.io/ssa:
Merge` (AKS creates the object; the repo merges its keys into it) or an `addonmanager.kubernetes.io`
or `kubernetes.azure.com` marker, in a cluster with no k3s evidence (see k3s-hpa-min-replicas).

PASS: keys `corp.server`, `log.override`; a k3s override `forward . 10.0.0.53 { next SERVFAIL }`.
FAIL: key `corp.conf`; on AKS by fact, `upstream.override: forward . 10.0.0.1` -> error at `data:`
      (AKS by content only: warning).
"""

from __future__ import annotations

from typing import Any, Iterator

from gen.corefile import CorefileError
from gen.finding import Finding, Severity
from gen.guard.change import Change, ClusterObjects, Violation
from gen.guard.evidence import k3s_marker
from gen.guard.model import ObjKey
from gen.platforms import PLATFORMS
from gen.platforms.base import PLATFORM_ANNOTATION, Platform
from gen.lint.objects import Fact, lint_objects, rules_for

ID = "coredns-custom-keys"
SEVERITY = Severity.ERROR
CUSTOM = ObjKey("kube-system", "coredns-custom", "", "ConfigMap")
KEY_IGNORED: Fact = "custom-key-ignored"  # lint decides it for `lint` and `guard` alike (gen/lint/objects.py)


def aks_marker(obj: dict[str, Any]) -> str | None:
    meta = obj.get("metadata") or {}
    annotations = meta.get("annotations") or {}
    if str(annotations.get("kustomize.toolkit.fluxcd.io/ssa", "")).lower() == "merge":
        return "kustomize.toolkit.fluxcd.io/ssa: Merge"
    for section in ("labels", "annotations"):
        for name in meta.get(section) or {}:
            if str(name).startswith(("addonmanager.kubernetes.io/", "kubernetes.azure.com/")):
                return str(name)
    return None


def platform_of(obj: dict[str, Any], objects: ClusterObjects, previous: ClusterObjects,
                platform: str | None) -> tuple[Platform | None, bool]:
    """(the cluster's platform, whether it was judged by content only)."""
    if platform is not None:
        return PLATFORMS.get(platform), False
    named = str(((obj.get("metadata") or {}).get("annotations") or {}).get(PLATFORM_ANNOTATION, ""))
    if named:
        return PLATFORMS.get(named), False
    if aks_marker(obj) is not None and k3s_marker(objects, previous) is None:
        return PLATFORMS["aks"], True
    return None, False


def violations(objects: ClusterObjects, previous: ClusterObjects, platform: str | None = None) -> Iterator[Violation]:
    if CUSTOM not in objects:
        return
    ks, obj = objects[CUSTOM]
    chosen, by_content = platform_of(obj, objects, previous, platform)
    main = ObjKey("kube-system", "coredns", "", "ConfigMap")
    held = [obj] + ([objects[main][1]] if main in objects else [])
    facts: list[Fact] = [KEY_IGNORED] + (["override-root-forward", "forward-unreachable"] if chosen is not None else [])
    try:
        findings = lint_objects(held, rules_for(facts), chosen)
    except CorefileError:
        return  # text that does not parse is left to `coredns-gen lint`
    for f in findings:
        if not f.file.startswith("coredns-custom") or f.severity is not Severity.ERROR:
            continue
        content = by_content and f.rule != KEY_IGNORED  # the suffix holds on every platform
        judged = f" ({chosen.NAME if chosen else ''} judged by content)" if content else ""
        yield Violation(ks, CUSTOM, f"{CUSTOM.ref}: {f.message}{judged}", f.hint, "data",
                        severity=Severity.WARNING if content else None)


def check(change: Change) -> Iterator[Finding]:
    yield from change.platform_invariant_findings(ID, SEVERITY, violations)
