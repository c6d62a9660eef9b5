"""`pip install coredns-gen` carries coredns-gen-helper: the wheel's build hook (hatch_build.py)
compiles tools/helper into gen/bin, the wheel is tagged for its platform, and an install finds
that helper before any other. The slow test builds the sdist and the wheel from it, installs the
wheel in a new virtual environment and runs the guard there with nothing else to find."""

from __future__ import annotations

import importlib.util
import os
import shutil
import stat
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path
from types import ModuleType

import pytest

from gen import tools
from tests.conftest import REPO_ROOT, missing_tool
from tests.guard.conftest import FLUX_SYSTEM, configmap, flux_ks, kustomization
from tests.helpers import build_tree, git

VERSION = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]["version"]


def _hook() -> ModuleType:
    spec = importlib.util.spec_from_file_location("hatch_build", REPO_ROOT / "hatch_build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _executable(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\necho 'build 4 (fake)'\n")
    path.chmod(0o755)
    return path


def test_the_helper_installed_with_the_package_comes_before_the_cache_and_path(tmp_path, monkeypatch):
    """A wheel's own helper was built from the same source as its Python: it must win over an
    older one left in ~/.cache or on PATH, and only $COREDNS_GEN_HELPER overrides it."""
    own = _executable(tmp_path / "pkg" / "coredns-gen-helper")
    cached = _executable(tmp_path / "cache" / "coredns-gen-helper")
    on_path = _executable(tmp_path / "path" / "coredns-gen-helper")
    monkeypatch.setattr(tools, "package_bin", lambda: own.parent)
    monkeypatch.setenv("COREDNS_GEN_BIN", str(cached.parent))
    monkeypatch.setenv("PATH", str(on_path.parent))
    monkeypatch.delenv("COREDNS_GEN_HELPER", raising=False)
    assert tools.helper_binary() == own
    own.unlink()
    assert tools.helper_binary() == cached
    cached.unlink()
    assert tools.helper_binary() == on_path
    monkeypatch.setenv("COREDNS_GEN_HELPER", str(tmp_path / "explicit"))
    assert tools.helper_binary() is None  # an explicit path that is not there is not replaced by a guess


def test_package_bin_is_where_the_build_hook_puts_the_helper():
    assert tools.package_bin() / tools.HELPER_NAME == REPO_ROOT / _hook().HELPER_DEST


def test_version_names_the_package_and_the_helper(tmp_path):
    helper = tools.helper_binary()
    if helper is None:
        missing_tool("coredns-gen-helper", RuntimeError(tools.HELPER_BUILD_HINT))
    env = {**os.environ, "COREDNS_GEN_HELPER": str(helper)}
    proc = subprocess.run([sys.executable, "-m", "gen", "--version"], env=env, capture_output=True, text=True,
                          check=False)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == f"coredns-gen {VERSION}"
    assert lines[1].startswith("coredns-gen-helper build 4 (github.com/fluxcd/pkg/kustomize v")
    assert lines[2] == f"  at {helper}"


def test_version_without_the_helper_exits_3_and_says_once_how_to_get_it(tmp_path, monkeypatch):
    env = {**os.environ, "COREDNS_GEN_HELPER": str(tmp_path / "absent"), "PATH": os.path.dirname(sys.executable)}
    proc = subprocess.run([sys.executable, "-m", "gen", "--version"], env=env, capture_output=True, text=True,
                          check=False)
    assert proc.returncode == 3
    assert proc.stdout == f"coredns-gen {VERSION}\n"
    assert proc.stderr.count("coredns-gen-helper is not installed") == 1
    assert proc.stderr.count("pip install --force-reinstall") == 1 and proc.stderr.count("go build") == 1


def test_platform_tags_cover_linux_and_macos_and_refuse_the_rest():
    hook = _hook()
    assert hook.platform_tag("linux", "amd64").startswith("manylinux_2_17_x86_64.")
    assert hook.platform_tag("linux", "arm64").startswith("manylinux_2_17_aarch64.")
    assert hook.platform_tag("darwin", "arm64") == "macosx_13_0_arm64"
    assert hook.platform_tag("darwin", "amd64") == "macosx_13_0_x86_64"
    with pytest.raises(RuntimeError, match="no wheel for GOOS=windows GOARCH=amd64"):
        hook.platform_tag("windows", "amd64")


def test_a_wheel_without_go_is_refused_naming_go(tmp_path):
    """No wheel without its helper: a build on a machine without Go stops, non-zero, saying so."""
    env = {k: v for k, v in os.environ.items() if k != "GO"}
    env["PATH"] = os.path.dirname(sys.executable)  # this Python's venv: no go, wherever the machine has one
    assert not shutil.which("go", path=env["PATH"])
    proc = subprocess.run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(tmp_path)],
                          cwd=REPO_ROOT, env=env, capture_output=True, text=True, check=False)
    assert proc.returncode != 0
    assert "building this wheel needs Go" in proc.stdout + proc.stderr
    assert not list(tmp_path.glob("*.whl"))


