"""A real fleet render killed at random moments (seeded): every cluster's files stay all old or
all new, or the interrupted render is reported as drift and the next render finishes it.

The fleet: FLEET k3s clusters rendered from dns/ -> dns1/ (old), then re-rendered from dns/ -> dns2/
(new: the symlink swapped, so one values file owns each cluster's files throughout), whose values
differ for every cluster and drop one file per cluster (the PrometheusRule), so writes and
removals are both interrupted. A third of the kills
land at a uniform moment of a whole render, a third while temps are written (a random delay
after the journal appears), a third while they are renamed (after it says `committed`). KILLS (env COREDNS_GEN_KILLS) kills; the figures are printed (-s shows them).
"""

from __future__ import annotations

import fcntl
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT
from tests.helpers import git

pytestmark = pytest.mark.pipeline  # real `coredns-gen render` processes, killed at random moments

FLEET = 200
KILLS = int(os.environ.get("COREDNS_GEN_KILLS", "18"))
SEED = 20261201
ENV = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}


def _values(name: str, new: bool) -> str:
    return (f"cluster: {name}\nplatform: k3s\nplatformVersion: v1.34.9+k3s1\n"
            f"upstream:\n  resolvers: [10.0.{1 if new else 0}.53]\n"
            f"alert:\n  enabled: {'false' if new else 'true'}\n"
            f"flux:\n  interval: {'5m' if new else '10m'}\n")


def _cmd(repo: Path, version: int, *extra: str) -> list[str]:
    """The command that renders `version`, with dns/ pointed at its folder now."""
    link = repo / "dns.tmp"
    link.unlink(missing_ok=True)
    link.symlink_to(f"dns{version}")
    os.replace(link, repo / "dns")
    files = [f"dns/{p.name}" for p in sorted((repo / f"dns{version}").glob("*.yaml"))]
    return [sys.executable, "-m", "gen", "render", *extra, *files]


def _generated(repo: Path) -> dict[str, bytes]:
    """Every file under overlays/ and clusters/, temps included."""
    out = {}
    for top in ("overlays", "clusters"):
        for base, _, names in os.walk(repo / top):
            for name in names:
                path = Path(base, name)
                out[str(path.relative_to(repo))] = path.read_bytes()
    return out


def _cluster(rel: str) -> str:
    parts = rel.split("/")
    return parts[2] if parts[0] == "overlays" else parts[1]


