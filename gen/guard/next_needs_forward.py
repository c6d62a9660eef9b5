"""A `forward` with `next` is followed by another `forward` in the same server block.

`next RCODE...` hands a matching answer to the *following* plugin, which must be another
forward (seed 000: the SERVFAIL path reaches campus DNS only through the second stanza). With
no forward after it, CoreDNS silently returns the SERVFAIL. Checked in kube-system/coredns
(`Corefile`) and kube-system/coredns-custom `*.server` keys (whole server blocks), with the
Corefile parser of gen/corefile; text that does not parse is left to `coredns-gen lint`.
`*.override` snippets are not judged: whether the platform's own `forward .` follows them depends
on the platform and its version (k3s >= v1.34.2 imports them before it, AKS after it).

PASS: `forward . 10.0.0.53 { next SERVFAIL }` then `forward . /etc/resolv.conf`.
FAIL: the second `forward` is removed -> error at the ConfigMap's `data:` line.
"""

from __future__ import annotations

from typing import Iterator

from gen.corefile import CorefileError, Directive, parse_corefile
from gen.finding import Finding, Severity
from gen.guard.change import Change, ClusterObjects, Violation
from gen.guard.model import ObjKey

ID = "next-needs-forward"
SEVERITY = Severity.ERROR
_MAPS = (ObjKey("kube-system", "coredns", "", "ConfigMap"), ObjKey("kube-system", "coredns-custom", "", "ConfigMap"))


def dangling_next(directives: list[Directive]) -> list[Directive]:
    """Forwards with a `next` option that no later forward follows."""
    forwards = [d for d in directives if d.name == "forward"]
    return [d for i, d in enumerate(forwards) if d.block and d.option("next") and i == len(forwards) - 1]


def _blocks(key: str, text: str) -> list[list[Directive]]:
    try:
        if key == "Corefile" or key.endswith(".server"):
            return [b.directives for b in parse_corefile(text, filename=key).server_blocks]
    except CorefileError:
        return []
    return []


def violations(objects: ClusterObjects, previous: ClusterObjects) -> Iterator[Violation]:
    for cm in _MAPS:
        if cm not in objects:
            continue
        ks, obj = objects[cm]
        for key, text in sorted((obj.get("data") or {}).items()):
            if not isinstance(text, str):
                continue
            for directives in _blocks(str(key), text):
                for d in dangling_next(directives):
                    yield Violation(ks, cm, f"{cm.ref} key {key}: `forward {' '.join(d.args)}` has `next` but no "
                                    "forward follows it in the block, so CoreDNS returns the failure instead",
                                    "add a second stanza after it, e.g. `forward . /etc/resolv.conf`", "data")


def check(change: Change) -> Iterator[Finding]:
    yield from change.invariant_findings(ID, SEVERITY, violations)
