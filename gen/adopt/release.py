"""The platform release a repository says it runs, for `import` and `new` when no
`--platform-version` is given.

Where repositories write it (seen in public Flux repositories): talhelper's `talconfig.yaml`
(`talosVersion: v1.12.6`), a Talos machine config's installer image
(`ghcr.io/siderolabs/installer:v1.13.8`, or a factory.talos.dev installer), a tuppr
`TalosUpgrade` (`spec.talos.version`), a k3s or RKE2 system-upgrade-controller `Plan`
(`spec.version: v1.34.9+k3s1`), and a Renovate comment (`# renovate: … depName=…`) on the line
before the version it keeps current. Only those shapes are read, line by line: this is evidence,
shown with its file and line, never a guess from a version number that could be anything.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import NamedTuple

_V = r"v?\d+\.\d+\.\d+"
# platform -> (value patterns that name the release on their own line, Renovate depNames)
_TALOS = (
    (re.compile(rf"^\s*talosVersion:\s*[\"']?({_V})[\"']?\s*(?:#.*)?$"),
     re.compile(rf"(?:siderolabs/installer(?:-secureboot)?|factory\.talos\.dev/[\w./-]*installer[\w-]*/\w+):({_V})\b")),
    ("ghcr.io/siderolabs/installer", "siderolabs/talos", "ghcr.io/siderolabs/talosctl", "siderolabs/installer"),
)
_K3S = ((re.compile(rf"^\s*version:\s*[\"']?({_V}\+k3s\d+)[\"']?\s*(?:#.*)?$"),),
        ("k3s-io/k3s", "rancher/k3s", "rancher/k3s-upgrade"))
_RKE2 = ((re.compile(rf"^\s*version:\s*[\"']?({_V}\+rke2r\d+)[\"']?\s*(?:#.*)?$"),),
         ("rancher/rke2", "rancher/rke2-upgrade"))
_SAID = {"talos": _TALOS, "k3s": _K3S, "rke2": _RKE2}
_RENOVATE = re.compile(r"#\s*renovate:.*\bdepName=(\S+)")
_VALUE = re.compile(rf"^\s*[\w.-]+:\s*[\"']?({_V}(?:\+(?:k3s|rke2r)\d+)?)[\"']?\s*(?:#.*)?$")
_SKIP = {"node_modules", "testdata", "fixtures", "venv", "__pycache__"}  # and every hidden folder (.git, .venv)
MAX_FILES = 20_000
MAX_BYTES = 1 << 20


class Said(NamedTuple):
    release: str
    where: str  # file:line, repository-relative


def readable(platform: str) -> bool:
    """Whether this module knows where repositories say that platform's release."""
    return platform in _SAID


def releases_said(repo: Path, platform: str) -> list[Said]:
    """Every place the repository names `platform`'s release, in path order (none for a platform
    whose release repositories do not write down: AKS, EKS, kubeadm, Gardener take a Kubernetes
    minor the cluster's provider reports)."""
    said = _SAID.get(platform)
    if said is None:
        return []
    patterns, deps = said
    found: list[Said] = []
    seen = 0
    for folder, dirs, files in os.walk(repo):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP and not d.startswith("."))
        for name in sorted(files):
            if not name.endswith((".yaml", ".yml")):
                continue
            seen += 1
            if seen > MAX_FILES:
                return found
            path = Path(folder) / name
            try:
                if not path.is_file() or path.stat().st_size > MAX_BYTES:
                    continue
                lines = path.read_text(encoding="utf-8").splitlines()
            except (OSError, UnicodeDecodeError):
                continue
            rel = path.relative_to(repo).as_posix()
            renovate = False
            for number, line in enumerate(lines, 1):
                hit = next((m for p in patterns if (m := p.search(line))), None)
                if hit is None and renovate:
                    hit = _VALUE.match(line)
                dep = _RENOVATE.search(line)
                renovate = dep is not None and any(dep[1].split(":")[0] == d or dep[1].endswith("/" + d) for d in deps)
                if hit is not None:
                    release = hit[1] if hit[1].startswith("v") else "v" + hit[1]
                    found.append(Said(release, f"{rel}:{number}"))
    return found
