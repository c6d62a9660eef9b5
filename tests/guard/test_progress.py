"""Progress on stderr only for a terminal; the one-kubectl-per-build fallback is said aloud.

The real CLI runs as a subprocess: its stderr is a pseudo-terminal in one case and a pipe in the
other, as a desk shell and a CI log give it.
"""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import termios
import subprocess
import sys
from pathlib import Path

from tests.guard.conftest import FLUX_SYSTEM, configmap, flux_ks, kustomization

REPO = Path(__file__).resolve().parents[2]
BASE = {
    "clusters/prod/apps.yaml": flux_ks("apps", "./apps"),
    "apps/kustomization.yaml": kustomization("a.yaml", "b.yaml"),
    "apps/a.yaml": configmap("a", namespace="apps"),
    "apps/b.yaml": configmap("b", namespace="apps"),
}
HEAD = {"apps/kustomization.yaml": kustomization("a.yaml")}


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO), "GITHUB_ACTIONS": "", "COREDNS_GEN_CACHE_DIR": str(tmp_path / "cache"),
            "COLUMNS": "200", **extra}


def _guard(root: Path) -> list[str]:
    return [sys.executable, "-m", "gen", "guard", "--repo", str(root), "--base", "base", "--format", "json"]


def _run_on_pty(argv: list[str], env: dict[str, str], columns: int = 0) -> tuple[int, str, str]:
    """Run with stderr on a pseudo-terminal (`columns` wide); return (exit, stdout, what it showed)."""
    master, slave = pty.openpty()
    if columns:
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=slave, stdin=subprocess.DEVNULL)
    os.close(slave)
    shown = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        shown += chunk
    assert proc.stdout is not None
    out = proc.stdout.read().decode()
    os.close(master)
    return proc.wait(), out, shown.decode("utf-8", "replace")


def test_a_terminal_sees_what_is_built_and_how_many_of_how_many(flux_repo, tmp_path, batch_bin):
    root = flux_repo(BASE, HEAD)
    code, out, shown = _run_on_pty(_guard(root), _env(tmp_path))
    assert code == 1
    assert '"rule": "configmap-pruned"' in out  # stdout is the report, untouched
    assert "guard: reading base and HEAD" in shown
    assert "guard: building Kustomizations of clusters/prod/flux-system/gotk-sync.yaml 0/" in shown
    assert "guard: built 1/1" in shown or "guard: built 2/2" in shown
    assert "guard: judging 1 clusters" in shown
    # the progress line is wiped before the summary, which stays on its own line
    assert "\r\x1b[Kguard " in shown and shown.rstrip().endswith("0 allowed")


def test_a_pipe_gets_only_the_summary(flux_repo, tmp_path, batch_bin):
    root = flux_repo(BASE, HEAD)
    proc = subprocess.run(_guard(root), env=_env(tmp_path), capture_output=True, text=True)
    assert proc.returncode == 1
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("guard ")
    assert "\r" not in proc.stderr and "\x1b" not in proc.stderr


def test_the_progress_line_uses_the_terminal_width_not_80_columns(flux_repo, tmp_path, batch_bin):
    """stdout is a pipe (as `> out.json` makes it); the terminal is stderr, 200 columns wide."""
    deep = "clusters/region-europe-west/production-cluster-042"
    files = {f"{deep}/flux-system/{name}": text.replace("./clusters/prod", f"./{deep}")
             for name, text in ((p.rsplit("/", 1)[1], t) for p, t in FLUX_SYSTEM.items())}
    base = {**files, **{k.replace("clusters/prod", deep): v for k, v in BASE.items()}}
    root = flux_repo(base, HEAD, standard=False)
    env = {k: v for k, v in _env(tmp_path).items() if k != "COLUMNS"}
    code, _, shown = _run_on_pty(_guard(root), env, columns=200)
    line = f"guard: building Kustomizations of {deep}/flux-system/gotk-sync.yaml 0/"
    assert len(line) > 80 and line in shown
