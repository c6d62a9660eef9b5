"""The one way coredns-gen starts the real CoreDNS: `lint --load`, the real-binary lint tests and
`verify` all go through `CoreDNS` here.

A process serves one Corefile from a sandbox folder and is always stopped; every wait is
bounded (`timeout` from coreutils also ends it if coredns-gen itself is killed). Start-up is
ready when all of these hold, in this order, checked once CoreDNS has printed its version banner
(which it prints once every server listens: waiting on it reads a small log file instead of
polling sockets, /proc and HTTP; with no listener named, the banner alone):
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


VERSION_TIMEOUT = 20.0  # seconds for `coredns -version`

# Set once in verify's confined child (gen/verify/contained.py), never elsewhere: every CoreDNS
# that process starts runs chrooted in the jail, as the binary bound there.
_chroot: list[tuple[list[str], str]] = []


def run_chrooted(prefix: list[str], binary_inside: str) -> None:
    """From now on this process starts CoreDNS as `PREFIX --wd=DIR BINARY_INSIDE …`, PREFIX a chroot."""
    _chroot[:] = [(prefix, binary_inside)]


def time_limit(default: float) -> float:
    """A wait on CoreDNS: `default`, or COREDNS_GEN_TOOL_TIMEOUT seconds when set (a slow CI
    machine raises it; a test of a binary that hangs lowers it)."""
    try:
        limit = float(os.environ.get("COREDNS_GEN_TOOL_TIMEOUT", default))
    except ValueError:
        return default
    return limit if limit > 0 else default


def binary_version(binary: Path) -> str:
    """`1.13.1` from `coredns -version` (the binary that really ran).

    Raises:
        ToolError: the binary does not run, hangs past the time limit, or prints no version.
    """
    limit = time_limit(VERSION_TIMEOUT)
    try:
        done = subprocess.run([str(binary), "-version"], capture_output=True, timeout=limit, check=False)
    except OSError as err:
        raise ToolError(f"cannot run CoreDNS binary {binary}: {err}", hint=COREDNS_INSTALL_HINT) from None
    except subprocess.TimeoutExpired:
        raise ToolError(f"CoreDNS binary {binary}: `-version` did not finish within {limit:g} s",
                        hint=f"check that {binary} is CoreDNS; {COREDNS_INSTALL_HINT}") from None
    output = (done.stdout + done.stderr).decode("utf-8", errors="replace")
    match = re.search(r"CoreDNS-(\d+\.\d+\.\d+)", output)
    if done.returncode != 0 or not match:
        raise ToolError(f"{binary} -version did not report a CoreDNS version", hint=COREDNS_INSTALL_HINT,
                        stderr=_printable(output[:4000]))
    return match.group(1)


class CoreDNS:
    """A CoreDNS child process serving `corefile`; use as a context manager."""

    def __init__(self, binary: Path | str, corefile: Path, ports: list[int], *, ready: str = "",
                 check: tuple[str, Callable[[], bool]] | None = None, extra_args: tuple[str, ...] = (),
                 start_timeout: float = 0.0, env: dict[str, str] | None = None) -> None:
        self.binary, self.corefile, self.ports = binary, corefile, ports
        self.ready, self.check = ready, check
        self.extra_args, self.start_timeout = extra_args, start_timeout or time_limit(START_TIMEOUT)
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
        if _chroot:
            prefix, inside = _chroot[0]
            argv = [*prefix, f"--wd={self.corefile.parent}", inside, *argv[1:]]
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
        self._wait("its version banner", deadline, lambda: BANNER in self.output())
        pending = list(self.ports)
        while pending:
            if self.proc.poll() is not None:
                self._died("loading the Corefile")
            try:
                socket.create_connection((LOOPBACK, pending[0]), timeout=0.2).close()
                pending.pop(0)
            except OSError as err:
                if time.monotonic() > deadline:
                    self.stop()
                    raise self._hung(f"did not listen on 127.0.0.1:{pending[0]}") from err
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
                self._died("starting")
            if time.monotonic() > deadline:
                self.stop()
                raise self._hung(f"was not ready: no answer from {what}")
            time.sleep(0.01)

    def _died(self, doing: str) -> None:
        """CoreDNS exited before it was ready: refusing the Corefile is an exit with an error
        (LoadError, the Corefile's finding); killed by a signal or exiting 0 is the tool failing.

        Raises:
            LoadError, ToolError.
        """
        assert self.proc is not None
        code = self.proc.returncode
        if code < 0 or code == 0 or code >= 124:  # a signal (`timeout` reports 124-137 for its child)
            raise ToolError(f"CoreDNS binary {self.binary} {'was killed by a signal' if code < 0 or code > 128 else f'exited with code {code}'} "
                            f"while {doing}, without refusing the Corefile", hint=f"check that {self.binary} is a working CoreDNS",
                            stderr=_printable(self.output()[-4000:]))
        raise LoadError(f"CoreDNS exited with code {code} while {doing}", self.output())

    def _hung(self, what: str) -> ToolError:
        """Neither ready nor exited within the time limit: the tool hangs (no Corefile keeps a
        CoreDNS from either listening or exiting)."""
        return ToolError(f"CoreDNS binary {self.binary} {what} within {self.start_timeout:g} s, and did not exit",
                         hint=f"check that {self.binary} is a working CoreDNS; on a slow machine raise COREDNS_GEN_TOOL_TIMEOUT",
                         stderr=_printable(self.output()[-4000:]))

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


def _printable(text: str) -> str:
    """A tool's output as a message shows it: control characters (other than line breaks) escaped."""
    return "".join(c if c.isprintable() or c == "\n" else f"\\x{ord(c):02x}" for c in text)


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
