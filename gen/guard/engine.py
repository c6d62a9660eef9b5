"""Run real kustomize for many Flux Kustomizations at once, in parallel.

One `kubectl kustomize` costs ~90 ms, most of it process start-up, so a fleet is built by
`kustomize-batch` (tools/kustomize-batch: the kustomize library kubectl bundles, one process,
many builds, several at a time) when it is installed, and by one `kubectl kustomize` per build
on a thread pool otherwise. Both use kustomize-controller's options: no load restrictions.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from gen.errors import ToolError
from gen.guard.fluxspec import needs_wrapper, wrapper
from gen.guard.model import FluxKs
from gen.guard.revision import Tree
from gen.tools import cache_bin, kustomize_command

BATCH_ENV = "COREDNS_GEN_KUSTOMIZE_BATCH"  # path to kustomize-batch, or "off"
_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def batch_binary() -> Path | None:
    """The kustomize-batch program if installed (env var, the coredns-gen cache bin, PATH)."""
    explicit = os.environ.get(BATCH_ENV)
    if explicit == "off":
        return None
    if explicit:
        return Path(explicit) if Path(explicit).is_file() else None
    cached = cache_bin() / "kustomize-batch"
    if cached.is_file() and os.access(cached, os.X_OK):
        return cached
    found = shutil.which("kustomize-batch")
    return Path(found) if found else None


@dataclass(frozen=True)
class Job:
    key: str
    tree: Tree
    ks: FluxKs
    files: tuple[str, ...] | None = None  # all it reads (exact inputs): only these are put on disk

    def root(self) -> Path:
        """The tree's root, with what this build reads on disk."""
        return self.tree.on_disk() if self.files is None else self.tree.place(self.files)


@dataclass
class Outcome:
    objects: list[dict[str, Any]] | None
    error: str | None = None


class Engine:
    """Builds jobs; `workdir` holds the wrapper kustomizations Flux's extra fields need."""

    def __init__(self, workdir: Path, parallel: int | None = None) -> None:
        self.workdir = workdir
        self.parallel = parallel or max(1, min(os.cpu_count() or 1, 8))
        self.batch = batch_binary()
        self.builds = 0
        self._wrappers = 0
        self.identity = self._identity()

    def _identity(self) -> str:
        if self.batch is not None:
            return f"batch:{self.batch.stat().st_size}:{int(self.batch.stat().st_mtime)}"
        argv = kustomize_command()
        exe = Path(argv[0])
        return f"cli:{exe}:{exe.stat().st_size if exe.exists() else 0}"

    def _directory(self, job: Job) -> Path:
        if not needs_wrapper(job.ks, job.tree):
            return job.root() / job.ks.path
        self._wrappers += 1
        wrap = self.workdir / "wrap" / str(self._wrappers)
        wrap.mkdir(parents=True)
        rel = os.path.relpath(job.root(), wrap)
        (wrap / "kustomization.yaml").write_text(wrapper(job.ks, job.tree, rel))
        return wrap

    def run(self, jobs: list[Job]) -> dict[str, Outcome]:
        """Build every job; a build that fails is an Outcome with an error, not an exception.

        Raises:
            ToolError: kustomize itself is missing or crashed.
        """
        if not jobs:
            return {}
        self.builds += len(jobs)
        dirs = {job.key: self._directory(job) for job in jobs}
        if self.batch is not None:
            return self._run_batch(dirs, {job.key: job.tree.root for job in jobs})
        return self._run_cli(dirs)

    def _run_batch(self, dirs: dict[str, Path], roots: dict[str, Path]) -> dict[str, Outcome]:
        """kustomize-batch reads nothing outside each job's revision (`root`) and its wrapper dir."""
        assert self.batch is not None
        lines = "".join(json.dumps({"id": key, "dir": str(path), "root": str(roots[key])}) + "\n"
                        for key, path in dirs.items())
        try:
            proc = subprocess.run([str(self.batch), "-j", str(self.parallel)], input=lines,
                                  capture_output=True, text=True, check=False)
        except OSError as err:
            raise ToolError(f"cannot run {self.batch}: {err}") from err
        if proc.returncode != 0:
            raise ToolError(f"{self.batch} failed", stderr=proc.stderr,
                            hint=f"rebuild it (see docs/guard.md) or set {BATCH_ENV}=off")
        out: dict[str, Outcome] = {}
        for line in proc.stdout.splitlines():
            data = json.loads(line)
            out[data["id"]] = Outcome(data.get("objects"), data.get("error") or None)
        missing = set(dirs) - set(out)
        if missing:
            raise ToolError(f"{self.batch} returned no result for {len(missing)} builds", stderr=proc.stderr)
        return out

    def _run_cli(self, dirs: dict[str, Path]) -> dict[str, Outcome]:
        argv = [*kustomize_command(), "--load-restrictor", "LoadRestrictionsNone"]

        def one(path: Path) -> Outcome:
            try:
                proc = subprocess.run([*argv, str(path)], capture_output=True, text=True, check=False)
            except OSError as err:
                raise ToolError(f"cannot run {argv[0]}: {err}") from err
            if proc.returncode != 0:
                return Outcome(None, proc.stderr.strip() or f"exit {proc.returncode}")
            try:
                docs = [d for d in yaml.load_all(proc.stdout, Loader=_Loader) if isinstance(d, dict)]
            except yaml.YAMLError as err:
                return Outcome(None, f"kustomize printed unreadable YAML: {err}")
            return Outcome(docs)

        keys = list(dirs)
        with ThreadPoolExecutor(max_workers=self.parallel) as pool:
            results = list(pool.map(one, [dirs[k] for k in keys]))
        return dict(zip(keys, results, strict=True))
