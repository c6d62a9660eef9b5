"""`coredns-gen new`: a commented starter values file with the platform's defaults filled in.

The starter must itself validate and render, so a user starts from a working file (tested).
"""

from __future__ import annotations

import re

from gen.errors import Problem, UsageError
from gen.platforms import PLATFORMS, default_coredns_version
from gen.platforms.talos import known_versions
from gen.render import render_template

DEFAULT_RELEASE = {"talos": "v1.13.9", "k3s": "v1.34.9+k3s1", "aks": "1.34"}
_NAME = re.compile(r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")  # fullmatch: `$` would accept "prod\n"


def starter_values(platform: str, cluster: str) -> str:
    """Raises UsageError for an unknown platform or a cluster name that is not a DNS-1123 label."""
    problems = []
    if platform not in PLATFORMS:
        problems.append(Problem(f"unknown platform {platform!r}", key="--platform", hint=f"use one of {', '.join(PLATFORMS)}"))
    if not _NAME.fullmatch(cluster):
        problems.append(Problem(f"{cluster!r} is not a DNS-1123 label", key="--cluster",
                                hint="use lower-case letters, digits and '-', e.g. prod-talos"))
    if problems:
        raise UsageError(problems)
    release = DEFAULT_RELEASE[platform]
    return render_template(
        f"new/{platform}.yaml.j2", cluster=cluster, platform_version=release,
        coredns=default_coredns_version(platform, release), known=known_versions(),
        path_hint=f"dns/{cluster}.yaml",
    )
