"""Wiring point 5: coredns-custom is a whole-ConfigMap volume, not subPath, not `items`.

The kubelet never refreshes a subPath mount, so CoreDNS keeps serving the fragment it started
with; `items` projects only the listed keys, so a new key never appears.

PASS: `volumeMounts: [{name: custom-config-volume, mountPath: /etc/coredns/custom, readOnly: true}]`
FAIL: `subPath: zoneroute.server` on the mount, or `items:` on the volume -> error at that line.
"""

from __future__ import annotations

from typing import Iterator

from gen.finding import Finding, Severity
from gen.lint.context import LintContext
from gen.lint.inputs import CUSTOM_CONFIGMAP
from gen.lint.wiring import line, wirings

ID = "wiring-mount-subpath"
SEVERITY = Severity.ERROR
REFUSES = False  # about the cluster wiring, not the Corefile syntax


def check(ctx: LintContext) -> Iterator[Finding]:
    for w in wirings(ctx):
        for m in w.mounts:
            for key in ("subPath", "subPathExpr"):
                if m.get(key):
                    yield Finding(ID, SEVERITY, w.file, line(m, key),
                                  f"the {CUSTOM_CONFIGMAP} mount uses {key}: the kubelet never refreshes it, "
                                  "so CoreDNS keeps the fragment it started with",
                                  f"remove {key} and mount the whole ConfigMap at /etc/coredns/custom")
        config_map = (w.volume or {}).get("configMap") or {}
        if config_map.get("items"):
            yield Finding(ID, SEVERITY, w.file, line(config_map, "items"),
                          f"the {CUSTOM_CONFIGMAP} volume lists `items`: keys added later are never mounted",
                          "remove `items` so every key of the ConfigMap is mounted")
