"""The one way coredns-gen starts the real CoreDNS: `lint --load`, the real-binary lint tests and
`verify` all go through `CoreDNS` here.

A process serves one Corefile from a sandbox folder and is always stopped; every wait is
bounded (`timeout` from coreutils also ends it if coredns-gen itself is killed). Start-up is
ready when all of these hold, in this order (when the caller names no listener, CoreDNS's version
banner instead, which it prints once every server listens):
1. every DNS listener accepts TCP;
2. every DNS listener's UDP socket is bound (/proc/net/udp): CoreDNS (caddy's startServers)
   binds TCP, then UDP, so an accepted TCP probe does not mean a UDP query has anywhere to go;
3. the `ready` plugin answers 200 (it opens in OnStartup, before the DNS listeners, so it
   alone proves nothing about them; together they are CoreDNS's own word);
4. the caller's own check, if any (verify: a query through its warm-up block, so a cold binary
   faults in its code before a scenario measures anything).
A refusal is an exit before that: `LoadError` carries CoreDNS's own output.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Callable

from gen.errors import ToolError
from gen.tools import COREDNS_INSTALL_HINT

START_TIMEOUT = 30.0  # a cold 100 MB binary on a busy disk: seconds before it listens
MAX_LIFETIME = 60  # seconds; a scenario group needs ~10, this only bounds a run that was killed
LOOPBACK = "127.0.0.1"
BANNER = "CoreDNS-"


class LoadError(Exception):
    """CoreDNS refused the sandbox Corefile or exited early; `output` is its log."""

    def __init__(self, message: str, output: str) -> None:
        super().__init__(message)
        self.output = output


def binary_version(binary: Path) -> str:
    """`1.13.1` from `coredns -version` (the binary that really ran).

    Raises:
        ToolError: the binary does not run.
    """
    try:
        done = subprocess.run([str(binary), "-version"], capture_output=True, text=True, timeout=20, check=False)
    except OSError as err:
        raise ToolError(f"cannot run CoreDNS binary {binary}: {err}", hint=COREDNS_INSTALL_HINT) from None
    match = re.search(r"CoreDNS-(\d+\.\d+\.\d+)", done.stdout + done.stderr)
    if done.returncode != 0 or not match:
        raise ToolError(f"{binary} -version did not report a CoreDNS version", hint=COREDNS_INSTALL_HINT,
                        stderr=done.stdout + done.stderr)
    return match.group(1)


class CoreDNS:
    """A CoreDNS child process serving `corefile`; use as a context manager."""

    def __init__(self, binary: Path | str, corefile: Path, ports: list[int], *, ready: str = "",
                 check: tuple[str, Callable[[], bool]] | None = None, extra_args: tuple[str, ...] = (),
                 start_timeout: float = 0.0, env: dict[str, str] | None = None) -> None:
        self.binary, self.corefile, self.ports = binary, corefile, ports
        self.ready, self.check = ready, check
        self.extra_args, self.start_timeout = extra_args, start_timeout or START_TIMEOUT
        self.env = None if env is None else {"PATH": os.environ.get("PATH", ""), **env}
        self.log = corefile.parent / "coredns.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> "CoreDNS":
        self.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    def start(self) -> None:
        """Start and wait until it is ready (see the module docstring).

        Raises:
            LoadError: CoreDNS exited (a Corefile it refuses) or never became ready.
            ToolError: the binary cannot be executed.
        """
        argv = [str(self.binary), "-conf", str(self.corefile), *self.extra_args]
        bound = shutil.which("timeout")  # coreutils: ends CoreDNS even if coredns-gen itself is killed
        if bound:
            argv = [bound, "-k", "5", str(MAX_LIFETIME), *argv]
        try:
            with self.log.open("wb") as log:
                self.proc = subprocess.Popen(argv, cwd=self.corefile.parent, stdout=log, stderr=subprocess.STDOUT,
                                             env=self.env)
        except OSError as err:
            raise ToolError(f"cannot run CoreDNS binary {self.binary}: {err}", hint=COREDNS_INSTALL_HINT) from None
        deadline = time.monotonic() + self.start_timeout
        if not self.ports:
            self._wait("its version banner", deadline, lambda: BANNER in self.output())
        pending = list(self.ports)
        while pending:
            if self.proc.poll() is not None:
                raise LoadError(f"CoreDNS exited with code {self.proc.returncode} while loading the Corefile",
                                self.output())
            try:
                socket.create_connection((LOOPBACK, pending[0]), timeout=0.2).close()
                pending.pop(0)
            except OSError as err:
                if time.monotonic() > deadline:
                    self.stop()
                    raise LoadError(f"CoreDNS did not listen on 127.0.0.1:{pending[0]} within {self.start_timeout:.0f}s",
                                    self.output()) from err
                time.sleep(0.02)
        if self.ports:
            self._wait("UDP on 127.0.0.1:" + ",".join(map(str, self.ports)), deadline, lambda: all(map(_udp_bound, self.ports)))
        if self.ready:
            self._wait(f"the ready endpoint http://{self.ready}/ready", deadline, lambda: _ready(self.ready))
        if self.check is not None:
            self._wait(*self.check[:1], deadline, self.check[1])

    def _wait(self, what: str, deadline: float, done: Callable[[], bool]) -> None:
        """Poll `done` until it holds; LoadError when CoreDNS exits or the deadline passes."""
        assert self.proc is not None
        while not done():
            if self.proc.poll() is not None:
                raise LoadError(f"CoreDNS exited with code {self.proc.returncode} while starting", self.output())
            if time.monotonic() > deadline:
                self.stop()
                raise LoadError(f"CoreDNS was not ready within {self.start_timeout:.0f}s: no answer from {what}", self.output())
            time.sleep(0.01)

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=3)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=3)

    def output(self) -> str:
        try:
            return self.log.read_text(errors="replace")
        except OSError:
            return ""


def _udp_bound(port: int) -> bool:
    """Whether some socket is bound to UDP `port` (the kernel's table: no packet is sent)."""
    suffix = f":{port:04X}"
    for table in ("/proc/net/udp", "/proc/net/udp6"):
        try:
            with open(table, encoding="ascii") as handle:
                if any(line.split()[1].endswith(suffix) for line in handle.readlines()[1:]):
                    return True
        except OSError:
            return True  # no /proc (not Linux): the caller's own check still proves the path
    return False


def _ready(address: str) -> bool:
    try:
        with urllib.request.urlopen(f"http://{address}/ready", timeout=1.0) as resp:  # noqa: S310 - loopback only
            return int(resp.status) == 200
    except (OSError, ValueError):
        return False
