"""Spread a fleet over the machine's cores with plain fork(), the cheapest way Python has.

A process pool starts fresh workers that import everything and compile every validator again,
and keeps the parent idle; forked children inherit the warm interpreter, and the parent takes
a share itself. Each child sends one pickled result through a pipe. A child that fails for any
reason has its share redone in the parent, so a bug surfaces with its real traceback and the
result never depends on how the work was split.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
from typing import Callable, Sequence, TypeVar

T = TypeVar("T")
R = TypeVar("R")


def cores() -> int:
    """CPUs this process may run on (a container's CPU set, not the host's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def split(items: Sequence[T], parts: int) -> list[list[T]]:
    """`parts` contiguous, near-equal slices, in order (so results concatenate in order)."""
    size, extra = divmod(len(items), parts)
    out, start = [], 0
    for i in range(parts):
        end = start + size + (1 if i < extra else 0)
        out.append(list(items[start:end]))
        start = end
    return out


def fork_map(function: Callable[[T], R], shares: Sequence[T]) -> list[R]:
    """[function(s) for s in shares], the last share in this process and the others in children."""
    if len(shares) < 2 or not hasattr(os, "fork"):
        return [function(s) for s in shares]
    children: list[tuple[int, int, T]] = []
    try:
        for share in shares[:-1]:
            read_fd, write_fd = os.pipe()
            pid = os.fork()
            if pid == 0:  # pragma: no cover - a child: its coverage is not collected
                os.close(read_fd)
                _child(function, share, write_fd)
            os.close(write_fd)
            children.append((pid, read_fd, share))
        mine = function(shares[-1])
        results = []
        while children:
            pid, read_fd, share = children.pop(0)
            data = _receive(pid, read_fd)
            results.append(function(share) if data is None else pickle.loads(data))
        return results + [mine]
    finally:
        for pid, read_fd, _ in children:  # the parent failed or was interrupted: stop and reap
            with contextlib.suppress(OSError):
                os.close(read_fd)
                os.kill(pid, signal.SIGTERM)
                os.waitpid(pid, 0)


def _child(function: Callable[[T], R], share: T, write_fd: int) -> None:  # pragma: no cover
    status = 1
    try:
        data = pickle.dumps(function(share), protocol=pickle.HIGHEST_PROTOCOL)
        with os.fdopen(write_fd, "wb") as out:
            out.write(data)
        status = 0
    finally:
        os._exit(status)  # never run the parent's atexit hooks or flush its buffers twice


def _receive(pid: int, read_fd: int) -> bytes | None:
    """A child's pickled result, or None if it did not finish cleanly."""
    with os.fdopen(read_fd, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(pid, 0)
    return data if status == 0 and data else None
