"""Every `kubernetes` option must exist in the target CoreDNS, or the Corefile is refused.

The plugin's setup rejects what it does not parse with "unknown property". The table
(gen/lint/option_releases.py KUBERNETES_OPTIONS, read off plugin/kubernetes/setup.go at every tag from
v1.6.9) gives the release each option came and went: `upstream`, still in old AKS and
kubeadm Corefiles, is refused from 1.7.0 (measured: 1.11.3 and 1.13.1 refuse it). Releases
before 1.6.9 are not judged.

PASS (--coredns-version 1.13.1): `kubernetes cluster.local { pods insecure  startup_timeout 10s }`
FAIL (--coredns-version 1.13.1): `kubernetes cluster.local { upstream }` -> error at `upstream`;
`startup_timeout` at 1.12.2.
"""

from __future__ import annotations

from typing import Iterator

from gen.corefile import has_placeholder
from gen.finding import Finding, Severity
from gen.lint.context import LintContext, at
from gen.lint.option_releases import KUBERNETES_OPTIONS, KUBERNETES_TABLE_FROM

ID = "kubernetes-option-unsupported"
SEVERITY = Severity.ERROR
REFUSES = True  # an error finding means CoreDNS refuses to load the Corefile


def check(ctx: LintContext) -> Iterator[Finding]:
    if ctx.version < KUBERNETES_TABLE_FROM:
        return
    for _unit, block in ctx.blocks():
        for k8s in block.find("kubernetes"):
            for opt in k8s.block or []:
                if has_placeholder(opt.name):
                    continue
                known = KUBERNETES_OPTIONS.get(opt.name)
                refusal = f"{ctx.where()} refuses it (unknown property '{opt.name}')"
                if known is None:
                    names = ", ".join(sorted(n for n, (since, gone) in KUBERNETES_OPTIONS.items()
                                             if since <= ctx.version and (gone is None or ctx.version < gone)))
                    yield at(ID, SEVERITY, opt, f"`{opt.name}` is not a kubernetes option; {refusal}", f"use one of: {names}")
                elif ctx.version < known[0]:
                    yield at(ID, SEVERITY, opt, f"kubernetes option `{opt.name}` needs CoreDNS ≥ {known[0]}; {refusal}",
                             f"upgrade CoreDNS to ≥ {known[0]}, or remove `{opt.name}`")
                elif known[1] is not None and ctx.version >= known[1]:
                    yield at(ID, SEVERITY, opt, f"kubernetes option `{opt.name}` was removed in CoreDNS {known[1]}; {refusal}",
                             f"remove `{opt.name}`" + (" (the kubernetes plugin resolves external names through CoreDNS itself since 1.7.0)"
                                                       if opt.name == "upstream" else ""))
