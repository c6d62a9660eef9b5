"""A real `coredns-gen` process: it leaves with os._exit (no heap teardown), so its output must
still arrive whole and its exit status be the command's own."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gen.cli import app

REPO_ROOT = Path(__file__).resolve().parent.parent


def _process(*args: str, cwd: Path = REPO_ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "gen", *args], cwd=cwd, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})


def test_all_the_output_arrives_before_the_process_leaves() -> None:
    proc = _process("schema")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == CliRunner().invoke(app, ["schema"]).stdout and len(proc.stdout) > 10_000


@pytest.mark.parametrize(("args", "status"), [
    (("--help",), 0),
    (("render", "--check", "examples/talos.yaml"), 0),
    (("guard", "--no-such-option"), 2),
    (("render", "no-such-file.yaml"), 2),
])
def test_the_exit_status_is_the_commands(args: tuple[str, ...], status: int) -> None:
    proc = _process(*args)
    assert proc.returncode == status, proc.stderr
    assert "Traceback" not in proc.stderr


def test_drift_is_exit_1_through_a_real_process(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "talos.yaml").write_text((REPO_ROOT / "examples" / "talos.yaml").read_text())
    proc = _process("render", "--check", "talos.yaml", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
