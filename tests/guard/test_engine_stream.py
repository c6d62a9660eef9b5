"""The batch engine streams: builds start before the last job is on disk, outcomes arrive as they
are done, and every way the batch program or the placing can fail stops the run with its cause."""

from __future__ import annotations

import errno
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from gen.errors import ToolError
from gen.guard.build.engine import Engine, Job
from gen.guard.repo.revision import Tree


def fake_batch(tmp_path: Path, body: str) -> Path:
    """A coredns-gen-helper stand-in speaking its protocol: `body` runs per request line (`req`)."""
    script = tmp_path / "fake-batch"
    script.write_text(f"#!{sys.executable}\nimport json, sys\n"
                      f"for line in sys.stdin:\n    req = json.loads(line)\n"
                      + "".join(f"    {row}\n" for row in body.strip().splitlines()))
    script.chmod(0o755)
    return script


ECHO = 'print(json.dumps({"id": req["id"], "objects": [{"kind": "ConfigMap", "dir": req["dir"]}]}), flush=True)'


class _Placed(Tree):
    """An artifact whose placing on disk runs a hook (what `_feed` does before sending a job)."""

    hook: Callable[[], None] | None = None

    def on_disk(self) -> Path:
        if self.hook is not None:
            self.hook()
        return self.root


def engine_with(tmp_path: Path, batch: Path, monkeypatch: pytest.MonkeyPatch,
                place: Callable[[Job], None] | None = None) -> Engine:
    engine = Engine(parallel=2)
    engine.helper = batch
    engine.place = place  # type: ignore[attr-defined]
    return engine


def jobs(n: int, tmp_path: Path, engine: Engine | None = None) -> list[Job]:
    out = []
    for i in range(n):
        tree = _Placed(commit="0" * 40, root=tmp_path / f"job{i}")
        job = Job(f"job{i}", tree, "", {})
        place = getattr(engine, "place", None)
        if place is not None:
            tree.hook = (lambda j=job, f=place: f(j))
        out.append(job)
    return out


def test_a_build_starts_before_the_last_job_is_on_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first_done = threading.Event()
    placed_last_before_first_result: list[bool] = []

    def place(job: Job) -> None:
        if job.key == "job4":  # the last job waits for the first outcome: a batch run only after
            placed_last_before_first_result.append(not first_done.wait(timeout=30))  # placing all never gives one

    engine = engine_with(tmp_path, fake_batch(tmp_path, ECHO), monkeypatch, place)
    outcomes = []
    for key, _ in engine.run(jobs(5, tmp_path, engine)):
        outcomes.append(key)
        first_done.set()
    assert sorted(outcomes) == [f"job{i}" for i in range(5)]
    assert placed_last_before_first_result == [False]


def test_every_outcome_is_the_batch_programs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    engine = engine_with(tmp_path, fake_batch(tmp_path, ECHO), monkeypatch)
    got = dict(engine.run(jobs(3, tmp_path, engine)))
    assert {k: o.objects for k, o in got.items()} == {f"job{i}": [{"kind": "ConfigMap", "dir": str(tmp_path / f"job{i}")}]
                                                       for i in range(3)}
    assert engine.builds == 3


def test_a_batch_program_that_dies_is_a_tool_error_with_what_it_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    dying = fake_batch(tmp_path, f'{ECHO}\nsys.stderr.write("fatal: out of cheese\\n")\nsys.exit(3)')
    engine = engine_with(tmp_path, dying, monkeypatch)
    with pytest.raises(ToolError) as raised:
        list(engine.run(jobs(50, tmp_path, engine)))
    assert "failed" in str(raised.value) and "out of cheese" in raised.value.stderr


def test_a_batch_program_that_forgets_builds_is_a_tool_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    forgetful = fake_batch(tmp_path, f'if req["id"] != "job1":\n    {ECHO}')
    engine = engine_with(tmp_path, forgetful, monkeypatch)
    with pytest.raises(ToolError, match="returned no result for 1 builds"):
        list(engine.run(jobs(3, tmp_path, engine)))


def test_a_job_that_cannot_be_placed_stops_the_run_with_its_own_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def place(job: Job) -> None:
        if job.key == "job2":
            raise OSError(errno.ENOSPC, "No space left on device")

    engine = engine_with(tmp_path, fake_batch(tmp_path, ECHO), monkeypatch, place)
    with pytest.raises(OSError) as raised:
        list(engine.run(jobs(5, tmp_path, engine)))
    assert raised.value.errno == errno.ENOSPC


def test_a_caller_that_stops_early_stops_the_batch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pids = tmp_path / "pids"
    slow = fake_batch(tmp_path, f'import os, time\nopen({str(pids)!r}, "a").write(f"{{os.getpid()}}\\n")\n{ECHO}\ntime.sleep(0.2)')
    engine = engine_with(tmp_path, slow, monkeypatch)
    outcomes = engine.run(jobs(200, tmp_path, engine))
    next(outcomes)
    outcomes.close()  # what an exception in the caller's loop does
    (pid,) = set(pids.read_text().split())
    assert not Path(f"/proc/{pid}").exists()  # killed and reaped, not left building 199 more
