"""Build coredns-gen-helper (tools/helper) into the wheel, so `pip install coredns-gen` carries it.

Why a hook: the guard builds Flux Kustomizations and lint reads Corefiles through that Go program
(Flux's and CoreDNS's own libraries); without it those commands exit 3. A wheel is therefore
platform-specific: `py3-none-<platform>` (the Python is pure, the helper is not). The helper is a
static binary (CGO_ENABLED=0), so one Linux wheel serves glibc and musl alike.

- wheel: `go build -trimpath` into a temporary folder, put in the wheel as gen/bin/coredns-gen-helper.
- editable (`pip install -e .`): the package is imported from this checkout, so the helper is built
  into gen/bin/ here (ignored by git), where gen/tools.py looks first.
- cross-build: GOOS/GOARCH in the environment pick the target (linux or darwin, amd64 or arm64)
  and the wheel's platform tag; a binary for another platform is not run.
- no Go: the build stops (non-zero) saying so, never a wheel without its helper.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

HELPER_NAME = "coredns-gen-helper"
HELPER_DEST = f"gen/bin/{HELPER_NAME}"  # gen/tools.py package_bin()
# The Flux Operator CLI the helper's `resourceset` subcommand runs (tools/flux-operator: a module of
# its own, the Flux Operator's own dependency graph), installed beside the helper.
OPERATOR_NAME = "coredns-gen-flux-operator"
OPERATOR_DEST = f"gen/bin/{OPERATOR_NAME}"
OPERATOR_PACKAGE = "github.com/controlplaneio-fluxcd/flux-operator/cmd/cli"
# go.mod says `go 1.27.0`; this pins the exact toolchain the go command fetches from the module
# proxy when the installed Go is older (GOTOOLCHAIN in the environment overrides it).
TOOLCHAIN = "go1.27.3"
# Go 1.27 links for macOS 13 or later (cmd/link macOS minimum); a static Linux binary needs no
# glibc symbol at all, so it satisfies the oldest manylinux and musllinux policies.
PLATFORM_TAGS = {
    ("linux", "amd64"): "manylinux_2_17_x86_64.manylinux2014_x86_64.musllinux_1_1_x86_64",
    ("linux", "arm64"): "manylinux_2_17_aarch64.manylinux2014_aarch64.musllinux_1_1_aarch64",
    ("darwin", "amd64"): "macosx_13_0_x86_64",
    ("darwin", "arm64"): "macosx_13_0_arm64",
}
GO_MISSING = (
    "coredns-gen: building this wheel needs Go (the `go` command, 1.21 or newer, which fetches the "
    f"{TOOLCHAIN} toolchain through the module proxy) to compile coredns-gen-helper from tools/helper; "
    "none was found on PATH or in $GO. Install Go (https://go.dev/dl/, or apt-get install golang-go) "
    "or install a released platform wheel instead: pip install --only-binary coredns-gen coredns-gen"
)


def platform_tag(goos: str, goarch: str) -> str:
    """The wheel platform tag for a Go target; anything else is refused (no wheel for it)."""
    try:
        return PLATFORM_TAGS[(goos, goarch)]
    except KeyError:
        known = ", ".join(f"{o}/{a}" for o, a in sorted(PLATFORM_TAGS))
        raise RuntimeError(f"coredns-gen: no wheel for GOOS={goos} GOARCH={goarch}; built for {known}") from None


class HelperBuildHook(BuildHookInterface):  # type: ignore[misc]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        go = os.environ.get("GO") or shutil.which("go")
        if not go:
            raise RuntimeError(GO_MISSING)
        env = {**os.environ, "CGO_ENABLED": "0", "GOTOOLCHAIN": os.environ.get("GOTOOLCHAIN") or TOOLCHAIN}
        goos, goarch, hostos, hostarch = self._go_env(go, env, "GOOS", "GOARCH", "GOHOSTOS", "GOHOSTARCH")
        tag = platform_tag(goos, goarch)
        if version == "editable":
            # imported from this checkout (a .pth): the helper goes where gen/tools.py looks first
            out = Path(self.root) / HELPER_DEST
            operator = Path(self.root) / OPERATOR_DEST
        else:
            self._tmp = tempfile.mkdtemp(prefix="coredns-gen-helper-")
            out = Path(self._tmp) / HELPER_NAME
            operator = Path(self._tmp) / OPERATOR_NAME
            build_data["force_include"][str(out)] = HELPER_DEST
            build_data["force_include"][str(operator)] = OPERATOR_DEST
            build_data["pure_python"] = False
            build_data["tag"] = f"py3-none-{tag}"
        out.parent.mkdir(parents=True, exist_ok=True)
        self._build_operator(go, env, operator)
        # -buildvcs=false: a build from an sdist has no VCS, so neither does any other (same binary)
        argv = [go, "build", "-trimpath", "-buildvcs=false", "-ldflags=-s -w", "-o", str(out), "."]
        self.app.display_info(f"building {HELPER_NAME} for {goos}/{goarch} ({env['GOTOOLCHAIN']}): {' '.join(argv)}")
        proc = subprocess.run(argv, cwd=Path(self.root) / "tools" / "helper", env=env, check=False)
        if proc.returncode != 0:
            raise RuntimeError(f"coredns-gen: `go build` of tools/helper failed (exit {proc.returncode}); "
                               "its output is above")
        if (goos, goarch) == (hostos, hostarch):
            said = subprocess.run([str(out), "build", "-version"], capture_output=True, text=True, check=False)
            if said.returncode != 0 or not said.stdout.startswith("build "):
                raise RuntimeError(f"coredns-gen: the freshly built {out} does not run: {said.stderr or said.stdout}")
            self.app.display_info(f"{HELPER_NAME}: {said.stdout.strip()}")

    def _build_operator(self, go: str, env: dict[str, str], out: Path) -> None:
        argv = [go, "build", "-trimpath", "-buildvcs=false", "-ldflags=-s -w", "-o", str(out), OPERATOR_PACKAGE]
        self.app.display_info(f"building {OPERATOR_NAME}: {' '.join(argv)}")
        proc = subprocess.run(argv, cwd=Path(self.root) / "tools" / "flux-operator", env=env, check=False)
        if proc.returncode != 0:
            raise RuntimeError(f"coredns-gen: `go build` of tools/flux-operator failed (exit {proc.returncode}); "
                               "its output is above")

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        tmp = getattr(self, "_tmp", None)
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)

    def _go_env(self, go: str, env: dict[str, str], *names: str) -> list[str]:
        proc = subprocess.run([go, "env", *names], cwd=Path(self.root) / "tools" / "helper", env=env,
                              capture_output=True, text=True, check=False)
        values = proc.stdout.split()
        if proc.returncode != 0 or len(values) != len(names):
            raise RuntimeError(f"coredns-gen: `go env {' '.join(names)}` failed: {proc.stderr.strip()}")
        return values