def _by_cluster(files: dict[str, bytes]) -> dict[str, dict[str, bytes]]:
    out: dict[str, dict[str, bytes]] = {}
    for rel, data in files.items():
        out.setdefault(_cluster(rel), {})[rel] = data
    return out


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, dict[str, bytes]], dict[str, dict[str, bytes]]]:
    """The repo rendered from dns1/, and each cluster's files after rendering dns1/ or dns2/."""
    repo = tmp_path_factory.mktemp("fleet")
    git(repo, "init", "-q")
    for version in (1, 2):
        (repo / f"dns{version}").mkdir()
        for i in range(FLEET):
            (repo / f"dns{version}/c{i:04d}.yaml").write_text(_values(f"c{i:04d}", version == 2))
    for version in (2, 1):
        proc = subprocess.run(_cmd(repo, version), cwd=repo, env=ENV, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        if version == 2:
            new = _by_cluster(_generated(repo))
    old = _by_cluster(_generated(repo))
    assert all(old[c] != new[c] for c in old) and len(old) == FLEET
    return repo, old, new


def _start(repo: Path, version: int) -> subprocess.Popen[str]:
    return subprocess.Popen(_cmd(repo, version), cwd=repo, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def _check(repo: Path, version: int) -> int:
    return subprocess.run(_cmd(repo, version, "--check"), cwd=repo, env=ENV, capture_output=True, text=True, timeout=300).returncode


def _render(repo: Path, version: int) -> subprocess.CompletedProcess[str]:
    return subprocess.run(_cmd(repo, version), cwd=repo, env=ENV, capture_output=True, text=True, timeout=300)


def _wait_for(path: Path, proc: subprocess.Popen[str], limit: float = 60.0, *, committed: bool = False) -> bool:
    """Until the journal exists (or says `committed`); False when the render ended first."""
    deadline = time.monotonic() + limit
    while True:
        try:
            if not committed and path.exists() or committed and '"committed"' in path.read_text():
                return True
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            return False
        time.sleep(0.001)


def _judge(repo: Path, old: dict[str, dict[str, bytes]], new: dict[str, dict[str, bytes]]) -> tuple[int, int, int, bool]:
    """(clusters all old, all new, mixed, temps or journal present) after a kill."""
    now = _generated(repo)
    temps = [rel for rel in now if rel.endswith(".coredns-gen.tmp")]
    files = _by_cluster({rel: data for rel, data in now.items() if rel not in temps})
    counts = [0, 0, 0]
    for cluster in old:
        mine = files.get(cluster, {})
        counts[0 if mine == old[cluster] else 1 if mine == new[cluster] else 2] += 1
    leftovers = bool(temps) or (repo / ".git/coredns-gen.journal").exists()
    return counts[0], counts[1], counts[2], leftovers


def test_sigkill_at_random_moments_keeps_every_cluster_whole(fleet: tuple[Path, dict[str, dict[str, bytes]], dict[str, dict[str, bytes]]]) -> None:
    """Each round renders the other version over the one in place (dns1 -> dns2 -> dns1 ...),
    kills it, judges, and lets the next render finish it."""
    repo, v1, v2 = fleet
    rng = random.Random(SEED)
    started = time.monotonic()
    assert _render(repo, 2).returncode == 0
    whole = time.monotonic() - started
    journal = repo / ".git/coredns-gen.journal"
    figures = {"kills": 0, "all old": 0, "some new": 0, "all new": 0, "mixed, reported": 0, "journal left": 0}
    current = 2
    for k in range(KILLS):
        target = 1 if current == 2 else 2
        old, new = (v1, v2) if target == 2 else (v2, v1)
        proc = _start(repo, target)
        if k % 3 == 0:
            time.sleep(rng.uniform(0, whole * 1.1))
        elif k % 3 == 1:
            if _wait_for(journal, proc):  # temps being written
                time.sleep(rng.uniform(0, 0.05))
        elif _wait_for(journal, proc, committed=True):  # renames under way
            time.sleep(rng.uniform(0, 0.02))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        figures["kills"] += 1
        n_old, n_new, mixed, leftovers = _judge(repo, old, new)
        figures["all old" if n_new == 0 and mixed == 0 else "all new" if n_old == 0 and mixed == 0 else "some new"] += 1
        figures["journal left"] += journal.exists()
        before = _generated(repo)
        check = _check(repo, target)
        assert _generated(repo) == before, "render --check changed a file"
        if mixed:
            # A cluster half old, half new is only allowed while the journal says so: --check calls it drift.
            assert journal.exists() and check == 1, (k, n_old, n_new, mixed)
            figures["mixed, reported"] += 1
        assert check == (0 if n_old == 0 and mixed == 0 and not leftovers else 1), (k, n_old, n_new, mixed, leftovers, check)
        finished = _render(repo, target)
        assert finished.returncode == 0, finished.stderr
        assert _by_cluster(_generated(repo)) == new and not journal.exists()
        current = target
    assert _check(repo, current) == 0
    print(f"\nkill test: {FLEET} values files, a whole render {whole:.2f} s; {figures}")
    assert figures["kills"] == KILLS


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_sigterm_and_sigint_leave_no_temp_and_no_half_cluster(fleet: tuple[Path, dict[str, dict[str, bytes]], dict[str, dict[str, bytes]]],
                                                             signum: int) -> None:
    repo, old, new = fleet
    journal = repo / ".git/coredns-gen.journal"
    rng = random.Random(SEED + signum)
    outcomes = []
    for _ in range(4):
        assert _render(repo, 1).returncode == 0
        proc = _start(repo, 2)
        assert _wait_for(journal, proc), "the render ended before writing"
        time.sleep(rng.uniform(0, 0.03))
        proc.send_signal(signum)
        _, stderr = proc.communicate(timeout=120)
        n_old, n_new, mixed, leftovers = _judge(repo, old, new)
        assert (mixed, leftovers) == (0, False), (n_old, n_new, mixed, leftovers, stderr)
        assert n_old in (0, FLEET)
        assert proc.returncode == 128 + signum, stderr
        assert stderr.endswith(f"interrupted by {signal.Signals(signum).name}: every file is as before this run or as after it; "
                               "`coredns-gen render --check` shows which\n")
        outcomes.append("old" if n_old else "new")
    assert _check(repo, 1 if outcomes[-1] == "old" else 2) == 0


def test_two_renders_at_once(fleet: tuple[Path, dict[str, dict[str, bytes]], dict[str, dict[str, bytes]]]) -> None:
    repo, old, new = fleet
    assert _render(repo, 1).returncode == 0
    first, second = _start(repo, 2), _start(repo, 2)
    results = [(p.wait(timeout=300), p.communicate()[1]) for p in (first, second)]
    assert [code for code, _ in results] == [0, 0], results
    n_old, n_new, mixed, leftovers = _judge(repo, old, new)
    assert (n_new, mixed, leftovers) == (FLEET, 0, False)
    assert _check(repo, 2) == 0


def test_a_second_render_gives_up_after_waiting(fleet: tuple[Path, dict[str, dict[str, bytes]], dict[str, dict[str, bytes]]]) -> None:
    repo, old, _ = fleet
    assert _render(repo, 1).returncode == 0
    before = _generated(repo)
    with open(repo / ".git/coredns-gen.lock", "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        proc = subprocess.run(_cmd(repo, 2), cwd=repo, env={**ENV, "COREDNS_GEN_LOCK_WAIT": "0.5"}, capture_output=True, text=True)
    assert (proc.returncode, proc.stderr) == (2, "another render is running (it holds .git/coredns-gen.lock; waited 0.5 s) — "
                                                 "fix: wait for it to finish and run again\n")
    assert _generated(repo) == before
