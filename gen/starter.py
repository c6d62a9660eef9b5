"""`coredns-gen new`: a commented starter values file with the platform's defaults filled in.

The starter must itself validate and render, so a user starts from a working file (tested).
"""

from __future__ import annotations

import re

from gen.errors import Problem, UsageError, quote
from gen.platforms import default_coredns_version, refusal
from gen.platforms import get as get_platform
from gen.spec import PLACEHOLDER_RESOLVER
from gen.templating import render_template

_NAME = re.compile(r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")  # fullmatch: `$` would accept "prod\n"


def starter_values(platform: str, cluster: str, release: str | None = None) -> str:
    """The starter for `release` (default: the platform's DEFAULT_RELEASE).

    Raises UsageError for an unknown platform, a cluster name that is not a DNS-1123 label, or a
    release the tables do not hold exactly (`1.11`, `v1.11.99`), listing the valid ones."""
    problems = []
    refused = refusal(platform, "--platform")
    if refused is not None:
        problems.append(refused)
    if not _NAME.fullmatch(cluster):
        problems.append(Problem(f"{quote(cluster)} is not a DNS-1123 label", key="--cluster",
                                hint="use lower-case letters, digits and '-', e.g. prod-talos"))
    if problems:
        raise UsageError(problems)
    chosen = get_platform(platform)
    if release is not None:
        try:
            known = chosen.stand_in(release)
        except ValueError:
            known = None
        if known != release:
            raise UsageError(Problem(f"{platform} release {quote(release)} is not a release coredns-gen's tables hold",
                                     key="--platform-version",
                                     hint=f"use one of {chosen.known_releases()}" + (f", e.g. {known}" if known else "")))
    release = release or chosen.DEFAULT_RELEASE
    return render_template(
        f"new/{platform}.yaml.j2", cluster=cluster, platform_version=release,
        coredns=default_coredns_version(platform, release), known=chosen.known_releases(),
        path_hint=f"dns/{cluster}.yaml", placeholder=PLACEHOLDER_RESOLVER,
    )
