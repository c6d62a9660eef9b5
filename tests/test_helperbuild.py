"""A checkout builds coredns-gen-helper (Flux's build) and the Flux Operator CLI the first time the
guard needs them (gen/helperbuild.py): into a folder of the cache bin named for their source,
atomically, once for two guards started together, saying what it builds and why, and only when
what it built answers this package's protocol; with no Go, exit 3 and a hint, nothing built."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gen import helperbuild, tools
from tests.conftest import REPO_ROOT, missing_tool
from tests.guard.conftest import FLUX_SYSTEM, configmap, flux_ks, kustomization
from tests.helpers import build_tree, git


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


def _env(tmp_path: Path, bin_dir: Path) -> dict[str, str]:
    """This Python and git on PATH, nothing else (no go); the given cache bin; no explicit helper."""
    tools_dir = tmp_path / "path"
    tools_dir.mkdir(exist_ok=True)
    git_bin = tools.git_binary()
    if not (tools_dir / "git").exists():
        (tools_dir / "git").symlink_to(git_bin)
    env = {k: v for k, v in os.environ.items() if k not in ("COREDNS_GEN_HELPER", "GO")}
    env.update(PATH=os.pathsep.join([os.path.dirname(sys.executable), str(tools_dir)]), COREDNS_GEN_BIN=str(bin_dir),
               COREDNS_GEN_CACHE_DIR=str(tmp_path / "cache"), GITHUB_ACTIONS="")
    return env


def test_the_guards_first_run_without_go_exits_3_naming_go_and_builds_nothing(tmp_path: Path) -> None:
    """From a checkout whose helper is not built yet, the guard cannot judge without Flux's build:
    it must say that building it needs Go (exit 3, the hint naming how to get it), not pass, not
    fall back on some other coredns-gen-helper, and leave the cache bin as it was."""
    repo = tmp_path / "repo"
    _flux_repo(repo)
    bin_dir = tmp_path / "bin"
    env = _env(tmp_path, bin_dir)
    assert not any(Path(d, "go").exists() for d in env["PATH"].split(os.pathsep))
    proc = subprocess.run([sys.executable, "-m", "gen", "guard", "--repo", str(repo), "--base", "base"], env=env,
                          cwd=REPO_ROOT, capture_output=True, text=True, check=False)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert "is built from" in proc.stderr and "that needs Go: none was found on PATH or in $GO" in proc.stderr
    assert "fix: install Go" in proc.stderr and "pip install --only-binary coredns-gen coredns-gen" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not bin_dir.exists() or not any(bin_dir.iterdir())


def test_a_program_that_answers_another_protocol_is_refused() -> None:
    """What was built must speak this package's protocol: coredns-gen-corefile has no `build`
    subcommand, so taken for coredns-gen-helper it is refused, naming what was expected."""
    corefile = tools.corefile_binary()
    if corefile is None:
        missing_tool("coredns-gen-corefile", RuntimeError(tools.COREFILE_BUILD_HINT))
    assert corefile is not None
    assert helperbuild.verify(corefile, "coredns-gen-corefile").startswith("corefile 3 ")
    with pytest.raises(helperbuild.BuildError, match="this coredns-gen needs `build 4`"):
        helperbuild.verify(corefile, "coredns-gen-helper")


@pytest.mark.slow
def test_two_guards_building_at_once_build_once_and_share_it(tmp_path: Path) -> None:
    """Two processes that need the helper at the same moment: one builds (saying what and why),
    the other waits for it and takes its build; one folder results, no scratch left behind, and
    the helper in it answers the build protocol with the Flux Operator CLI beside it."""
    go = helperbuild.go_command()
    if go is None:
        missing_tool("go", RuntimeError("the helper is built with Go"))
    assert go is not None
    bin_dir = tmp_path / "bin"
    env = {**_env(tmp_path, bin_dir), "PATH": os.pathsep.join([os.path.dirname(go), os.path.dirname(sys.executable)])}
    ask = "from gen.tools import helper_binary; print(helper_binary(build=True))"
    procs = [subprocess.Popen([sys.executable, "-c", ask], env=env, cwd=REPO_ROOT, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [p.communicate(timeout=3600) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    folder = helperbuild.built_folder(REPO_ROOT, bin_dir)
    assert [out.strip() for out, _ in outs] == [str(folder / "coredns-gen-helper")] * 2
    errs = sorted((err for _, err in outs), key=lambda e: "waiting" in e)
    assert "coredns-gen: building coredns-gen-helper (Flux's own build library, for the guard)" in errs[0]
    assert "which `pip install -e .` leaves out" in errs[0] and f"coredns-gen: built {folder}" in errs[0]
    assert errs[1].startswith("coredns-gen: waiting for another coredns-gen that is building") and "building" in errs[1]
    assert "coredns-gen: building" not in errs[1]
    assert sorted(p.name for p in bin_dir.iterdir()) == sorted([folder.name, f".{folder.name}.lock"])
    assert sorted(p.name for p in folder.iterdir()) == ["coredns-gen-flux-operator", "coredns-gen-helper"]
    assert helperbuild.verify(folder / "coredns-gen-helper", "coredns-gen-helper").startswith("build 4 ")
