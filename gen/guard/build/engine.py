"""Build Flux Kustomizations with Flux's own code, many at once, and learn what each read.

Every build goes to `coredns-gen-helper build` (tools/helper/build): the library
kustomize-controller calls (github.com/fluxcd/pkg/kustomize: its generator, its build on Flux's
secure file system, its postBuild substitution), with worker processes side by side. Each result
carries every path kustomize asked about while it built (tools/helper/build/readfs.go), which
gen/guard/build/seen.py turns into what the build saw of its artifact. There is no fallback: a
guard that cannot build as Flux builds says so (exit 3) instead of guessing.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from gen.errors import ToolError
from gen.guard.build import placement
from gen.guard.flux.secrets import key_given, key_id
from gen.guard.repo.checkout import Checkout
from gen.guard.repo.revision import Tree
from gen.helperbuild import BUILD_PROTOCOL
from gen.tools import HELPER_BUILD_HINT, helper_binary

PROTOCOL = BUILD_PROTOCOL  # tools/helper/build/batch.go Protocol
BUILD_HINT = HELPER_BUILD_HINT
Look = tuple[str, str]  # (kind, path): file, stat, list, tree or out; the path is the artifact's
_IDENTITIES: dict[tuple[str, int, int], str] = {}  # (path, size, mtime) -> what the helper said, and which binary
# the ELF note Go writes its build ID in (namesz 4, descsz, type 4, "Go"), near the start of the file
_GO_NOTE = re.compile(rb"\x04\x00\x00\x00(.{4})\x04\x00\x00\x00Go\x00\x00", re.DOTALL)


_ROUNDS = 4  # builds of one job placed in part; the last round places its artifact whole


class _Placing:
    """What one `run` put on disk for each job, and whether each build saw its whole artifact."""

    def __init__(self) -> None:
        self.more: dict[str, set[str]] = {}  # job key -> artifact files it missed in an earlier round
        self.whole: set[str] = set()  # job keys built on the whole artifact from now on
        self._sent: dict[str, tuple[Checkout, int]] = {}  # job key -> its checkout and stamp when sent in part
        self._below: dict[int, placement.Below] = {}  # per artifact (by identity)

    def below(self, tree: Tree) -> placement.Below:
        found = self._below.get(id(tree))
        if found is None or found.tree is not tree:
            found = self._below[id(tree)] = placement.Below(tree)
        return found

    def place(self, job: Job) -> Path:
        """The job's artifact root, with what the build is expected to read on disk (the whole
        artifact where it cannot be placed in part)."""
        checkout = placement.partial_checkout(job.tree) if job.expect is not None and job.key not in self.whole else None
        if checkout is None:
            self._sent.pop(job.key, None)
            return job.tree.on_disk()
        assert job.expect is not None
        files = placement.expected(self.below(job.tree), job.path, job.expect) | self.more.get(job.key, set())
        job.tree.place(sorted(files))
        checkout.make_folder(job.tree.prefix)  # the artifact root is a folder, even with no file on disk
        self._sent[job.key] = (checkout, checkout.stamp + 1)
        return job.tree.root

    def missed(self, job: Job, outcome: Outcome) -> set[str] | None:
        """None when the build saw what its whole artifact shows (it was placed whole, or every
        look agrees); else the artifact files to add (empty: place it whole)."""
        sent = self._sent.get(job.key)
        if sent is None:
            return None
        checkout, stamp = sent
        if not outcome.looks:  # a build that reported no look cannot be vouched for
            return set()
        missing = placement.unseen(self.below(job.tree), checkout, outcome.looks, stamp)
        return missing or None


def binary_id(path: Path) -> str:
    """One id of a program's bytes: the build ID Go writes into its ELF note (a digest of what the
    binary was built from, read from its first 64 KiB), else a sha256 of the whole file.

    Raises:
        ToolError: the file cannot be read.
    """
    try:
        with path.open("rb") as f:
            head = f.read(1 << 16)
            found = _GO_NOTE.search(head)
            if found is not None:
                size = int.from_bytes(found.group(1), "little")
                start = found.end()
                if 0 < size <= 256 and start + size <= len(head):
                    return "go:" + head[start:start + size].rstrip(b"\0").decode("ascii", "replace")
            f.seek(0)
            return "sha256:" + hashlib.file_digest(f, "sha256").hexdigest()
    except OSError as err:
        raise ToolError(f"cannot read {path}: {err}", hint=BUILD_HINT) from err


@dataclass(frozen=True)
class Job:
    key: str
    tree: Tree  # the artifact (view) the Kustomization's spec.path is read in
    path: str  # spec.path in that artifact
    kustomization: dict[str, Any]  # the Flux Kustomization as Flux's generator reads it
    objects: tuple[dict[str, Any], ...] = ()  # ConfigMaps/Secrets postBuild.substituteFrom may name
    cluster: str = ""  # for progress reports
    # what earlier builds of the same key looked at: the build is sent with those files on disk and
    # sent again until it saw what the whole artifact shows (gen/guard/build/placement.py); None:
    # the artifact whole on disk
    expect: tuple[Look, ...] | None = None


@dataclass
class Outcome:
    objects: list[dict[str, Any]] | None
    error: str | None = None
    looks: list[Look] = field(default_factory=list)


class Engine:
    """Builds jobs with coredns-gen-helper; `parallel` worker processes."""

    def __init__(self, parallel: int | None = None) -> None:
        self.parallel = parallel or max(1, min(os.cpu_count() or 1, 8))
        self.helper = helper_binary(build=True)
        self.builds = 0
        self.resent = 0  # builds sent again because they saw less than their whole artifact
        self._known: tuple[str, int, int] | None = None
        self._asking: subprocess.Popen[str] | None = None
        self._identity: str | None = None
        self._start_identity()

    def _start_identity(self) -> None:
        """Ask the helper who it is now, and read the answer when it is first needed: the helper
        starts while the run lists the revisions (a Go program's start-up is tens of ms)."""
        if self.helper is None:
            self._identity = "no-helper"
            return
        try:
            stat = self.helper.stat()
        except OSError as err:
            raise ToolError(f"cannot run {self.helper}: {err}", hint=BUILD_HINT) from err
        self._known = (str(self.helper), stat.st_size, stat.st_mtime_ns)
        if self._known in _IDENTITIES:
            self._identity = _IDENTITIES[self._known]
            return
        try:
            self._asking = subprocess.Popen([str(self.helper), "build", "-version"], stdin=subprocess.DEVNULL,
                                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        except OSError as err:
            raise ToolError(f"cannot run {self.helper}: {err}", hint=f"rebuild it: {BUILD_HINT}") from err

    @property
    def identity(self) -> str:
        """What built: the helper's protocol and the Flux and kustomize library versions it links,
        and which binary it is (a helper rebuilt from changed code says the same versions, but
        may read, report or build otherwise), and which age key it decrypts with: a cached build,
        index or artifact answer made by another helper or key is never reused. Asked once per binary and process. With no helper
        installed, a run with nothing to build needs none."""
        if self._identity is None:
            assert self.helper is not None and self._known is not None
            self._identity = _IDENTITIES[self._known] = f"{self._ask_identity()} {binary_id(self.helper)}"
        # a build that decrypted holds tokens made with the age key given (gen/guard/flux/secrets.py):
        # one made with another key, or with none, is never reused
        return f"{self._identity} {key_id()}" if key_given() else self._identity

    def close(self) -> None:
        """Reap the helper asked who it is when the run ended before it needed the answer."""
        if self._asking is not None and self._asking.returncode is None:
            self._asking.kill()
            self._asking.communicate()

    def _ask_identity(self) -> str:
        assert self.helper is not None and self._asking is not None
        try:
            said = self._asking.communicate(timeout=60)[0].strip()
        except subprocess.TimeoutExpired as err:
            self._asking.kill()
            self._asking.wait()
            raise ToolError(f"cannot run {self.helper}: {err}", hint=f"rebuild it: {BUILD_HINT}") from err
        if not said.startswith(f"build {PROTOCOL} "):
            raise ToolError(f"{self.helper} speaks {said or 'no'} build protocol; this coredns-gen needs {PROTOCOL}",
                            hint=f"rebuild it from this checkout: {BUILD_HINT}")
        return said

    def run(self, jobs: list[Job]) -> Iterator[tuple[str, Outcome]]:
        """Build every job, each outcome as soon as it is done; a build that fails is an Outcome
        with an error, not an exception.

        Raises (while iterating):
            ToolError: the helper is missing or crashed.
        """
        if not jobs:
            return iter(())
        if self.helper is None:
            raise ToolError("coredns-gen-helper is not installed: the guard builds every Flux Kustomization "
                            "with Flux's own code through it, and judges nothing without it",
                            hint=BUILD_HINT)
        self.builds += len(jobs)
        return self._rounds(jobs, self.helper)

    def _rounds(self, jobs: list[Job], helper: Path) -> Iterator[tuple[str, Outcome]]:
        """Build the jobs; one that saw less than its whole artifact (placed in part) is built again
        with what it missed on disk, until it saw what the whole artifact shows, or, past
        `_ROUNDS`, on the whole artifact. Only an outcome of a build that saw exactly that is given."""
        placing = _Placing()
        pending = jobs
        for round_ in range(_ROUNDS + 1):
            by_key = {job.key: job for job in pending}
            again: list[Job] = []
            for key, outcome in self._stream(pending, helper, placing):
                job = by_key[key]
                missed = placing.missed(job, outcome)
                if missed is None:
                    yield key, outcome
                    continue
                if round_ >= _ROUNDS - 1 or not missed:
                    placing.whole.add(key)  # next round on the whole artifact: it sees it all
                else:
                    placing.more.setdefault(key, set()).update(missed)
                again.append(job)
            if not again:
                return
            self.resent += len(again)
            pending = again
        raise AssertionError("a build on its whole artifact is never sent again")

    def _stream(self, jobs: list[Job], helper: Path, placing: _Placing) -> Iterator[tuple[str, Outcome]]:
        """One helper for the jobs, overlapped with this process's own work: a thread puts each
        job's artifact on disk and sends it while the workers build the ones before, and each
        result is read as it is printed."""
        with tempfile.TemporaryFile() as errors:
            try:
                workers = min(self.parallel, len(jobs))  # one job: built in the helper's own process
                proc = subprocess.Popen([str(helper), "build", "-j", str(workers)], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=errors)
            except OSError as err:
                raise ToolError(f"cannot run {helper}: {err}") from err
            assert proc.stdin is not None and proc.stdout is not None
            failed: list[BaseException] = []
            feeder = threading.Thread(target=self._feed, args=(jobs, proc.stdin, failed, placing), daemon=True,
                                      name="coredns-gen-helper feed")
            feeder.start()
            left = {job.key for job in jobs}
            finished = False
            try:
                for line in proc.stdout:
                    try:
                        data = json.loads(line)
                        key = str(data["id"])
                        looks = [(str(k["k"]), str(k["p"])) for k in data.get("looks") or []]
                        objects = data.get("objects")
                    except (ValueError, KeyError, TypeError) as err:
                        proc.kill()
                        raise ToolError(f"{helper} printed a line that is not a build result: {err}",
                                        stderr=line[:300].decode(errors="replace")) from err
                    left.discard(key)
                    yield key, Outcome(objects if isinstance(objects, list) else None, data.get("error") or None, looks)
                finished = True
            finally:
                if not finished:  # the caller stopped early (an error of its own): stop building
                    proc.kill()
                feeder.join()
                proc.wait()
            if failed and not (isinstance(failed[0], BrokenPipeError) and proc.returncode != 0):
                raise failed[0]  # placing an artifact failed (a full disk): the run stops with it
            errors.seek(0)
            if proc.returncode != 0:
                raise ToolError(f"{helper} failed", stderr=errors.read().decode(errors="replace"),
                                hint=f"rebuild it: {BUILD_HINT}")
            if left:
                raise ToolError(f"{helper} returned no result for {len(left)} builds",
                                stderr=errors.read().decode(errors="replace"))

    def _feed(self, jobs: list[Job], into: IO[bytes], failed: list[BaseException], placing: _Placing) -> None:
        """Put each job's artifact on disk (what it is expected to read, else the whole artifact,
        once per artifact) and send the job."""
        try:
            for job in jobs:
                root = placing.place(job)
                request = {"id": job.key, "root": str(root), "dir": str(root / job.path) if job.path else str(root),
                           "kustomization": job.kustomization, "objects": list(job.objects)}
                into.write(json.dumps(request, separators=(",", ":")).encode() + b"\n")
                into.flush()
        except BaseException as err:  # noqa: BLE001 - handed to the caller's thread, which raises it
            failed.append(err)
        finally:
            try:
                into.close()
            except OSError:
                pass