@pytest.mark.slow
def test_an_editable_install_builds_the_helper_where_the_package_looks(tmp_path):
    """`pip install -e .` imports gen from the checkout: hatch runs the hook for the editable wheel
    too, and the helper must land in the checkout's gen/bin (package_bin), not in site-packages."""
    if not shutil.which("go") and not os.environ.get("GO"):
        missing_tool("go", RuntimeError("the build hook compiles tools/helper"))
    checkout = tmp_path / "checkout"
    for part in ("gen", "templates", "tools/helper", "tools/flux-operator"):
        shutil.copytree(REPO_ROOT / part, checkout / part, ignore=shutil.ignore_patterns("bin", "__pycache__"))
    for name in ("pyproject.toml", "README.md", "hatch_build.py"):
        shutil.copy(REPO_ROOT / name, checkout / name)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    proc = subprocess.run([python, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-deps", "-e",
                           str(checkout)], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    env = {k: v for k, v in os.environ.items() if k != "COREDNS_GEN_HELPER"}
    env.update(COREDNS_GEN_BIN=str(tmp_path / "empty"), PATH="/usr/bin:/bin")
    found = subprocess.run([python, "-c", "from gen.tools import helper_binary; print(helper_binary())"], env=env,
                           cwd=tmp_path, capture_output=True, text=True, check=False)
    assert found.stdout.strip() == str(checkout / "gen" / "bin" / "coredns-gen-helper"), found.stderr
    helper = checkout / "gen" / "bin" / "coredns-gen-helper"
    said = subprocess.run([str(helper), "build", "-version"], capture_output=True, text=True, check=False)
    assert said.returncode == 0 and said.stdout.startswith("build 4 ")
    # the Flux Operator CLI its `resourceset` subcommand runs, beside it (tools/flux-operator)
    said = subprocess.run([str(helper), "resourceset", "-version"], capture_output=True, text=True, check=False)
    assert said.returncode == 0 and said.stdout.startswith("client: "), said.stderr


def _flux_repo(root: Path) -> None:
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    build_tree(root, {**FLUX_SYSTEM,
                      "clusters/prod/platform.yaml": flux_ks("platform", "./platform"),
                      "platform/kustomization.yaml": kustomization("coredns-custom.yaml"),
                      "platform/coredns-custom.yaml": configmap("coredns-custom")})
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    git(root, "tag", "base")
    build_tree(root, {"platform/kustomization.yaml": kustomization()})
    git(root, "commit", "-q", "-am", "drop the ConfigMap")


@pytest.mark.slow
def test_the_built_wheel_runs_the_guard_with_its_own_helper(tmp_path, git_bin):
    """sdist -> wheel (python -m build), pip install into a new venv, then --version and a guard
    that must build both revisions with Flux's code: only the wheel's helper can do it."""
    if not shutil.which("go") and not os.environ.get("GO"):
        missing_tool("go", RuntimeError("the wheel's build hook compiles tools/helper"))
    dist = tmp_path / "dist"
    built = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist)], cwd=REPO_ROOT,
                           capture_output=True, text=True, check=False)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    (wheel,) = dist.glob("*.whl")
    tag = wheel.name.removesuffix(".whl").split("-", 2)[2]
    assert tag != "py3-none-any"
    host = subprocess.run(["go", "env", "GOHOSTOS", "GOHOSTARCH"], capture_output=True, text=True, check=True,
                          env={**os.environ, "GOTOOLCHAIN": "local"}).stdout.split()
    assert tag == "py3-none-" + _hook().platform_tag(*host)
    with zipfile.ZipFile(wheel) as archive:
        for name in ("gen/bin/coredns-gen-helper", "gen/bin/coredns-gen-flux-operator"):
            info = archive.getinfo(name)
            assert (info.external_attr >> 16) & stat.S_IXUSR
        assert "Root-Is-Purelib: false" in archive.read(f"coredns_gen-{VERSION}.dist-info/WHEEL").decode()
    # the same way twice: a wheel built from the checkout is byte for byte the one built from the sdist
    again = subprocess.run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir",
                            str(tmp_path / "again")], cwd=REPO_ROOT, capture_output=True, text=True, check=False)
    assert again.returncode == 0, again.stderr[-3000:]
    assert (tmp_path / "again" / wheel.name).read_bytes() == wheel.read_bytes()

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    installed = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q",
                                "--disable-pip-version-check", str(wheel)], capture_output=True, text=True, check=False)
    assert installed.returncode == 0, installed.stderr[-3000:]

    empty_bin = tmp_path / "empty-bin"
    empty_bin.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "COREDNS_GEN_HELPER"}
    env.update(COREDNS_GEN_BIN=str(empty_bin), COREDNS_GEN_CACHE_DIR=str(tmp_path / "cache"),
               PATH=os.pathsep.join([str(venv / "bin"), os.path.dirname(git_bin)]), GITHUB_ACTIONS="")
    assert shutil.which("coredns-gen-helper", path=env["PATH"]) is None
    cli = str(venv / "bin" / "coredns-gen")
    version = subprocess.run([cli, "--version"], env=env, capture_output=True, text=True, check=False)
    assert version.returncode == 0, version.stderr
    lines = version.stdout.splitlines()
    assert lines[0] == f"coredns-gen {VERSION}"
    assert lines[1].startswith("coredns-gen-helper build 4 ")
    assert lines[2].startswith(f"  at {venv}") and lines[2].endswith("/gen/bin/coredns-gen-helper")

    repo = tmp_path / "repo"
    _flux_repo(repo)
    guard = subprocess.run([cli, "guard", "--repo", str(repo), "--base", "base"], env=env, capture_output=True,
                           text=True, check=False, cwd=tmp_path)
    assert guard.returncode == 1, guard.stderr
    assert "not installed" not in guard.stderr
    assert "1 of 1 clusters touched and judged" in guard.stderr
    assert guard.stdout.splitlines()[0].endswith("(configmap-pruned)")
