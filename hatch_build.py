"""Build coredns-gen's Go helpers into the package, so `pip install coredns-gen` carries them.

Why a hook: render and lint read Corefiles, and the guard builds Flux Kustomizations, through Go
programs that link CoreDNS's and Flux's own libraries; without them those commands exit 3. How
each is built (the toolchain, the flags, which program holds what) is gen/helperbuild.py, loaded
here by its path (the hook runs before the package is installed).

- wheel: coredns-gen-helper (which answers render's and lint's subcommands too) and
  coredns-gen-flux-operator are built into a temporary folder and put in the wheel's gen/bin/;
  the wheel becomes
  `py3-none-<platform>` (the Python is pure, the helpers are not; static, CGO_ENABLED=0, so one
  Linux wheel serves glibc and musl alike), and installing it needs no Go.
- editable (`pip install -e .`): only coredns-gen-corefile, what render and lint's static checks
  need, into the checkout's gen/bin/ (ignored by git), where gen/tools.py looks, with the digest of
  the source it was built from beside it (gen/helperbuild.py record_source). Flux's build and
  the Flux Operator CLI are built from the checkout when the guard first needs them (or by
  scripts/setup-dev): they took most of a first install's 39 minutes on a 2-core machine.
- cross-build: GOOS/GOARCH in the environment pick the target (linux or darwin, amd64 or arm64)
  and the wheel's platform tag; a binary for another platform is not run.
- no Go: the build stops (non-zero) saying so, never a package without its helper.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

HELPER_NAME = "coredns-gen-helper"
HELPER_DEST = f"gen/bin/{HELPER_NAME}"  # gen/tools.py package_bin()
COREFILE_DEST = "gen/bin/coredns-gen-corefile"  # editable installs only
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
    "go1.27 toolchain through the module proxy) to compile its helpers from tools/helper; "
    "none was found on PATH or in $GO. Install Go (https://go.dev/dl/, or apt-get install golang-go) "
    "or install a released platform wheel instead: pip install --only-binary coredns-gen coredns-gen"
)


def recipes(root: Path) -> ModuleType:
    """gen/helperbuild.py of the tree being built (standard library only, so it loads on its own)."""
    spec = importlib.util.spec_from_file_location("coredns_gen_helperbuild", root / "gen" / "helperbuild.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # (its dataclass looks its module up while it is defined)
    spec.loader.exec_module(module)
    return module


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
        root = Path(self.root)
        build = recipes(root)
        go = build.go_command()
        if not go:
            raise RuntimeError(GO_MISSING)
        env = build.go_environment()
        goos, goarch, hostos, hostarch = self._go_env(go, env, "GOOS", "GOARCH", "GOHOSTOS", "GOHOSTARCH")
        tag = platform_tag(goos, goarch)
        if version == "editable":
            # imported from this checkout (a .pth): the programs go where gen/tools.py looks first
            programs, out = build.AT_INSTALL, root / "gen" / "bin"
        else:
            self._tmp = tempfile.mkdtemp(prefix="coredns-gen-helper-")
            programs, out = build.IN_WHEEL, Path(self._tmp)
            for program in programs:
                build_data["force_include"][str(out / program)] = f"gen/bin/{program}"
            build_data["pure_python"] = False
            build_data["tag"] = f"py3-none-{tag}"
        out.mkdir(parents=True, exist_ok=True)
        self.app.display_info(f"coredns-gen: building {', '.join(programs)} for {goos}/{goarch}")
        for program in programs:
            try:
                build.go_build(go, root, program, out / program, env, self.app.display_info)
            except build.BuildError as err:
                raise RuntimeError(f"coredns-gen: {err}") from None
            if version == "editable":  # what it was built from, so a later edit or pull is seen
                build.record_source(root, program, out / program)
        if (goos, goarch) == (hostos, hostarch):
            for program in programs:
                try:
                    said = build.verify(out / program, program)
                except build.BuildError as err:
                    raise RuntimeError(f"coredns-gen: {err}") from None
                self.app.display_info(f"{program}: {said}")

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
