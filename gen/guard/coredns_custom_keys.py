"""kube-system/coredns-custom keys end `.server`/`.override`; overrides carry no root `forward .`.

AKS (and k3s, which imports the same globs) load only `*.server` files (whole server blocks) and
`*.override` files (lines spliced into the default `.:53` block) from coredns-custom; any other
key is silently ignored. A root `forward .` in an override is rejected or ignored on AKS (the
default block already forwards `.`; on k3s the first forward wins). Applies wherever a build
produces that ConfigMap; no platform guess is needed.

PASS: keys `corp.server`, `log.override`.
FAIL: key `corp.conf`, or `upstream.override: forward . 10.0.0.1` -> error at `data:`.
"""

from __future__ import annotations

from typing import Iterator

from gen.corefile import CorefileError, is_root_forward, parse_directives
from gen.finding import Finding, Severity
from gen.guard.change import Change, ClusterObjects, Violation
from gen.guard.model import ObjKey

ID = "coredns-custom-keys"
SEVERITY = Severity.ERROR
CUSTOM = ObjKey("kube-system", "coredns-custom", "", "ConfigMap")


def violations(objects: ClusterObjects, previous: ClusterObjects) -> Iterator[Violation]:
    if CUSTOM not in objects:
        return
    ks, obj = objects[CUSTOM]
    for key, text in sorted((obj.get("data") or {}).items()):
        key = str(key)
        if not key.endswith((".server", ".override")):
            yield Violation(ks, CUSTOM, f"coredns-custom key {key!r} ends neither .server nor .override, "
                            "so CoreDNS never loads it", f"rename it to {key.rsplit('.', 1)[0]}.server (a whole server "
                            "block) or .override (lines inside the default block)", "data")
        elif key.endswith(".override") and isinstance(text, str):
            try:
                directives = parse_directives(text, filename=key)
            except CorefileError:
                continue
            if any(is_root_forward(d) for d in directives):
                yield Violation(ks, CUSTOM, f"coredns-custom key {key!r} has a root `forward .`, which the default "
                                "block already has: it is rejected or ignored",
                                "forward a zone instead in a .server key, e.g. `corp.example:53 { forward . 10.0.0.53 }`",
                                "data")


def check(change: Change) -> Iterator[Finding]:
    yield from change.invariant_findings(ID, SEVERITY, violations)
