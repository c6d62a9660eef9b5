"""From many values files to one file set: load all, report every problem, refuse collisions.

A fleet renders many clusters in one run; one bad file must not hide another's problems, and
two clusters may never claim the same overlay folder or Flux file.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from gen import parallel, templating
from gen import kustomization_reach
from gen.render import artifact, render_check
from gen.errors import GenError, Problem, RenderedValuesError, ToolError, UsageError, ValuesError
from gen.boundary import Boundary
from gen.render.cluster import render_cluster
from gen.rendered import RenderedFile, owner_of
from gen.document import read_document
from gen.render.values import load_values, position, preload_schema
from gen.render.writer import path_order

PARALLEL_FROM = 64  # below this, forking costs more than it saves
MAX_WORKERS = 8
CHUNKS_PER_WORKER = 16  # small enough that a slow core holds the others up by one short chunk


class Claim(NamedTuple):
    """What one values file claims in the repository (small: it crosses process boundaries)."""

    path: Path
    source: str
    overlay_dir: str
    flux_output: str
    asked: artifact.Asked  # what the Flux artifact must hold


def _collisions(claims: list[Claim]) -> list[Problem]:
    problems = []
    overlay: dict[str, Claim] = {}
    output: dict[str, Claim] = {}
    for c in claims:
        if c.overlay_dir in overlay:
            problems.append(Problem(f"renders {c.overlay_dir}/, which {overlay[c.overlay_dir].source} renders too",
                                    file=c.source, key="cluster", hint="give each cluster its own name (or its own `overlay:`)"))
        overlay.setdefault(c.overlay_dir, c)
        out = c.flux_output
        if out in output:
            line, col = position(c.path, c.source, ["flux", "output"])
            problems.append(Problem(f"writes its Flux objects to {out}, which {output[out].source} writes too",
                                    file=c.source, line=line, col=col, key="flux.output",
                                    hint="give each cluster its own flux.output"))
        output.setdefault(out, c)
    return problems


def _claimed_twice(rel: str, source: str | None, other: str | None) -> Problem:
    """One path two values files render (an overlay file and another cluster's flux.output)."""
    return Problem(f"renders {rel}, which {other} renders too", file=source, key="flux.output",
                   hint="give each cluster its own flux.output, outside every overlay folder")


Share = tuple[list[Claim], dict[str, RenderedFile], list[Problem], list[str]]


def _load_and_render(paths: list[Path], repo: Path, boundary: Boundary) -> Share:
    """One worker's share: load and render each file, collecting problems instead of raising."""
    claims: list[Claim] = []
    files: dict[str, RenderedFile] = {}
    problems: list[Problem] = []
    notices: list[str] = []
    for path in paths:
        try:
            values = load_values(path, repo=repo, boundary=boundary)
            notices += values.notices
            for f in render_cluster(values):
                other = files.get(f.path)
                if other is not None and other.owner is not f.owner:  # (same owner kind: _collisions says it)
                    problems.append(_claimed_twice(f.path, values.source, owner_of(other.text)))
                files[f.path] = f
            src = values.flux.source
            asked = artifact.Asked(values.source, values.overlay_dir,
                                   tuple(f.path for f in files.values() if f.path.startswith(values.overlay_dir + "/")
                                         and owner_of(f.text) in (values.source, None)),
                                   values.flux.output, src.kind if src else "GitRepository", src.name if src else "flux-system",
                                   values.flux.namespace, bool(src and src.url), src is not None)
            claims.append(Claim(path, values.source, values.overlay_dir, values.flux.output, asked))
        except RenderedValuesError as err:
            problems.extend(render_check.place(err, read_document(path, values.source)))
        except ToolError:
            raise  # a tool that cannot judge (the Corefile helper missing) is exit 3 for the run, not bad input
        except GenError as err:
            problems.extend(err.problems)
    return claims, files, problems, notices


def render_files(paths: list[Path], repo: Path, notices: list[str] | None = None) -> dict[str, RenderedFile]:
    """Every file the values render, keyed by repo-relative POSIX path, in path order, in
    memory, validated; nothing is written here. `notices` (when given) receives the warnings
    for stderr, in argument order: what was assumed for releases newer than the tables.

    A fleet (PARALLEL_FROM files or more) is cut into chunks in argument order that the
    machine's cores render, merged back in that order: the output does not depend on the split.
    """
    if not paths:
        raise UsageError("no values files given", hint="pass one or more files, e.g. `coredns-gen render dns/*.yaml`, "
                         "or list globs under `values:` in .coredns-gen.yaml")
    workers = min(parallel.cores(), MAX_WORKERS) if len(paths) >= PARALLEL_FROM else 1
    if workers > 1:  # what every worker needs, made once here and inherited by the forked ones
        templating.preload()
        preload_schema()
    chunks = parallel.split(paths, min(workers * CHUNKS_PER_WORKER, parallel.MAX_CHUNKS, len(paths)))
    with parallel.collector_paused():  # a render leaves two small garbage cycles per file (closures)
        boundary = Boundary(repo)
        parts = parallel.fork_map(lambda chunk: _load_and_render(chunk, repo, boundary), chunks, workers)
    claims = [claim for part in parts for claim in part[0]]
    problems = [p for part in parts for p in part[2]] + _collisions(claims)
    if problems:
        raise ValuesError(problems)
    if notices is not None:
        notices += [notice for part in parts for notice in part[3]]
    files: dict[str, RenderedFile] = {}
    for part in parts:
        for rel, file in part[1].items():
            other = files.get(rel)
            if other is not None and other.owner is not file.owner:
                problems.append(_claimed_twice(rel, owner_of(file.text), owner_of(other.text)))
            files[rel] = file
    problems += _nested(claims)
    if not problems:
        found, said = artifact.judge([c.asked for c in claims], str(repo))
        problems += [_left_out(claims, *item) for item in found]
        if notices is not None:
            notices += said + _unlisted(claims, repo)
    if problems:
        raise ValuesError(problems)
    return {rel: files[rel] for rel in sorted(files, key=path_order)}


def _unlisted(claims: list[Claim], repo: Path) -> list[str]:
    """A warning per Flux file that its folder's kustomization.yaml does not list (Flux would
    never apply it), with the line to add (gen/kustomization_reach.py)."""
    out = []
    for claim in claims:
        missing = kustomization_reach.missing_entry(repo, claim.flux_output)
        if missing is not None:
            out.append(f"{claim.source}: flux.output {claim.flux_output} is not reached: {missing.kustomization} lists its "
                       f"resources and not this file, so Flux never applies it — fix: {missing.fix()}")
    return out


def _nested(claims: list[Claim]) -> list[Problem]:
    """An overlay folder inside another's: the outer kustomization would not list the inner
    files, and each render would clean the other's folder."""
    owners = {c.overlay_dir: c for c in reversed(claims)}  # (the first claim of a folder)
    problems = []
    for b in claims:
        parts = b.overlay_dir.split("/")
        outer = next((f for f in ("/".join(parts[:k]) for k in range(1, len(parts))) if f in owners), None)
        if outer is not None:
            line, col = position(b.path, b.source, ["overlay"])
            problems.append(Problem(f"renders its overlay in {b.overlay_dir}/, inside {outer}/, which {owners[outer].source} renders",
                                    file=b.source, line=line, col=col, key="overlay", hint="give each cluster a folder of its own"))
    return problems


def _left_out(claims: list[Claim], asked: artifact.Asked, path: str, what: str, rule: artifact.Rule | None, source: str) -> Problem:
    """The problem at the values file for a rendered path Flux's artifact would not hold."""
    claim = next(c for c in claims if c.asked is asked)
    key = ["overlay"] if what == "overlay" else ["flux", "output"]
    line, col = position(claim.path, claim.source, key)
    if line is None:
        line, col = position(claim.path, claim.source, ["cluster"])
    where = asked.folder + "/" if what == "overlay" else asked.output
    why = f"the rule {rule} leaves it out" if rule is not None else "its ignore rules leave it out"
    top = where.split("/")[0]
    fix = (f"choose a folder the artifact holds (`overlay:` for the overlay, `flux.output` for the Flux file), or re-include "
           f"its top folder after that rule, e.g. `!/{top}/`") if rule is None or rule.line else \
        "choose a path source-controller does not exclude by default"
    if rule is not None and rule.pattern.startswith("sparseCheckout:"):
        fix = (f"choose a folder the sparse checkout holds (`overlay:` for the overlay, `flux.output` for the Flux file), "
               f"or add `./{top}/` to spec.sparseCheckout at {rule.file}:{rule.line}")
    return Problem(f"{where} would not be in the artifact of {source}, so Flux would never apply it: {why}",
                   file=claim.source, line=line, col=col, key=".".join(key), hint=fix)
