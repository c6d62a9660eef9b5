"""Fleet renders split over forked processes: same result as one process, in argument order."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from gen import parallel
from gen.render import project
from gen.corefile import helper as corefile_helper
from gen.errors import ValuesError
from tests.conftest import REPO_ROOT

needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="fork() is POSIX-only; elsewhere the fleet renders in one process")


def test_split_is_contiguous_near_equal_and_complete() -> None:
    items = list(range(11))
    shares = parallel.split(items, 4)
    assert [len(s) for s in shares] == [3, 3, 3, 2]
    assert [x for s in shares for x in s] == items


@needs_fork
def test_fork_map_keeps_chunk_order_and_uses_other_processes() -> None:
    def work(chunk: list[int]) -> tuple[int, list[int]]:
        time.sleep(0.005)
        return os.getpid(), [x * x for x in chunk]

    chunks = [[i, i + 1] for i in range(0, 40, 2)]
    results = parallel.fork_map(work, chunks, 3)
    assert [r[1] for r in results] == [[x * x for x in chunk] for chunk in chunks]
    assert len({pid for pid, _ in results}) > 1


@needs_fork
def test_a_slow_worker_takes_fewer_chunks() -> None:
    parent = os.getpid()

    def work(chunk: list[int]) -> int:
        time.sleep(0.05 if os.getpid() == parent else 0.005)  # this process runs on a busy core
        return os.getpid()

    pids = parallel.fork_map(work, [[i] for i in range(20)], 2)
    assert 1 <= pids.count(parent) < 10


@needs_fork
def test_chunks_of_a_child_that_dies_are_redone_here() -> None:
    parent = os.getpid()

    def work(chunk: list[int]) -> list[int]:
        if os.getpid() != parent and chunk[0] % 2:
            os._exit(9)  # a crashing child: whatever it claimed must still be in the result
        return [x + 1 for x in chunk]

    assert parallel.fork_map(work, [[i] for i in range(12)], 3) == [[i + 1] for i in range(12)]


@needs_fork
@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="counts children in Linux's /proc")
def test_a_failure_here_stops_and_reaps_the_children(tmp_path: Path) -> None:
    parent = os.getpid()
    failed = tmp_path / "parent-failed"
    corefile_helper.close()  # (a Corefile helper an earlier test started is a child of this process too)

    def work(chunk: list[int]) -> list[int]:
        if os.getpid() == parent:
            failed.touch()
            raise RuntimeError("boom")
        # Each child holds its first chunk until the parent has failed, so the parent always
        # claims one, however the machine schedules the processes (a loaded CI ran it late).
        deadline = time.monotonic() + 30
        while not failed.exists() and time.monotonic() < deadline:
            time.sleep(0.005)
        return chunk

    before = _children()
    with pytest.raises(RuntimeError, match="boom"):
        parallel.fork_map(work, [[i] for i in range(8)], 3)
    assert _children() <= before  # no child left behind, not even a zombie


def _children() -> set[int]:
    """This process's children, zombies included (Linux /proc): what an earlier test left (a
    helper another test started) is no child of fork_map's."""
    found: set[int] = set()
    for task in os.listdir(f"/proc/{os.getpid()}/task"):
        with open(f"/proc/{os.getpid()}/task/{task}/children") as fh:
            found.update(int(pid) for pid in fh.read().split())
    return found


def _fleet(tmp_path: Path, count: int) -> list[Path]:
    paths = []
    for i in range(count):
        platform = ("talos", "k3s", "aks")[i % 3]
        text = (REPO_ROOT / f"examples/{platform}.yaml").read_text()
        for name in ("prod-talos", "edge-k3s", "aks-westeu"):
            text = text.replace(f"cluster: {name}", f"cluster: c{i:03d}").replace(f"examples/clusters/{name}/", f"clusters/c{i:03d}/")
        path = tmp_path / f"dns/c{i:03d}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        paths.append(path)
    return paths


@needs_fork
def test_a_forked_fleet_render_equals_the_one_process_render(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    paths = _fleet(tmp_path, project.PARALLEL_FROM + 7)
    monkeypatch.setattr(parallel, "cores", lambda: 3)
    forked = project.render_files(paths, tmp_path)
    monkeypatch.setattr(parallel, "cores", lambda: 1)
    single = project.render_files(paths, tmp_path)
    assert list(forked) == list(single) and forked == single
    assert len(forked) == sum((3, 6, 3)[i % 3] for i in range(len(paths)))  # talos, k3s, aks: files per cluster


@needs_fork
def test_a_forked_fleet_reports_every_bad_file_in_argument_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    paths = _fleet(tmp_path, project.PARALLEL_FROM + 7)
    bad = [paths[1], paths[len(paths) // 2], paths[-1]]
    for path in bad:
        path.write_text(path.read_text().replace("platform:", "platfrom:"))
    monkeypatch.setattr(parallel, "cores", lambda: 3)
    with pytest.raises(ValuesError) as caught:
        project.render_files(paths, tmp_path)
    shown = [problem.file for problem in caught.value.problems]
    assert sorted(set(shown), key=shown.index) == [f"dns/{p.name}" for p in bad]


def test_a_process_with_threads_does_not_fork() -> None:
    import threading

    release = threading.Event()
    helper = threading.Thread(target=release.wait)
    helper.start()
    try:
        pids = parallel.fork_map(lambda chunk: os.getpid(), [[1], [2], [3]], 3)
    finally:
        release.set()
        helper.join()
    assert pids == [os.getpid()] * 3


@needs_fork
def test_when_fork_fails_this_process_does_all_the_work(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_fork() -> int:
        raise BlockingIOError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", no_fork)
    assert parallel.fork_map(lambda chunk: [x * 2 for x in chunk], [[1], [2], [3]], 3) == [[2], [4], [6]]
