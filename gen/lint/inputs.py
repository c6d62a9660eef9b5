"""What lint's rules read: Corefile sources, the coredns ConfigMaps and Deployments, as data.

A ConfigMap is held the way CoreDNS sees it through its mount: `coredns` key `Corefile` is the
main Corefile; each `coredns-custom` key is a file in /etc/coredns/custom (`*.server`: whole
server blocks at top level, `*.override`: lines inside the default block). Reading the paths a
user gives is gen/lint/reader.py; the guard fills these from objects it built
(gen/lint/objects.py) and never needs a YAML parser for it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gen.corefile import Source

CUSTOM_CONFIGMAP = "coredns-custom"
CUSTOM_DIR = "/etc/coredns/custom"


@dataclass
class ConfigMapDoc:
    name: str
    namespace: str
    file: str
    line: int
    data: dict[str, Source]
    key_lines: dict[str, int]


@dataclass
class WorkloadDoc:
    """A Deployment (kept as ruamel nodes so every field still knows its line)."""

    name: str
    namespace: str
    file: str
    line: int
    node: Any


@dataclass
class Inputs:
    corefiles: list[Source] = field(default_factory=list)  # plain Corefile files, and those a chart or add-on renders
    configmaps: list[ConfigMapDoc] = field(default_factory=list)
    deployments: list[WorkloadDoc] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    values_files: list[str] = field(default_factory=list)  # coredns-gen values files met (lint reads their render)
    # (platform, release or "", file) from the coredns-gen.io/platform[-version] annotations a
    # render writes on objects holding Corefile text: the overlay names what it was rendered for
    rendered_for: list[tuple[str, str, str]] = field(default_factory=list)

    def empty(self) -> bool:
        """Nothing of cluster DNS to judge: no Corefile, coredns ConfigMap or Deployment."""
        return not (self.corefiles or self.configmaps or self.deployments)

    def configmap(self, name: str) -> ConfigMapDoc | None:
        return next((c for c in self.configmaps if c.name == name), None)

    def main_corefiles(self) -> list[tuple[ConfigMapDoc | None, Source]]:
        """Every main Corefile: plain files, and any ConfigMap key `Corefile`."""
        out: list[tuple[ConfigMapDoc | None, Source]] = [(None, s) for s in self.corefiles]
        for cm in self.configmaps:
            if "Corefile" in cm.data:
                out.append((cm, cm.data["Corefile"]))
        return out

    def custom_sources(self) -> dict[str, Source]:
        """coredns-custom keys as the files CoreDNS would find in /etc/coredns/custom."""
        cm = self.configmap(CUSTOM_CONFIGMAP)
        return {} if cm is None else {f"{CUSTOM_DIR}/{k}": s for k, s in sorted(cm.data.items())}
