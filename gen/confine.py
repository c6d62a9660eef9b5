"""Run the real CoreDNS where a Corefile can open only its sandbox and reach only loopback.

`guard --verify`, `verify` and `lint --load` run Corefiles from the repository under review:
hostile input. CoreDNS opens what a Corefile names (`file`, `root`, `tls`, `dnssec` keys, `sign`
writes) and dials what it names (`dnstap tcp://`, `trace`, `etcd` endpoints). So the part of
coredns-gen that starts CoreDNS (and the fakes it talks to) runs in a child process in new user,
mount, network and PID namespaces (`unshare` from util-linux, unprivileged):
- the network namespace holds only its own loopback, brought up here: the fakes, the DNS client
  and CoreDNS meet there, and nothing else is reachable (no route out, the machine's own
  loopback services included);
- each CoreDNS runs chrooted (`unshare --root`) in an empty tmpfs that holds only its binary
  (bound read-only, with the shared libraries a cgo build loads) and the sandbox folder (bound at
  its own path, so the sandbox's absolute paths hold): no other file of the machine exists for
  it, and what it writes outside the sandbox is discarded;
- the PID namespace ends every CoreDNS with the child.
The child is `python -m MODULE`, whose `__main__` hands `child_main` its serve function; it runs
`serve(request, sandbox)` and answers JSON.
Where the kernel refuses unprivileged user namespaces (Ubuntu 24.04's AppArmor default
`kernel.apparmor_restrict_unprivileged_userns=1`, Docker's default seccomp profile, macOS) the run
is refused (exit 3) with the fix; COREDNS_GEN_VERIFY_UNCONFINED=1 runs it unconfined, for input
the user trusts.
"""

from __future__ import annotations

import ctypes
import dataclasses
import fcntl
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gen import launcher
from gen.errors import Problem, ToolError, UsageError

UNCONFINED_ENV = "COREDNS_GEN_VERIFY_UNCONFINED"
CONFINED = "namespaces (user, mount, network, pid): loopback only, CoreDNS chrooted into its sandbox"
UNCONFINED = f"none ({UNCONFINED_ENV}=1)"
RUN_TIMEOUT = 600.0  # seconds for one child (each CoreDNS in it is bounded far below)
NAMESPACES = ("--user", "--map-root-user", "--net", "--mount", "--pid", "--fork", "--kill-child")
ALLOW_HINT = (f"run it on Linux with unprivileged user namespaces (on Ubuntu 24.04, GitHub's ubuntu-24.04 runners "
              f"included: `sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0` first), or set "
              f"{UNCONFINED_ENV}=1 to run CoreDNS unconfined on a Corefile you trust")


def unconfined() -> bool:
    """The user asked to run CoreDNS unconfined (input they trust)."""
    return os.environ.get(UNCONFINED_ENV) == "1"


def run_confined(module: str, request: dict[str, Any], binary: Path, root: Path) -> dict[str, Any]:
    """The answer of `module`'s serve function (`python -m module`, see `child_main`) to `request`, run in the namespaces with `binary` as the CoreDNS it starts;
    its sandbox folder is `root`/sandbox (an empty folder of the caller's, read after the run).

    Raises:
        ToolError: no namespaces here (refused, with the fix), or what the entry raised as one.
        UsageError: what the entry raised as one.
    """
    unshare = shutil.which("unshare")
    if not sys.platform.startswith("linux") or unshare is None:
        raise ToolError("cannot confine CoreDNS: no Linux namespaces here (`unshare` from util-linux not found)",
                        hint=ALLOW_HINT)
    message = {"request": request, "binary": str(Path(binary).resolve()), "root": str(root)}
    argv = [unshare, *NAMESPACES, sys.executable, "-m", module]
    try:
        done = subprocess.run(argv, input=json.dumps(message), capture_output=True, text=True,
                              timeout=RUN_TIMEOUT, check=False)
    except subprocess.TimeoutExpired:
        raise ToolError(f"the confined CoreDNS run did not finish within {RUN_TIMEOUT:g} s",
                        hint="check that the CoreDNS binary works (`coredns -version`)") from None
    return _answer(done)


