"""Run real kustomize for many Flux Kustomizations at once, in parallel.

One `kubectl kustomize` costs ~90 ms, most of it process start-up, so a fleet is built by
`kustomize-batch` (tools/kustomize-batch: the kustomize library kubectl bundles, one process,
many builds, several at a time) when it is installed, and by one `kubectl kustomize` per build
on a thread pool otherwise. Both use kustomize-controller's options: no load restrictions. A
build whose inputs are all known is built by kustomize-batch from memory: its files are sent,
not written to disk (tools/kustomize-batch/memory.go).
"""

from __future__ import annotations

import base64
import functools
import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import yaml

from gen.errors import ToolError
from gen.guard.fluxspec import needs_wrapper, wrapper
from gen.guard.model import FluxKs
from gen.guard.revision import Tree
from gen.tools import cache_bin, kustomize_command

BATCH_ENV = "COREDNS_GEN_KUSTOMIZE_BATCH"  # path to kustomize-batch, or "off"
_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
# A file sent to kustomize-batch's memory is one base64 line, which it reads up to 64 MiB: a job
# with a larger file is built on disk.
_MEMORY_FILE_LIMIT = 32 << 20


# The names kustomize's in-memory file system makes (kyaml filesys/fsnode.go
# isLegalFileNameForCreation): a file named `jetstack copy.yaml` or `extra+1.yaml` is built on disk.
_MEMORY_NAME = re.compile(r"[a-zA-Z0-9-_.:]+")


