"""`pip install coredns-gen` carries its helpers: the wheel's build hook (hatch_build.py) compiles
tools/helper's programs into gen/bin, the wheel is tagged for its platform, and an install finds
them before any other; `pip install -e .` builds only coredns-gen-corefile (what render needs).
The slow test builds the sdist and the wheel from it, installs the wheel in a new virtual
environment and runs the guard there with nothing else to find."""

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

from gen import helperbuild, tools
from gen.errors import ToolError
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
    monkeypatch.setattr(tools, "source_root", lambda: None)  # an installed wheel: no tools/helper beside it
    monkeypatch.setenv("COREDNS_GEN_BIN", str(cached.parent))
    monkeypatch.setenv("PATH", str(on_path.parent))
    monkeypatch.delenv("COREDNS_GEN_HELPER", raising=False)
    assert tools.helper_binary() == own
    assert tools.corefile_binary() == own  # a wheel carries no coredns-gen-corefile: its helper answers for it
    small = _executable(own.parent / tools.COREFILE_NAME)
    assert tools.corefile_binary() == small  # (an editable install's)
    small.unlink()
    own.unlink()
    assert tools.helper_binary() == cached
    cached.unlink()
    assert tools.helper_binary() == on_path
    monkeypatch.setenv("COREDNS_GEN_HELPER", str(tmp_path / "explicit"))
    assert tools.helper_binary() is None  # an explicit path that is not there is not replaced by a guess


def test_package_bin_is_where_the_build_hook_puts_the_helper():
    assert tools.package_bin() / tools.HELPER_NAME == REPO_ROOT / _hook().HELPER_DEST
    assert tools.package_bin() / tools.COREFILE_NAME == REPO_ROOT / _hook().COREFILE_DEST


def test_a_checkout_takes_only_the_helper_built_from_its_own_source(tmp_path, monkeypatch):
    """From a checkout, coredns-gen-helper is the one built from its tools/helper (a folder of the
    cache bin named for that source): not a leftover in gen/bin, the cache bin or PATH, which
    may have been built from other code; none built yet is None, and a scratch folder a killed
    build left is not a build."""
    checkout = tmp_path / "checkout"
    for part in ("tools/helper", "tools/flux-operator"):
        shutil.copytree(REPO_ROOT / part, checkout / part)
    stale = _executable(tmp_path / "pkg" / "coredns-gen-helper")
    cached = _executable(tmp_path / "cache" / "coredns-gen-helper")
    monkeypatch.setattr(tools, "package_bin", lambda: stale.parent)
    monkeypatch.setattr(tools, "source_root", lambda: checkout)
    monkeypatch.setenv("COREDNS_GEN_BIN", str(cached.parent))
    monkeypatch.setenv("PATH", str(stale.parent))
    monkeypatch.delenv("COREDNS_GEN_HELPER", raising=False)
    assert tools.helper_binary() is None
    folder = helperbuild.built_folder(checkout, cached.parent)
    _executable(cached.parent / f".{folder.name}.x1y2z3" / "coredns-gen-helper")  # a killed build's scratch
    assert tools.helper_binary() is None
    built = _executable(folder / "coredns-gen-helper")
    assert tools.helper_binary() == built
    # an edit to the helper's Go source is another source: built anew, never the old build
    main = checkout / "tools/helper/main.go"
    main.write_text(main.read_text() + "\n// edited\n")
    assert helperbuild.built_folder(checkout, cached.parent) != folder and tools.helper_binary() is None
    # a test file is not what the program is built from
    (checkout / "tools/helper/lines/more_test.go").write_text("package lines\n")
    assert helperbuild.source_key(checkout) == helperbuild.built_folder(checkout, cached.parent).name[len("helper-"):]


def test_the_build_recipes_load_without_the_package(tmp_path):
    """hatch_build.py loads gen/helperbuild.py by its path, before the package is installed: it may
    import nothing but the standard library."""
    import ast

    tree = ast.parse((REPO_ROOT / "gen/helperbuild.py").read_text())
    imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    assert imported <= set(sys.stdlib_module_names) | {"__future__"}, imported
    recipes = _hook().recipes(REPO_ROOT)
    assert recipes.AT_INSTALL == ("coredns-gen-corefile",)
    assert set(recipes.RECIPES) == {*recipes.AT_INSTALL, *recipes.ON_FIRST_USE}


