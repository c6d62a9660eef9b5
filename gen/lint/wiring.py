"""The coredns-custom wiring contract (docs/lint.md, the `wiring-*` rules) as data the `wiring-*` rules check.

Seven points must hold for a fragment in `coredns-custom` to be served: the ConfigMap exists;
the main Corefile imports `custom/*.server` at top level; the ConfigMap is mounted at
/etc/coredns/custom, read-only, as a whole-ConfigMap volume (no subPath, which the kubelet never
refreshes); CoreDNS ≥ 1.7.0 with `reload`; listening on 53. The rules run only when a coredns
Deployment is among the inputs (manifest files or `kubectl get -o yaml`, `kind: List` too):
a bare Corefile has no wiring to judge.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import Any, Iterator

from gen.corefile import Corefile
from gen.lint.context import LintContext
from gen.lint.inputs import CUSTOM_CONFIGMAP, CUSTOM_DIR, ConfigMapDoc, WorkloadDoc

DEPLOYMENT = "coredns"
MAIN_CONFIGMAP = "coredns"
COREFILE_DIR = "/etc/coredns"  # -conf /etc/coredns/Corefile in every platform's Deployment
SERVER_GLOB = f"{CUSTOM_DIR}/*.server"


def line(node: Any, key: Any = None) -> int:
    """1-based line of `node[key]` (or of the node itself) in its YAML file."""
    lc = getattr(node, "lc", None)
    if lc is None:
        return 1
    if key is not None:
        try:
            return int(lc.key(key)[0]) + 1
        except (KeyError, TypeError, AttributeError):
            pass
    return int(lc.line) + 1


@dataclass
class Wiring:
    deployment: WorkloadDoc
    container: Any  # the coredns container node, or None
    main: ConfigMapDoc | None
    main_corefile: Corefile | None  # raw (as written)
    main_effective: Corefile | None
    custom: ConfigMapDoc | None
    volume: Any  # the volume node whose configMap is coredns-custom, or None
    mounts: list[Any]  # the container's mounts of that volume

    @property
    def file(self) -> str:
        return self.deployment.file


def _pick(cms: list[ConfigMapDoc], name: str, dep: WorkloadDoc) -> ConfigMapDoc | None:
    same = [c for c in cms if c.name == name and c.file == dep.file]
    near = [c for c in cms if c.name == name and (c.namespace or dep.namespace) == dep.namespace]
    found = same or near
    return found[0] if found else None


def wirings(ctx: LintContext) -> Iterator[Wiring]:
    for dep in ctx.inputs.deployments:
        if dep.name != DEPLOYMENT:
            continue
        spec = ((dep.node.get("spec") or {}).get("template") or {}).get("spec") or {}
        containers = spec.get("containers") or []
        container = next((c for c in containers if c.get("name") == "coredns"), containers[0] if containers else None)
        volume = next((v for v in spec.get("volumes") or []
                       if (v.get("configMap") or {}).get("name") == CUSTOM_CONFIGMAP), None)
        mounts = []
        if container is not None and volume is not None:
            mounts = [m for m in container.get("volumeMounts") or [] if m.get("name") == volume.get("name")]
        main = _pick(ctx.inputs.configmaps, MAIN_CONFIGMAP, dep)
        unit = next((u for u in ctx.units if u.kind == "corefile" and u.configmap is main and main), None)
        yield Wiring(dep, container, main, unit.raw if unit else None, unit.effective if unit else None,
                     _pick(ctx.inputs.configmaps, CUSTOM_CONFIGMAP, dep), volume, mounts)


def import_target(pattern: str) -> str:
    """Where an import pattern points, as an absolute path in the CoreDNS container."""
    path = pattern if pattern.startswith("/") else posixpath.join(COREFILE_DIR, pattern)
    return posixpath.normpath(path)


def container_args(container: Any) -> list[str]:
    return [str(a) for a in (container.get("args") or []) + (container.get("command") or [])]


def dns_port_flag(container: Any) -> str | None:
    """The value of `-dns.port` in the container's args, if any (`-dns.port=5353` or two args)."""
    args = container_args(container)
    for i, arg in enumerate(args):
        for flag in ("-dns.port", "--dns.port"):
            if arg == flag and i + 1 < len(args):
                return args[i + 1]
            if arg.startswith(flag + "="):
                return arg.split("=", 1)[1]
    return None