@functools.lru_cache(maxsize=1 << 16)
def _memory_path(path: str) -> bool:
    return all(part != "." and ".." not in part and _MEMORY_NAME.fullmatch(part) is not None
               for part in path.strip("/").split("/"))


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
    files: tuple[str, ...] | None = None  # all it reads (exact inputs): only these are sent or put on disk

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
        self.wrappers = workdir / "wrap"  # the kustomizations written for Flux's extra fields
        self.parallel = parallel or max(1, min(os.cpu_count() or 1, 8))
        self.batch = batch_binary()
        self.builds = 0
        self._wrappers = 0
        self._batch_protocol: int | None = None
        self.identity = self._identity()

    def _identity(self) -> str:
        if self.batch is not None:
            return f"batch:{self.batch.stat().st_size}:{int(self.batch.stat().st_mtime)}"
        argv = kustomize_command()
        exe = Path(argv[0])
        return f"cli:{exe}:{exe.stat().st_size if exe.exists() else 0}"

    def _directory(self, job: Job) -> Path:
        """The folder kustomize builds for `job`, with what it reads put on disk."""
        if not needs_wrapper(job.ks, job.tree):
            return job.root() / job.ks.path
        wrap = self._next_wrapper()
        wrap.mkdir(parents=True)
        (wrap / "kustomization.yaml").write_text(wrapper(job.ks, job.tree, os.path.relpath(job.root(), wrap)))
        return wrap

    def _next_wrapper(self) -> Path:
        self._wrappers += 1
        return self.wrappers / str(self._wrappers)

    def _protocol(self, batch: Path) -> int:
        """kustomize-batch's protocol (`-version`), asked once per run that builds."""
        if self._batch_protocol is None:
            try:
                said = subprocess.run([str(batch), "-version"], stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                      timeout=30, check=False).stdout
                self._batch_protocol = int(said.split()[1]) if said.startswith("kustomize-batch ") else 2
            except (OSError, ValueError, IndexError, subprocess.TimeoutExpired):
                self._batch_protocol = 2
        return self._batch_protocol

    def in_memory(self, job: Job) -> bool:
        """Whether kustomize-batch can build `job` from memory: every file it reads is known, none
        is a symlink, the revision is read from git (a copied view is only on disk), and every
        path is one kustomize's in-memory file system can make."""
        return job.files is not None and job.tree.checkout is not None and \
            not (job.tree.links and any(p in job.tree.links for p in job.files)) and \
            _memory_path(str(job.tree.root)) and _memory_path(str(self.wrappers)) and \
            all(_memory_path(p) for p in job.files)

    def _memory_request(self, job: Job, put: Callable[[str, bytes], None]) -> str | None:
        """Put what `job` reads in kustomize-batch's memory (at the paths it would have on disk);
        the folder to build, or None when a file is too large for one request line."""
        assert job.files is not None
        contents = [(f"{job.tree.root}/{path}", job.tree.read(path)) for path in job.files]
        if any(len(data) > _MEMORY_FILE_LIMIT for _, data in contents):
            return None
        for where, data in contents:
            put(where, data)
        if not needs_wrapper(job.ks, job.tree):
            return str(job.tree.root / job.ks.path)
        wrap = self._next_wrapper()
        put(str(wrap / "kustomization.yaml"), wrapper(job.ks, job.tree, os.path.relpath(job.tree.root, wrap)).encode())
        return str(wrap)

    def run(self, jobs: list[Job]) -> Iterator[tuple[str, Outcome]]:
        """Build every job, each outcome as soon as it is done; a build that fails is an Outcome
        with an error, not an exception.

        Raises (while iterating):
            ToolError: kustomize itself is missing or crashed.
        """
        if not jobs:
            return iter(())
        self.builds += len(jobs)
        if self.batch is not None:
            return self._stream(jobs, self.batch)
        return self._run_cli({job.key: self._directory(job) for job in jobs})

    def _stream(self, jobs: list[Job], batch: Path) -> Iterator[tuple[str, Outcome]]:
        """One kustomize-batch for the jobs, overlapped with this process's own work: a thread
        sends each job's files (or puts them on disk) and hands it over while kustomize builds the
        ones before, and each result is read as it is printed, while kustomize builds the ones
        after. On a fleet, Python's part (placing, reading results, caching) was a third of the
        run, done while kustomize waited. kustomize-batch reads nothing outside each job's
        revision (its `root`) and its wrapper dir, or its memory."""
        with tempfile.TemporaryFile() as errors:
            try:
                proc = subprocess.Popen([str(batch), "-j", str(self.parallel)], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=errors)
            except OSError as err:
                raise ToolError(f"cannot run {batch}: {err}") from err
            assert proc.stdin is not None and proc.stdout is not None
            failed: list[BaseException] = []
            feeder = threading.Thread(target=self._feed, args=(jobs, proc.stdin, failed, self._protocol(batch) >= 3),
                                      daemon=True, name="kustomize-batch feed")
            feeder.start()
            left = {job.key for job in jobs}
            finished = False
            try:
                for line in proc.stdout:
                    data = json.loads(line)
                    left.discard(data["id"])
                    yield data["id"], Outcome(data.get("objects"), data.get("error") or None)
                finished = True
            finally:
                if not finished:  # the caller stopped early (an error of its own): stop building
                    proc.kill()
                feeder.join()
                proc.wait()
            if failed and not (isinstance(failed[0], BrokenPipeError) and proc.returncode != 0):
                raise failed[0]  # placing a job's files failed (a full disk): the run stops with it
            errors.seek(0)
            if proc.returncode != 0:
                raise ToolError(f"{batch} failed", stderr=errors.read().decode(errors="replace"),
                                hint=f"rebuild it (see docs/guard.md) or set {BATCH_ENV}=off")
            if left:
                raise ToolError(f"{batch} returned no result for {len(left)} builds",
                                stderr=errors.read().decode(errors="replace"))

    def _feed(self, jobs: list[Job], into: IO[bytes], failed: list[BaseException], memory: bool) -> None:
        """Put each job's files in kustomize-batch's memory (`memory`, for the jobs that allow
        it) or on disk, and send it; what goes wrong is kept for `_stream` to raise."""
        sent: set[str] = set()

        def put(path: str, data: bytes) -> None:
            if path not in sent:
                sent.add(path)
                into.write(b'{"put":%s,"data":"%s"}\n' % (json.dumps(path).encode(), base64.b64encode(data)))

        try:
            for job in jobs:
                request: dict[str, str | bool]
                folder = self._memory_request(job, put) if memory and self.in_memory(job) else None
                if folder is not None:
                    request = {"id": job.key, "dir": folder, "root": str(job.tree.root), "memory": True}
                else:
                    request = {"id": job.key, "dir": str(self._directory(job)), "root": str(job.tree.root)}
                into.write(json.dumps(request).encode() + b"\n")
                into.flush()
        except BaseException as err:  # noqa: BLE001 - handed to the caller's thread, which raises it
            failed.append(err)
        finally:
            try:
                into.close()
            except OSError:
                pass

    def _run_cli(self, dirs: dict[str, Path]) -> Iterator[tuple[str, Outcome]]:
        argv = [*kustomize_command(), "--load-restrictor", "LoadRestrictionsNone"]

        def one(key: str) -> tuple[str, Outcome]:
            path = dirs[key]
            try:
                proc = subprocess.run([*argv, str(path)], capture_output=True, text=True, check=False)
            except OSError as err:
                raise ToolError(f"cannot run {argv[0]}: {err}") from err
            if proc.returncode != 0:
                return key, Outcome(None, proc.stderr.strip() or f"exit {proc.returncode}")
            try:
                docs = [d for d in yaml.load_all(proc.stdout, Loader=_Loader) if isinstance(d, dict)]
            except (yaml.YAMLError, RecursionError) as err:  # RecursionError: PyYAML's pure-Python loader
                return key, Outcome(None, f"kustomize printed unreadable YAML: {err}")
            return key, Outcome(docs)

        pool = ThreadPoolExecutor(max_workers=self.parallel)
        try:
            for done in as_completed([pool.submit(one, key) for key in dirs]):
                yield done.result()
        finally:  # the caller stopped early: the builds not started never start
            pool.shutdown(wait=True, cancel_futures=True)
