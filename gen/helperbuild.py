"""How coredns-gen's Go programs are built, written once for the three places that build them:
the wheel's build hook (hatch_build.py, which loads this file by its path, so it imports nothing
but the standard library), scripts/setup-dev, and a checkout whose guard first needs Flux's build.

One Go module (tools/helper) makes two programs, and tools/flux-operator a third:

- coredns-gen-corefile (tools/helper/cmd/coredns-gen-corefile): CoreDNS's Corefile parser,
  forward's upstream parser, the stock plugins' setups and source-controller's ignore rules:
  everything `render` and lint's static checks ask. `pip install -e .` builds it (a few minutes
  from empty Go caches, the Go 1.27 toolchain's download included).
- coredns-gen-helper (tools/helper/main.go): Flux's own build (fluxcd/pkg/kustomize, kustomize,
  the Kubernetes API machinery) for the guard, `import` and postBuild variables, and everything
  above; with coredns-gen-flux-operator (the Flux Operator CLI) beside it for ResourceSets. Those
  two took most of the 39 minutes a first `pip install -e .` took on a busy 2-core machine, for
  commands `render` never runs: a wheel carries them (and no coredns-gen-corefile: the helper
  answers for it), and a checkout builds them when they are
  first needed (`build_on_first_use`), into the cache bin, in a folder named for the source they
  were built from, so two checkouts never share one and an edit to tools/helper builds anew.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Literal

# go.mod says `go 1.27.0`; this pins the toolchain the go command fetches through the module proxy
# when the installed Go is older (a GOTOOLCHAIN in the environment wins).
TOOLCHAIN = "go1.27.3"
BUILD_PROTOCOL = 4  # tools/helper/build/batch.go Protocol: what `coredns-gen-helper build -version` says first
COREFILE_PROTOCOL = 3  # tools/helper/corefile Main: what `corefile -version` says first

Program = Literal["coredns-gen-corefile", "coredns-gen-helper", "coredns-gen-flux-operator"]


@dataclass(frozen=True)
class Recipe:
    module: str  # the Go module's folder, from the checkout's root
    package: str  # what `go build` builds in it
    does: str  # said while it builds


RECIPES: dict[Program, Recipe] = {
    "coredns-gen-corefile": Recipe("tools/helper", "./cmd/coredns-gen-corefile",
                                   "CoreDNS's Corefile parser and plugin setups, for render and lint"),
    "coredns-gen-helper": Recipe("tools/helper", ".", "Flux's own build library, for the guard"),
    "coredns-gen-flux-operator": Recipe("tools/flux-operator", "github.com/controlplaneio-fluxcd/flux-operator/cmd/cli",
                                        "the Flux Operator CLI, for ResourceSets"),
}
AT_INSTALL: tuple[Program, ...] = ("coredns-gen-corefile",)  # what `pip install -e .` builds
ON_FIRST_USE: tuple[Program, ...] = ("coredns-gen-helper", "coredns-gen-flux-operator")  # beside each other
# A wheel carries these: coredns-gen-helper answers coredns-gen-corefile's subcommands too, so the
# small program would be 7 MB more of the same code (gen/tools.py corefile_binary takes the helper).
IN_WHEEL: tuple[Program, ...] = ON_FIRST_USE
GO_HINT = ("install Go (https://go.dev/dl/, or apt-get install golang-go; any Go from 1.21 fetches the "
           f"{TOOLCHAIN} toolchain through the module proxy), or set GO=/path/to/go, or install a released "
           "platform wheel, which carries every helper: pip install --only-binary coredns-gen coredns-gen")
_PACKAGE = re.compile(r"[A-Za-z0-9_.~+-]+(/[A-Za-z0-9_.~+-]+)*")  # a line `go build -v` prints as it compiles
_DOWNLOAD = "go: downloading "
_EVERY = 20.0  # seconds between progress lines


class BuildError(RuntimeError):
    """A program that could not be built; `hint` says what to do (the caller makes it exit 3)."""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.hint = hint


def go_command() -> str | None:
    """The go command: $GO, else `go` on PATH."""
    return os.environ.get("GO") or shutil.which("go")


def go_environment() -> dict[str, str]:
    """A static build (no cgo: one Linux binary serves glibc and musl) with the pinned toolchain."""
    return {**os.environ, "CGO_ENABLED": "0", "GOTOOLCHAIN": os.environ.get("GOTOOLCHAIN") or TOOLCHAIN}


def go_build(go: str, root: Path, program: Program, out: Path, env: dict[str, str],
             say: Callable[[str], None]) -> None:
    """`go build` one program into `out`, saying what it builds and, every 20 s, how far it got.

    -trimpath -buildvcs=false: a build from an sdist has no VCS, so neither does any other, and
    two builds of one source give the same bytes.

    Raises:
        BuildError: go failed (its output is in the message).
    """
    recipe = RECIPES[program]
    argv = [go, "build", "-v", "-trimpath", "-buildvcs=false", "-ldflags=-s -w", "-o", str(out), recipe.package]
    say(f"coredns-gen: building {program} ({recipe.does}) from {recipe.module} with {env.get('GOTOOLCHAIN')}")
    try:
        proc = subprocess.Popen(argv, cwd=root / recipe.module, env=env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
    except OSError as err:
        raise BuildError(f"cannot run {go}: {err}", hint=GO_HINT) from err
    counts = {"downloaded": 0, "compiled": 0}
    other: list[str] = []
    done = threading.Event()
    start = time.monotonic()

    def tick() -> None:
        while not done.wait(_EVERY):
            say(f"  {program}: {int(time.monotonic() - start)} s, {counts['downloaded']} modules downloaded, "
                f"{counts['compiled']} packages compiled")

    ticker = threading.Thread(target=tick, daemon=True)
    ticker.start()
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            line = line.rstrip("\n")
            if line.startswith(_DOWNLOAD):
                counts["downloaded"] += 1
            elif _PACKAGE.fullmatch(line):
                counts["compiled"] += 1
            else:
                other.append(line)
        code = proc.wait()
    finally:
        done.set()
        ticker.join()
    if code != 0:
        raise BuildError(f"`go build` of {program} in {recipe.module} failed (exit {code}):\n" + "\n".join(other[-40:]),
                         hint=f"fix the error above, or set GOTOOLCHAIN={TOOLCHAIN} if the go command cannot fetch it")
    say(f"  {program}: built in {int(time.monotonic() - start)} s")


def verify(binary: Path, program: Program) -> str:
    """What the freshly built program says it is, refused unless it speaks this package's protocol.

    Raises:
        BuildError: it does not run, or answers another protocol.
    """
    ask, expect = {
        "coredns-gen-corefile": (["corefile", "-version"], f"corefile {COREFILE_PROTOCOL} "),
        "coredns-gen-helper": (["build", "-version"], f"build {BUILD_PROTOCOL} "),
        # the helper runs it (`resourceset -version` finds it beside itself): both are checked
        "coredns-gen-flux-operator": (["resourceset", "-version"], "client: "),
    }[program]
    runner = binary if program != "coredns-gen-flux-operator" else binary.parent / "coredns-gen-helper"
    try:
        proc = subprocess.run([str(runner), *ask], stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=120, check=False)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise BuildError(f"the freshly built {binary} does not run: {err}") from err
    said = proc.stdout.strip()
    if proc.returncode != 0 or not said.startswith(expect):
        raise BuildError(f"the freshly built {binary} says {said or proc.stderr.strip() or 'nothing'!r} to "
                         f"`{' '.join(ask)}`; this coredns-gen needs `{expect.strip()}`")
    return said


def source_key(root: Path, programs: tuple[Program, ...] = ON_FIRST_USE) -> str:
    """A digest of what `programs` are built from (each module's go.mod, go.sum and non-test Go
    files), the toolchain and this machine: for ON_FIRST_USE, the name of their folder in the cache
    bin; for AT_INSTALL, what SOURCE_SUFFIX records beside the program `pip install -e .` built."""
    digest = hashlib.sha256(f"{TOOLCHAIN} {sys.platform} {platform.machine()}\0".encode())
    for module in sorted({RECIPES[p].module for p in programs}):
        for path in sorted((root / module).rglob("*")):
            if path.suffix in (".go", ".mod", ".sum") and not path.name.endswith("_test.go") and path.is_file():
                digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


# Beside each program an editable install builds into the checkout's gen/bin: the source_key of
# what it was built from. A checkout edited or pulled since then holds other code than the program
# runs (gen/tools.py corefile_binary then takes it no more).
SOURCE_SUFFIX = ".source"


def record_source(root: Path, program: Program, built: Path) -> None:
    """Write the source_key `built` (a program of AT_INSTALL) was built from beside it."""
    built.with_name(built.name + SOURCE_SUFFIX).write_text(source_key(root, (program,)) + "\n")


def built_from_here(root: Path, program: Program, built: Path) -> bool:
    """Whether `built` was built from the checkout at `root` as it is now (record_source)."""
    try:
        recorded = built.with_name(built.name + SOURCE_SUFFIX).read_text().strip()
    except OSError:
        return False
    return recorded == source_key(root, (program,))


def built_folder(root: Path, bin_dir: Path) -> Path:
    """Where ON_FIRST_USE, built from the checkout at `root`, is (or will be) kept."""
    return bin_dir / f"helper-{source_key(root)}"


def build_on_first_use(root: Path, bin_dir: Path, say: Callable[[str], None]) -> Path:
    """The folder holding coredns-gen-helper and coredns-gen-flux-operator built from the checkout
    at `root`, built now when it is not there yet.

    Atomic: the programs are built into a scratch folder beside it and renamed into place only
    once both run and speak this package's protocol, so a killed build leaves nothing that looks
    done; a lock beside it makes a second coredns-gen (two guards at once) wait for the first
    and use its build rather than build the same thing again.

    Raises:
        BuildError: no Go, `go build` failed, or what it built does not speak the protocol.
    """
    folder = built_folder(root, bin_dir)
    if (folder / "coredns-gen-helper").is_file():
        return folder
    go = go_command()
    if go is None:
        raise BuildError("coredns-gen-helper (Flux's own build library, which the guard builds every Flux "
                         f"Kustomization with) is built from {root / 'tools/helper'} the first time it is "
                         "needed, and that needs Go: none was found on PATH or in $GO", hint=GO_HINT)
    try:
        bin_dir.mkdir(parents=True, exist_ok=True)
        with open(bin_dir / f".{folder.name}.lock", "a") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                say(f"coredns-gen: waiting for another coredns-gen that is building {folder}")
                fcntl.flock(lock, fcntl.LOCK_EX)
            if (folder / "coredns-gen-helper").is_file():  # built by the one we waited for
                return folder
            say(f"coredns-gen: the guard needs Flux's own build, which `pip install -e .` leaves out (render "
                f"does not need it): building it once for this source into {folder} "
                "(minutes the first time Go fetches its modules; seconds after)")
            scratch = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=bin_dir))
            try:
                env = go_environment()
                for program in ON_FIRST_USE:
                    go_build(go, root, program, scratch / program, env, say)
                for program in ON_FIRST_USE:
                    verify(scratch / program, program)
                try:
                    os.rename(scratch, folder)
                except OSError:
                    if not (folder / "coredns-gen-helper").is_file():  # (not another machine's build of it)
                        raise
            finally:
                shutil.rmtree(scratch, ignore_errors=True)
    except OSError as err:
        raise BuildError(f"cannot build into {bin_dir}: {err}",
                         hint="make it writable, or point COREDNS_GEN_BIN at a folder you own") from err
    say(f"coredns-gen: built {folder}")
    return folder
