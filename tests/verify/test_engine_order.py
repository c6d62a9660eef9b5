"""guard --verify runs every cluster's scenario groups at once: groups with a silent upstream (the
~6 s ones) get through start-up before the quick ones begin theirs, so the run lasts about one
silent scenario instead of sixty start-ups plus one. Order only: every group still runs."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from types import SimpleNamespace

from gen.verify import engine


def test_silent_groups_start_before_quick_ones(monkeypatch) -> None:
    events: list[str] = []
    lock = threading.Lock()

    def run_started(config, binary, root, group, drop, started):  # type: ignore[no-untyped-def]
        name = group[0].id
        with lock:
            events.append(f"start {name}")
        time.sleep(0.3)  # sandbox and CoreDNS start-up
        started()
        with lock:
            events.append(f"up {name}")
        return [], "file"

    monkeypatch.setattr(engine, "_run_started", run_started)
    quick = [SimpleNamespace(id="primary-dead", drop=frozenset())]
    slow = [SimpleNamespace(id="all-silent", drop=frozenset())]
    threads = [threading.Thread(target=engine._run_group, args=(None, Path("x"), Path("y"), slow))]
    threads[0].start()
    time.sleep(0.05)
    threads.append(threading.Thread(target=engine._run_group, args=(None, Path("x"), Path("y"), quick)))
    threads[1].start()
    for t in threads:
        t.join(timeout=10)
    assert events == ["start all-silent", "up all-silent", "start primary-dead", "up primary-dead"]
    assert engine._GATE.starting == 0
