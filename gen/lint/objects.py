"""Lint's rules over objects already in memory: the guard's DNS invariants ask lint, not a copy.

The guard builds each cluster with kustomize and holds plain objects, not files; this turns
ConfigMaps kube-system/coredns and coredns-custom into lint's inputs (each key a source named
`<configmap>/<key>`) and runs the named rules on them, so "a `next` with no forward after it"
or "a key CoreDNS never imports" is decided once, in gen/lint, for `lint` and `guard` alike.
The guard names the facts it asks by rule id (Fact), so no guard module imports a lint rule.
"""

from __future__ import annotations

from typing import Any, Iterable, Literal

from gen.corefile import Source
from gen.finding import Finding
from gen.lint.context import LintContext, Rule, build_units
from gen.lint.inputs import ConfigMapDoc, Inputs
from gen.lint.option_releases import NEWEST
from gen.lint.rules import custom_key_ignored, forward_next_ignored, forward_unreachable, override_root_forward
from gen.platforms.base import Platform
from gen.platforms.stock import stock_corefile
from gen.versions import Version

NAMES = ("coredns", "coredns-custom")

# The lint rules whose facts the guard's DNS invariants ask (gen/guard/rules/coredns_custom_keys.py,
# next_needs_forward.py, managed_corefile_kept.py); docs/lint.md describes each.
Fact = Literal["custom-key-ignored", "forward-next-ignored", "forward-unreachable", "override-root-forward"]
FACTS: dict[Fact, Rule] = {"custom-key-ignored": custom_key_ignored, "forward-next-ignored": forward_next_ignored,
                           "forward-unreachable": forward_unreachable, "override-root-forward": override_root_forward}


def rules_for(facts: Iterable[Fact]) -> list[Rule]:
    """The lint rules that decide `facts`, in the order asked."""
    return [FACTS[fact] for fact in facts]


def inputs_from_objects(objects: Iterable[dict[str, Any]]) -> Inputs:
    inputs = Inputs()
    for obj in objects:
        meta = obj.get("metadata") or {}
        name, namespace = str(meta.get("name", "")), str(meta.get("namespace", "") or "")
        if obj.get("kind") != "ConfigMap" or namespace != "kube-system" or name not in NAMES:
            continue
        data = {str(k): v for k, v in (obj.get("data") or {}).items()}
        sources = {k: Source(v, f"{name}/{k}", label=k) for k, v in data.items() if isinstance(v, str)}
        inputs.configmaps.append(ConfigMapDoc(name, namespace, name, 1, sources, {k: 1 for k in data}))
    return inputs


def lint_objects(objects: Iterable[dict[str, Any]], rules: Iterable[Rule], platform: Platform | None = None,
                 version: Version = NEWEST) -> list[Finding]:
    """Findings of `rules` on the objects' coredns ConfigMaps; with `platform`, its stock Corefile
    stands in for a main Corefile the objects do not hold (as `lint --platform` does).

    Raises:
        CorefileError: a key that does not parse (the guard leaves that to `coredns-gen lint`).
    """
    inputs = inputs_from_objects(objects)
    stock = None
    if platform is not None and not inputs.main_corefiles():
        text = stock_corefile(platform, None)
        stock = Source(text, f"<{platform.NAME} stock Corefile>") if text else None
    ctx = LintContext(build_units(inputs, stock), inputs, version, platform.NAME if platform else None)
    return [f for rule in rules for f in rule.check(ctx) if stock is None or f.file != stock.filename]


def lint_text(text: str, rules: Iterable[Rule], filename: str = "Corefile", version: Version = NEWEST) -> list[Finding]:
    """Findings of `rules` on one Corefile text (a platform renders it from chart or add-on values).

    Raises:
        CorefileError: the text does not parse.
    """
    inputs = Inputs(corefiles=[Source(text, filename)])
    ctx = LintContext(build_units(inputs), inputs, version)
    return [f for rule in rules for f in rule.check(ctx)]
