"""Wiring point 6: CoreDNS ≥ 1.7.0 with the `reload` plugin.

From 1.7.0 `reload` hashes the parsed Corefile with imports expanded, so a changed fragment is
loaded within 30 s ± 15 s without a restart (coredns/coredns plugin/reload/README.md). Without `reload`, or on an older
CoreDNS, a new fragment waits for the next Pod restart.

PASS: image `registry.k8s.io/coredns/coredns:v1.11.3` (or no image: the CoreDNS version lint
assumes) and `reload` in the `.:53` block.
FAIL: no `reload` in the main Corefile, or image tag 1.6.9 -> error.
"""

from __future__ import annotations

from typing import Iterator

from gen.finding import Finding, Severity
from gen.lint.context import LintContext
from gen.lint.option_releases import image_version
from gen.lint.wiring import line, wirings
from gen.versions import Version

ID = "wiring-reload"
SEVERITY = Severity.ERROR
REFUSES = False  # about the cluster wiring, not the Corefile syntax
RELOAD_PARSES_IMPORTS = Version(1, 7, 0)


def check(ctx: LintContext) -> Iterator[Finding]:
    for w in wirings(ctx):
        if w.container is not None:
            image = str(w.container.get("image", ""))
            # A partial apply of the Deployment (kubeadm's volume and mount) names no image:
            # the version lint was told (or assumes) is the one judged.
            version = image_version(image) if image else ctx.version
            if version is None:
                yield Finding(ID, Severity.WARNING, w.file, line(w.container, "image"),
                              f"cannot tell the CoreDNS version from image `{image}`",
                              f"use a tagged image, CoreDNS ≥ {RELOAD_PARSES_IMPORTS}")
            elif version < RELOAD_PARSES_IMPORTS:
                yield Finding(ID, SEVERITY, w.file, line(w.container, "image"),
                              f"CoreDNS {version} does not reload imported files (needs ≥ {RELOAD_PARSES_IMPORTS})",
                              f"upgrade the image to CoreDNS ≥ {RELOAD_PARSES_IMPORTS}")
        if w.main is None or w.main_effective is None:
            continue
        if not any(b.has("reload") for b in w.main_effective.server_blocks):
            yield Finding(ID, SEVERITY, w.main.file, w.main.key_lines.get("Corefile", w.main.line),
                          "the main Corefile has no `reload`: changed fragments wait for a Pod restart",
                          "add `reload` inside the `.:53 { … }` block")
