"""Spread a fleet over the machine's cores with plain fork(), the cheapest way Python has.

A process pool starts fresh workers that import everything and compile every validator again,
and keeps the parent idle; forked children inherit the warm interpreter, and the parent works
too. Work is cut into small chunks that every process claims one at a time from a shared pipe,
so a process that runs slower (a busy core, a slow file) simply takes fewer chunks. Each child
sends its results back pickled through its own pipe. A chunk that no process reported back (a
child that died) is redone in the parent, so a bug surfaces with its real traceback and the
result never depends on how the work was split.
"""

from __future__ import annotations

import contextlib
import gc
import os
import pickle
import signal
import threading
from typing import Callable, Iterator, Sequence, TypeVar

T = TypeVar("T")
R = TypeVar("R")

MAX_CHUNKS = 255  # chunk numbers travel through the claim pipe as single bytes


def cores() -> int:
    """CPUs this process may run on (a container's CPU set, not the host's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """No cyclic garbage collection inside (forked children inherit that): for work that makes
    next to no reference cycles, the collector only walks what the work keeps, again and again."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def split(items: Sequence[T], parts: int) -> list[list[T]]:
    """`parts` contiguous, near-equal slices, in order (so results concatenate in order)."""
    size, extra = divmod(len(items), parts)
    out, start = [], 0
    for i in range(parts):
        end = start + size + (1 if i < extra else 0)
        out.append(list(items[start:end]))
        start = end
    return out


def fork_map(function: Callable[[T], R], chunks: Sequence[T], workers: int) -> list[R]:
    """[function(c) for c in chunks], computed by this process and workers - 1 forked children."""
    if workers < 2 or len(chunks) < 2 or not hasattr(os, "fork") or threading.active_count() > 1:
        # (a thread holding a lock while we fork would leave that lock held forever in the child)
        return [function(c) for c in chunks]
    if len(chunks) > MAX_CHUNKS:
        raise ValueError(f"at most {MAX_CHUNKS} chunks")
    claim_read, claim_write = os.pipe()
    os.write(claim_write, bytes(range(len(chunks))))  # far below a pipe's buffer: never blocks
    os.close(claim_write)  # once every number is claimed, a read returns b"" and the worker stops
    children: list[tuple[int, int]] = []
    gc.freeze()  # the inherited heap is never traversed by the collector, so its pages stay shared
    try:
        for _ in range(workers - 1):
            result_read, result_write = os.pipe()
            try:
                pid = os.fork()
            except OSError:  # no memory or process slots left: fewer hands, same result
                os.close(result_read)
                os.close(result_write)
                break
            if pid == 0:  # pragma: no cover - a child: its coverage is not collected
                os.close(result_read)
                _child(function, chunks, claim_read, result_write)
            os.close(result_write)
            children.append((pid, result_read))
        done = dict(_work(function, chunks, claim_read))
        while children:
            pid, result_read = children.pop()
            data = _receive(pid, result_read)
            if data is not None:
                done.update(pickle.loads(data))
        return [done[i] if i in done else function(chunks[i]) for i in range(len(chunks))]
    finally:
        gc.unfreeze()
        os.close(claim_read)
        for pid, result_read in children:  # this process failed or was interrupted: stop and reap
            with contextlib.suppress(OSError):
                os.close(result_read)
                os.kill(pid, signal.SIGTERM)
                os.waitpid(pid, 0)


def _work(function: Callable[[T], R], chunks: Sequence[T], claim_read: int) -> list[tuple[int, R]]:
    """Claim chunk numbers until none are left; one-byte pipe reads never split or repeat."""
    results = []
    while claimed := os.read(claim_read, 1):
        results.append((claimed[0], function(chunks[claimed[0]])))
    return results


def _child(function: Callable[[T], R], chunks: Sequence[T], claim_read: int, result_write: int) -> None:  # pragma: no cover
    status = 1
    try:
        data = pickle.dumps(_work(function, chunks, claim_read), protocol=pickle.HIGHEST_PROTOCOL)
        with os.fdopen(result_write, "wb") as out:
            out.write(data)
        status = 0
    finally:
        os._exit(status)  # never run the parent's atexit hooks or flush its buffers twice


def _receive(pid: int, read_fd: int) -> bytes | None:
    """A child's pickled results, or None if it did not finish cleanly."""
    with os.fdopen(read_fd, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(pid, 0)
    return data if status == 0 and data else None
