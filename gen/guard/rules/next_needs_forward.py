"""A `forward` with `next` is followed by another `forward` in the same server block.

`next RCODE...` hands a matching answer to the *following* plugin, which must be another
forward (README.md, why two stanzas: SERVFAIL reaches the fallback only through the second stanza). With
no forward after it, CoreDNS silently returns the SERVFAIL. The fact is lint's rule
`forward-next-ignored`, run on each head build's kube-system/coredns and coredns-custom
(gen/lint/objects.py); text that does not parse is left to `coredns-gen lint`. A lone
`*.override` is judged only inside a main Corefile of the same build (whether the platform's own
`forward .` follows it depends on the platform and its version).

PASS: `forward . 10.0.0.53 { next SERVFAIL }` then `forward . /etc/resolv.conf`.
FAIL: the second `forward` is removed -> error at the ConfigMap's `data:` line.
"""

from __future__ import annotations

from typing import Iterator

from gen.corefile import CorefileError
from gen.finding import Finding, Severity
from gen.guard.change import Change, ClusterObjects, Violation
from gen.guard.model import ObjKey
from gen.lint.objects import lint_objects, rules_for

ID = "next-needs-forward"
SEVERITY = Severity.ERROR
_MAPS = {"coredns": ObjKey("kube-system", "coredns", "", "ConfigMap"),
         "coredns-custom": ObjKey("kube-system", "coredns-custom", "", "ConfigMap")}


def violations(objects: ClusterObjects, previous: ClusterObjects) -> Iterator[Violation]:
    held = [objects[k][1] for k in _MAPS.values() if k in objects]
    try:
        findings = lint_objects(held, rules_for(["forward-next-ignored"]))
    except CorefileError:
        return  # text that does not parse is left to `coredns-gen lint`
    for f in findings:
        name, _, key = f.file.partition("/")
        cm = _MAPS.get(name)
        if cm is None or cm not in objects:
            continue
        yield Violation(objects[cm][0], cm, f"{cm.ref} key {key}: {f.message}", f.hint, "data")


def check(change: Change) -> Iterator[Finding]:
    yield from change.invariant_findings(ID, SEVERITY, violations)
