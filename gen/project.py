"""From many values files to one file set: load all, report every problem, refuse collisions.

A fleet renders many clusters in one run; one bad file must not hide another's problems, and
two clusters may never claim the same overlay folder or Flux file.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from gen.errors import GenError, Problem, UsageError, ValuesError
from gen.render import render_cluster
from gen.values import Values, load_values


def load_all(paths: list[Path], repo: Path) -> list[Values]:
    """Load every values file; raise one ValuesError listing the problems of all of them."""
    if not paths:
        raise UsageError("no values files given", hint="pass one or more files, e.g. `coredns-gen render dns/*.yaml`, or list globs under `values:` in .coredns-gen.yaml")
    loaded: list[Values] = []
    problems: list[Problem] = []
    for path in paths:
        try:
            loaded.append(load_values(path, repo=repo))
        except ValuesError as err:
            problems.extend(err.problems)
    problems += _collisions(loaded)
    if problems:
        raise ValuesError(problems)
    return loaded


def _collisions(loaded: list[Values]) -> list[Problem]:
    problems = []
    overlay: dict[str, Values] = {}
    output: dict[str, Values] = {}
    for v in loaded:
        if v.overlay_dir in overlay:
            problems.append(Problem(f"renders {v.overlay_dir}/, which {overlay[v.overlay_dir].source} renders too",
                                    file=v.source, key="cluster", hint="give each cluster its own name"))
        overlay.setdefault(v.overlay_dir, v)
        out = str(PurePosixPath(v.flux.output))
        if out in output:
            problems.append(Problem(f"writes its Flux objects to {out}, which {output[out].source} writes too",
                                    file=v.source, line=v.flux.output_line, col=v.flux.output_col, key="flux.output",
                                    hint="give each cluster its own flux.output"))
        output.setdefault(out, v)
    return problems


def render_files(paths: list[Path], repo: Path) -> dict[PurePosixPath, str]:
    """Every file the values render, in memory, validated; nothing is written here."""
    files: dict[PurePosixPath, str] = {}
    problems: list[Problem] = []
    for values in load_all(paths, repo):
        try:
            files.update(render_cluster(values))
        except GenError as err:
            problems.extend(err.problems)
    if problems:
        raise ValuesError(problems)
    return dict(sorted(files.items()))
