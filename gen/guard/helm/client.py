"""coredns-gen-helper's `helm` subcommand (tools/helper/helm): Helm's own library, one JSON line each way.

One helper process serves a guard run; requests are few (only HelmReleases whose inputs changed
are rendered), so they go one at a time. A helper that dies or answers nonsense is a tool failure
(exit 3), never a render that found nothing.
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import time
from pathlib import Path
from typing import IO, Any

from gen.errors import ToolError
from gen.guard.build.engine import binary_id
from gen.tools import HELPER_BUILD_HINT, helper_binary

PROTOCOL = 1  # tools/helper/helm/helm.go Protocol
TIMEOUT_ENV = "COREDNS_GEN_HELM_TIMEOUT"  # seconds one render or fetch may take (default 300)


class TookTooLong(Exception):
    """The helper did not answer in time (a chart whose templates run away, a registry that stalls)."""


class HelmHelper:
    """A `coredns-gen-helper helm` process, started on the first request."""

    def __init__(self) -> None:
        binary = helper_binary(build=True)
        if binary is None:
            raise ToolError("coredns-gen-helper is not installed: the guard renders HelmReleases with it",
                            hint=HELPER_BUILD_HINT)
        self.binary: Path = binary
        self._proc: subprocess.Popen[bytes] | None = None
        self._identity: str | None = None

    @property
    def identity(self) -> str:
        """Which helper renders: its protocol and its binary's build id (a digest of everything it
        was built from, Helm's version included), so another Helm or another build of the helper
        never reuses a kept render. A helper without the `helm` subcommand fails its first request."""
        if self._identity is None:
            self._identity = f"helm {PROTOCOL} {binary_id(self.binary)}"
        return self._identity

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        """The helper's answer to one request (its `error` key set when Helm refused it).

        Raises:
            ToolError: the helper could not be started, died or answered no JSON object.
        """
        proc = self._start()
        stdin, stdout = proc.stdin, proc.stdout
        assert stdin is not None and stdout is not None
        try:
            stdin.write(json.dumps(request, sort_keys=True).encode() + b"\n")
            stdin.flush()
            line = self._line(stdout)
        except OSError as err:
            raise self._died(str(err)) from err
        if not line:
            raise self._died("it stopped")
        try:
            answer = json.loads(line)
        except ValueError as err:
            raise self._died(f"it answered no JSON ({err})") from err
        if not isinstance(answer, dict):
            raise self._died("it answered no JSON object")
        return answer

    def _line(self, stdout: IO[bytes]) -> bytes:
        """One answer line, within the time limit; past it the helper is stopped (TookTooLong)."""
        limit = float(os.environ.get(TIMEOUT_ENV) or 300)
        deadline = time.monotonic() + limit
        chunks: list[bytes] = []
        fd = stdout.fileno()
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while True:
                left = deadline - time.monotonic()
                if left <= 0 or not sel.select(left):
                    self.close(kill=True)
                    raise TookTooLong(f"coredns-gen-helper helm did not answer within {limit:g} s (set {TIMEOUT_ENV})")
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    return b"".join(chunks)
                chunks.append(chunk)
                if chunk.endswith(b"\n"):
                    return b"".join(chunks)

    def close(self, kill: bool = False) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if kill:
            proc.kill()
        for pipe in (proc.stdin, proc.stdout):
            if pipe is not None:
                try:
                    pipe.close()
                except OSError:
                    pass
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stderr is not None:
            proc.stderr.close()

    def _start(self) -> subprocess.Popen[bytes]:
        if self._proc is None:
            try:
                self._proc = subprocess.Popen([str(self.binary), "helm"], stdin=subprocess.PIPE,
                                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            except OSError as err:
                raise ToolError(f"cannot run {self.binary} helm: {err}", hint=HELPER_BUILD_HINT) from err
        return self._proc

    def _died(self, what: str) -> ToolError:
        proc, self._proc = self._proc, None
        stderr = ""
        if proc is not None:
            proc.kill()
            proc.wait()
            err: IO[bytes] | None = proc.stderr
            stderr = err.read().decode(errors="replace")[-2000:] if err is not None else ""
        return ToolError(f"coredns-gen-helper helm failed: {what}", stderr=stderr, hint=HELPER_BUILD_HINT)