def _answer(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    last = done.stdout.strip().splitlines()[-1:] if done.stdout.strip() else []
    try:
        reply: dict[str, Any] = json.loads(last[0]) if last else {}
    except ValueError:
        reply = {}
    if "answer" in reply:
        return dict(reply["answer"])
    if reply.get("error") in ("usage", "tool"):
        problems = [Problem(**p) for p in reply["problems"]]
        if reply["error"] == "usage":
            raise UsageError(problems)
        raise ToolError(problems[0].problem, hint=problems[0].hint)
    stderr = done.stderr.strip()
    if stderr.startswith("unshare:") or reply.get("error") == "confine":
        why = str(reply.get("message") or stderr.splitlines()[0])
        raise ToolError(f"cannot confine CoreDNS in new namespaces, so it is not run: {why}", hint=ALLOW_HINT)
    raise RuntimeError(f"the confined CoreDNS run exited {done.returncode}:\n{stderr[-4000:]}")


# The child's side: root of its own user namespace, in its own network, mount and PID namespaces.

_SIOCGIFFLAGS, _SIOCSIFFLAGS, _IFF_UP = 0x8913, 0x8914, 0x1
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC, _MS_REMOUNT, _MS_BIND = 0x1, 0x2, 0x4, 0x8, 0x20, 0x1000


def _loopback_up() -> None:
    """A new network namespace's `lo` is down; up, it carries 127.0.0.0/8 and ::1 (the kernel's own)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        flags = struct.unpack("16sH14x", fcntl.ioctl(s, _SIOCGIFFLAGS, struct.pack("16sH14x", b"lo", 0)))[1]
        fcntl.ioctl(s, _SIOCSIFFLAGS, struct.pack("16sH14x", b"lo", flags | _IFF_UP))


def _mount(source: str, target: str, fstype: str, flags: int, data: str = "") -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.mount(source.encode(), target.encode(), fstype.encode(), ctypes.c_ulong(flags), data.encode() or None) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"mount {source} on {target}: {os.strerror(err)}")


def _bind_readonly(source: Path, target: Path) -> None:
    """Bind `source` at `target`, read-only; a remount must keep the flags the kernel locked on it."""
    _mount(str(source), str(target), "", _MS_BIND)
    kept = os.statvfs(source).f_flag
    locked = ((_MS_NOSUID if kept & os.ST_NOSUID else 0) | (_MS_NODEV if kept & os.ST_NODEV else 0)
              | (_MS_NOEXEC if kept & os.ST_NOEXEC else 0))
    _mount("", str(target), "", _MS_REMOUNT | _MS_BIND | _MS_RDONLY | locked)


def _shared_libraries(binary: Path) -> list[Path]:
    """The files a dynamically linked binary loads (a cgo build: libc and its loader), from `ldd`;
    none for a static one (CoreDNS's releases). They are bound into the jail read-only."""
    ldd = shutil.which("ldd")
    if ldd is None:
        return []
    done = subprocess.run([ldd, str(binary)], capture_output=True, text=True, timeout=30, check=False)
    found = [Path(word) for line in done.stdout.splitlines() for word in line.split() if word.startswith("/")]
    return sorted({p for p in found if p.is_file()})


def _jail(root: Path, binary: Path) -> tuple[Path, Path]:
    """(the jail, the sandbox folder): an empty tmpfs holding the binary (and the shared libraries
    it loads) and the sandbox folder."""
    jail, sandbox = root / "jail", root / "sandbox"
    jail.mkdir()
    sandbox.mkdir(exist_ok=True)
    _mount("coredns-gen-jail", str(jail), "tmpfs", _MS_NOSUID | _MS_NODEV, "size=64m,mode=0755")
    inside = jail / sandbox.relative_to("/")
    inside.mkdir(parents=True)
    _mount(str(sandbox), str(inside), "", _MS_BIND)
    (jail / "coredns").touch(mode=0o755)
    _bind_readonly(binary, jail / "coredns")
    for library in _shared_libraries(binary):
        target = jail / library.relative_to("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.touch()
        _bind_readonly(library, target)
    _mount("", str(jail), "", _MS_REMOUNT | _MS_RDONLY | _MS_NOSUID | _MS_NODEV)
    return jail, sandbox


Serve = Callable[[dict[str, Any], Path], dict[str, Any]]


def _serve(message: dict[str, Any], serve: Serve) -> dict[str, Any]:
    try:
        _loopback_up()
        jail, sandbox = _jail(Path(message["root"]), Path(message["binary"]))
        unshare = shutil.which("unshare") or "unshare"
    except OSError as err:
        return {"error": "confine", "message": str(err)}
    tempfile.tempdir = str(sandbox)
    launcher.run_chrooted([unshare, f"--root={jail}"], "/coredns")
    try:
        return {"answer": serve(message["request"], sandbox)}
    except (UsageError, ToolError) as err:
        return {"error": "usage" if isinstance(err, UsageError) else "tool",
                "problems": [dataclasses.asdict(p) for p in err.problems]}


def child_main(serve: Serve) -> None:
    """The confined child's whole run (a serving module's `if __name__ == "__main__":`): the
    message on stdin, `serve`'s answer (or the error) as one JSON line on stdout."""
    reply = _serve(json.loads(sys.stdin.read()), serve)
    sys.stdout.write(json.dumps(reply) + "\n")
