"""The CoreDNS release verify runs: the one the platform release ships, built once into the cache.

A Corefile that loads in CoreDNS 1.13.1 may not load in the 1.14.6 the cluster runs (a plugin
option added or dropped), so `verify` runs the release the values name (`corednsVersion:`, else the
platform release's default) unless `--coredns PATH` says which binary. A release not yet in the
cache folder is built there with `go install`, as scripts/setup-dev builds v1.13.1, and kept as
`coredns-<version>` beside it: every later run finds it without Go or the network.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from gen.errors import ToolError, UsageError
from gen.launcher import binary_version
from gen.tools import cache_bin

MODULE = "github.com/coredns/coredns"
BUILD_TIMEOUT = 1800.0  # seconds: a cold build fetches CoreDNS's modules and compiles ~100 MB
_RELEASE = re.compile(r"^v?(\d+\.\d+\.\d+)$")


def release_of(text: str, key: str) -> str:
    """`1.14.6` from `1.14.6` or `v1.14.6`.

    Raises:
        UsageError: not a CoreDNS release number (exit 2).
    """
    m = _RELEASE.match(text.strip())
    if not m:
        raise UsageError(f"{text!r} is not a CoreDNS release", key=key, hint="write it as 1.14.6 (a tag of github.com/coredns/coredns)")
    return m[1]


def cached(version: str) -> Path:
    """Where a built release lives: `coredns-<version>` in the cache folder (setup-dev's coredns-1.11.3)."""
    return cache_bin() / f"coredns-{version}"


def find(version: str) -> Path | None:
    """A binary that says it is CoreDNS `version`: the cache folder's coredns-<version>, else `coredns`
    on PATH or in the cache folder when its `-version` says so (None: not on this machine)."""
    own = cached(version)
    if own.is_file() and os.access(own, os.X_OK):
        return own
    for candidate in (shutil.which("coredns"), cache_bin() / "coredns"):
        path = Path(candidate) if candidate else None
        if path is not None and path.is_file() and os.access(path, os.X_OK):
            try:
                if binary_version(path) == version:
                    return path
            except ToolError:
                continue
    return None


def build(version: str) -> Path:
    """`go install github.com/coredns/coredns@v<version>` into the cache folder, kept as coredns-<version>.

    Raises:
        ToolError: no Go, or the build failed (offline: the module proxy unreachable), exit 3.
    """
    target = cached(version)
    where = f"build it where the Go module proxy is reachable and copy it to {target}, or pass --coredns PATH"
    go = shutil.which("go")
    if go is None:
        raise ToolError(f"CoreDNS {version} is not in {cache_bin()}, and go, which builds it there, is not on PATH",
                        hint=f"install Go (apt-get install golang-go), or {where}")
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".build-") as gobin:
        env = {**os.environ, "GOBIN": gobin, "GOFLAGS": "-mod=mod"}
        command = f"go install {MODULE}@v{version}"
        try:
            done = subprocess.run([go, "install", f"{MODULE}@v{version}"], env=env, capture_output=True, text=True,
                                  timeout=BUILD_TIMEOUT, check=False, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            raise ToolError(f"building CoreDNS {version} (`{command}`) did not finish within {BUILD_TIMEOUT:g} s",
                            hint=where) from None
        except OSError as err:
            raise ToolError(f"cannot run {go}: {err}", hint=where) from None
        built = Path(gobin) / "coredns"
        if done.returncode != 0 or not built.is_file():
            raise ToolError(f"CoreDNS {version} is not in {cache_bin()}, and building it failed: `{command}` exited "
                            f"{done.returncode} (offline, or no such CoreDNS release)", stderr=done.stderr, hint=where)
        os.replace(built, target)
    return target


def binary_for(version: str, *, announce: bool = True) -> Path:
    """The CoreDNS `version` binary: found on this machine, else built once into the cache folder
    (stderr says so first: a cold build takes minutes)."""
    found = find(version)
    if found is not None:
        return found
    if announce:
        print(f"verify: building CoreDNS {version} into {cached(version)} (once; `go install {MODULE}@v{version}`)",
              file=sys.stderr, flush=True)
    return build(version)
