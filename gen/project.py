"""From many values files to one file set: load all, report every problem, refuse collisions.

A fleet renders many clusters in one run; one bad file must not hide another's problems, and
two clusters may never claim the same overlay folder or Flux file.
"""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import os
from pathlib import Path, PurePosixPath

from gen.errors import GenError, Problem, UsageError, ValuesError
from gen.render import render_cluster
from gen.validation import expect_fleet
from gen.values import Values, load_values, position

PARALLEL_FROM = 64  # below this, starting worker processes costs more than it saves
MAX_WORKERS = 8


def _collisions(loaded: list[tuple[Path, Values]]) -> list[Problem]:
    problems = []
    overlay: dict[str, Values] = {}
    output: dict[str, Values] = {}
    for path, v in loaded:
        if v.overlay_dir in overlay:
            problems.append(Problem(f"renders {v.overlay_dir}/, which {overlay[v.overlay_dir].source} renders too",
                                    file=v.source, key="cluster", hint="give each cluster its own name"))
        overlay.setdefault(v.overlay_dir, v)
        out = str(PurePosixPath(v.flux.output))
        if out in output:
            line, col = position(path, v.source, ["flux", "output"])
            problems.append(Problem(f"writes its Flux objects to {out}, which {output[out].source} writes too",
                                    file=v.source, line=line, col=col, key="flux.output",
                                    hint="give each cluster its own flux.output"))
        output.setdefault(out, v)
    return problems


def _load_and_render(paths: list[Path], repo: Path) -> tuple[list[tuple[Path, Values]], dict[PurePosixPath, str], list[Problem]]:
    """One worker's share: load and render each file, collecting problems instead of raising."""
    loaded: list[tuple[Path, Values]] = []
    files: dict[PurePosixPath, str] = {}
    problems: list[Problem] = []
    for path in paths:
        try:
            values = load_values(path, repo=repo)
            files.update(render_cluster(values))
            loaded.append((path, values))
        except GenError as err:
            problems.extend(err.problems)
    return loaded, files, problems


def _chunks(paths: list[Path], workers: int) -> list[list[Path]]:
    size = -(-len(paths) // (workers * 4))  # a few chunks per worker evens out slow files
    return [paths[i:i + size] for i in range(0, len(paths), size)]


def render_files(paths: list[Path], repo: Path) -> dict[PurePosixPath, str]:
    """Every file the values render, in memory, validated; nothing is written here.

    A fleet (PARALLEL_FROM files or more) is spread over the machine's cores; results are
    merged in argument order, so the output does not depend on scheduling.
    """
    if not paths:
        raise UsageError("no values files given", hint="pass one or more files, e.g. `coredns-gen render dns/*.yaml`, "
                         "or list globs under `values:` in .coredns-gen.yaml")
    workers = min(os.cpu_count() or 1, MAX_WORKERS)
    if len(paths) >= PARALLEL_FROM:
        expect_fleet()
    if len(paths) < PARALLEL_FROM or workers < 2:
        parts = [_load_and_render(paths, repo)]
    else:
        context = multiprocessing.get_context("fork")
        with concurrent.futures.ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
            parts = list(pool.map(_load_and_render, _chunks(paths, workers), [repo] * (workers * 4 + 1)))
    loaded = [item for part in parts for item in part[0]]
    problems = [p for part in parts for p in part[2]] + _collisions(loaded)
    if problems:
        raise ValuesError(problems)
    files: dict[PurePosixPath, str] = {}
    for part in parts:
        files.update(part[1])
    return dict(sorted(files.items()))
