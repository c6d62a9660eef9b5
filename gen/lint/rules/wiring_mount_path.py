"""Wiring point 3: coredns-custom is mounted in the CoreDNS container at /etc/coredns/custom.

The import path is relative to the Corefile's directory /etc/coredns, so any other mount path
leaves the glob empty (CoreDNS only logs a warning for an empty glob).

PASS: volume `configMap: {name: coredns-custom}` mounted at /etc/coredns/custom.
FAIL: no such volume, no mount of it, or `mountPath: /etc/coredns/extra` -> error at that line.
"""

from __future__ import annotations

from typing import Iterator

from gen.finding import Finding, Severity
from gen.lint.context import LintContext
from gen.lint.inputs import CUSTOM_CONFIGMAP, CUSTOM_DIR
from gen.lint.wiring import line, wirings

ID = "wiring-mount-path"
SEVERITY = Severity.ERROR
REFUSES = False  # about the cluster wiring, not the Corefile syntax
VOLUME_HINT = (f'add volume `{{"name": "custom-config-volume", "configMap": {{"name": "{CUSTOM_CONFIGMAP}", '
               f'"optional": true}}}}` and mount it at {CUSTOM_DIR} read-only')


def check(ctx: LintContext) -> Iterator[Finding]:
    for w in wirings(ctx):
        if w.volume is None:
            yield Finding(ID, SEVERITY, w.file, line(w.deployment.node),
                          f"Deployment coredns has no volume from ConfigMap {CUSTOM_CONFIGMAP}", VOLUME_HINT)
            continue
        if not w.mounts:
            where = w.container if w.container is not None else w.deployment.node
            yield Finding(ID, SEVERITY, w.file, line(where, "volumeMounts"),
                          f"volume {w.volume.get('name')} ({CUSTOM_CONFIGMAP}) is not mounted in the coredns container",
                          f"add a volumeMount of {w.volume.get('name')} at {CUSTOM_DIR}, readOnly: true")
            continue
        for m in w.mounts:
            if str(m.get("mountPath", "")).rstrip("/") != CUSTOM_DIR:
                yield Finding(ID, SEVERITY, w.file, line(m, "mountPath"),
                              f"{CUSTOM_CONFIGMAP} is mounted at {m.get('mountPath')}, but `import custom/*.server` "
                              f"reads {CUSTOM_DIR}", f"set mountPath: {CUSTOM_DIR}")