def test_version_names_the_package_and_the_helpers(tmp_path):
    helper, corefile = tools.helper_binary(), tools.corefile_binary()
    if helper is None or corefile is None:
        missing_tool("coredns-gen-helper", RuntimeError(tools.HELPER_BUILD_HINT))
    proc = subprocess.run([sys.executable, "-m", "gen", "--version"], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == f"coredns-gen {VERSION}"
    assert lines[1].startswith("coredns-gen-corefile corefile 3 (github.com/coredns/caddy v")
    assert lines[2] == f"  at {corefile}"
    assert lines[3].startswith("coredns-gen-helper build 4 (github.com/fluxcd/pkg/kustomize v")
    assert lines[4] == f"  at {helper}"


def test_version_in_a_checkout_whose_guard_has_not_run_says_when_the_helper_is_built(tmp_path):
    """`pip install -e .` builds coredns-gen-corefile only: --version names it, and says the guard
    builds coredns-gen-helper on first use (exit 0: nothing is missing)."""
    corefile = tools.corefile_binary()
    if corefile is None or os.environ.get(tools.HELPER_ENV):
        missing_tool("coredns-gen-corefile", RuntimeError(tools.COREFILE_BUILD_HINT))
    env = {**os.environ, "COREDNS_GEN_BIN": str(tmp_path / "empty")}
    proc = subprocess.run([sys.executable, "-m", "gen", "--version"], env=env, capture_output=True, text=True,
                          check=False, cwd=REPO_ROOT)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[1].startswith("coredns-gen-corefile corefile 3 ")
    assert lines[2:] == [f"  at {corefile}", "coredns-gen-helper not built yet: the guard builds it from tools/helper "
                                               "on first use (or scripts/setup-dev)"]
    assert not (tmp_path / "empty").exists()  # --version builds nothing


def test_version_without_the_helper_exits_3_and_says_once_how_to_get_it(tmp_path, monkeypatch):
    env = {**os.environ, "COREDNS_GEN_HELPER": str(tmp_path / "absent"), "PATH": os.path.dirname(sys.executable)}
    proc = subprocess.run([sys.executable, "-m", "gen", "--version"], env=env, capture_output=True, text=True,
                          check=False)
    assert proc.returncode == 3
    assert proc.stdout == f"coredns-gen {VERSION}\n"
    assert proc.stderr.count("coredns-gen-corefile is not installed") == 1
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
def test_an_editable_install_builds_only_what_render_needs_where_the_package_looks(tmp_path):
    """`pip install -e .` imports gen from the checkout: hatch runs the hook for the editable wheel
    too, and coredns-gen-corefile must land in the checkout's gen/bin (package_bin), not in
    site-packages; Flux's build (coredns-gen-helper) and the Flux Operator CLI are not built
    (they were most of a first install's 39 minutes), and render works without them."""
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
    assert sorted(p.name for p in (checkout / "gen" / "bin").iterdir()) == [
        "coredns-gen-corefile", "coredns-gen-corefile" + helperbuild.SOURCE_SUFFIX]  # and what it was built from
    env = {k: v for k, v in os.environ.items() if k != "COREDNS_GEN_HELPER"}
    env.update(COREDNS_GEN_BIN=str(tmp_path / "empty"), PATH="/usr/bin:/bin")
    found = subprocess.run([python, "-c", "from gen.tools import corefile_binary, helper_binary; "
                            "print(corefile_binary(), helper_binary())"], env=env,
                           cwd=tmp_path, capture_output=True, text=True, check=False)
    assert found.stdout.split() == [str(checkout / "gen" / "bin" / "coredns-gen-corefile"), "None"], found.stderr
    said = subprocess.run([str(checkout / "gen" / "bin" / "coredns-gen-corefile"), "corefile", "-version"],
                          capture_output=True, text=True, check=False)
    assert said.returncode == 0 and said.stdout.startswith("corefile 3 ")
    refused = subprocess.run([str(checkout / "gen" / "bin" / "coredns-gen-corefile"), "build", "-version"],
                             capture_output=True, text=True, check=False)
    assert refused.returncode == 2 and 'unknown subcommand "build"' in refused.stderr
    shutil.copy(REPO_ROOT / "examples/k3s.yaml", tmp_path / "k3s.yaml")
    # render from that checkout (this interpreter has the dependencies the --no-deps venv lacks)
    rendered = subprocess.run([sys.executable, "-m", "gen", "render", "--repo", str(tmp_path), "k3s.yaml"],
                              env={**env, "PYTHONPATH": str(checkout)}, cwd=tmp_path, capture_output=True, text=True,
                              check=False)
    assert rendered.returncode == 0, rendered.stderr
    assert not (tmp_path / "empty").exists()  # nothing built on the way


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
        assert sorted(n for n in archive.namelist() if n.startswith("gen/bin/")) == [
            "gen/bin/coredns-gen-flux-operator", "gen/bin/coredns-gen-helper"]  # it answers for coredns-gen-corefile
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
    assert lines[1].startswith("coredns-gen-helper corefile 3 ")
    assert lines[2].startswith(f"  at {venv}") and lines[2].endswith("/gen/bin/coredns-gen-helper")
    assert lines[3].startswith("coredns-gen-helper build 4 ")
    assert lines[4].startswith(f"  at {venv}") and lines[4].endswith("/gen/bin/coredns-gen-helper")

    repo = tmp_path / "repo"
    _flux_repo(repo)
    guard = subprocess.run([cli, "guard", "--repo", str(repo), "--base", "base"], env=env, capture_output=True,
                           text=True, check=False, cwd=tmp_path)
    assert guard.returncode == 1, guard.stderr
    assert "not installed" not in guard.stderr
    assert "1 of 1 clusters touched and judged" in guard.stderr
    assert guard.stdout.splitlines()[0].endswith("(configmap-pruned)")


def test_a_checkouts_corefile_program_is_taken_only_while_built_from_its_source(tmp_path, monkeypatch):
    """The coredns-gen-corefile `pip install -e .` built links the CoreDNS code of tools/helper as it
    was then: after an edit or a pull it would answer for other code (a plugin setup it does not
    link reads as not judged, and lint passes what CoreDNS refuses). It is taken only while its
    recorded source is the checkout's; else the helper built from this source answers, and with
    none the run stops saying how to rebuild."""
    checkout = tmp_path / "checkout"
    for part in ("tools/helper", "tools/flux-operator"):
        shutil.copytree(REPO_ROOT / part, checkout / part)
    small = _executable(tmp_path / "pkg" / tools.COREFILE_NAME)
    monkeypatch.setattr(tools, "package_bin", lambda: small.parent)
    monkeypatch.setattr(tools, "source_root", lambda: checkout)
    monkeypatch.setenv("COREDNS_GEN_BIN", str(tmp_path / "cache"))
    monkeypatch.delenv("COREDNS_GEN_HELPER", raising=False)
    helperbuild.record_source(checkout, "coredns-gen-corefile", small)
    assert tools.corefile_binary() == small
    main = checkout / "tools/helper/setup/setup.go"
    main.write_text(main.read_text() + "\n// a plugin linked since\n")
    with pytest.raises(ToolError, match="built from another version") as refused:
        tools.corefile_binary()
    assert "pip install -e" in str(refused.value)
    built = _executable(helperbuild.built_folder(checkout, tmp_path / "cache") / tools.HELPER_NAME)
    assert tools.corefile_binary() == built  # the guard's helper of this very source answers instead
    helperbuild.record_source(checkout, "coredns-gen-corefile", small)  # `pip install -e .` again
    assert tools.corefile_binary() == small
    small.with_name(small.name + helperbuild.SOURCE_SUFFIX).unlink()  # built before sources were recorded
    assert tools.corefile_binary() == built
