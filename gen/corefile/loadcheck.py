"""Load a Corefile in the real CoreDNS binary on loopback and report whether it started.

Lint rules that say "CoreDNS refuses this" are proved against the real binary, and `verify`
needs the same sandbox: rewrite listeners to free high ports on 127.0.0.1, move health, ready
and metrics off their fixed ports, drop plugins that need a cluster or the network
(`kubernetes`, `loop`), and point `/etc/resolv.conf` at a generated file. The process is
always killed; every wait is bounded.
"""

from __future__ import annotations

import copy
import os
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from gen.corefile.model import Corefile, Directive, ServerBlock
from gen.errors import ToolError
from gen.loopback import free_port as free_port  # re-exported for the real-binary lint tests

DROP = frozenset({"kubernetes", "loop"})  # need a cluster API / send probes upstream
RESOLV_CONF = "/etc/resolv.conf"
BANNER = "CoreDNS-"


@dataclass(frozen=True)
class LoadResult:
    started: bool
    output: str  # stdout + stderr of the run (the refusal reason when it did not start)
    corefile: str  # the text CoreDNS was given


def _adapt_block(block: ServerBlock, ports: dict[str, int], resolv: str) -> ServerBlock:
    out = copy.deepcopy(block)
    keys = []
    for key in out.addresses:
        original = key.port or "53"
        if original not in ports:
            ports[original] = free_port()
        keys.append(key.with_port(ports[original]))
    out.keys = keys
    kept: list[Directive] = []
    for d in out.directives:
        if d.name in DROP:
            continue
        if d.name in ("health", "ready", "prometheus"):
            d.args = [f"127.0.0.1:{free_port()}"]
        if d.name == "forward":
            d.args = [resolv if a == RESOLV_CONF else a for a in d.args]
        kept.append(d)
    if not any(d.name == "bind" for d in kept):
        kept.insert(0, Directive("bind", ["127.0.0.1"], block.line, None, block.file))
    out.directives = kept
    return out


def adapt_for_loopback(cf: Corefile, resolv_conf: str, ports: dict[str, int] | None = None) -> Corefile:
    """A copy of `cf` that runs standalone on loopback; `ports` maps original port -> new port."""
    ports = {} if ports is None else ports
    items = [_adapt_block(i, ports, resolv_conf) if isinstance(i, ServerBlock) else copy.deepcopy(i)
             for i in cf.items]
    return Corefile(cf.filename, items)


def try_load(corefile_text: str, binary: Path | str, *, files: Mapping[str, str] | None = None,
             env: Mapping[str, str] | None = None, timeout: float = 15.0) -> LoadResult:
    """Run `coredns -conf Corefile` in a temp dir (with `files` beside it); True if it started.

    The text is given to CoreDNS verbatim: adapt it first (adapt_for_loopback) unless it already
    listens on free loopback ports. Started means the version banner was printed, which CoreDNS
    does only after every server is listening; a refusal is an exit before that.

    Raises:
        ToolError: the binary cannot be executed.
    """
    with tempfile.TemporaryDirectory(prefix="coredns-load-") as tmp:
        root = Path(tmp)
        (root / "Corefile").write_text(corefile_text, encoding="utf-8")
        for rel, text in (files or {}).items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        out_path = root / "coredns.out"
        run_env = {"PATH": os.environ.get("PATH", ""), "HOME": tmp, **(env or {})}
        try:
            with out_path.open("w") as out:
                proc = subprocess.Popen([str(binary), "-conf", str(root / "Corefile"), "-dns.port", str(free_port())],
                                        cwd=root, stdout=out, stderr=subprocess.STDOUT, env=run_env)
        except OSError as err:
            raise ToolError(f"cannot run CoreDNS binary {binary}: {err}") from None
        started = False
        deadline = time.monotonic() + timeout
        try:
            while time.monotonic() < deadline:
                if BANNER in out_path.read_text(errors="replace"):
                    started = True
                    break
                if proc.poll() is not None:
                    break
                time.sleep(0.05)
        finally:
            proc.kill()
            proc.wait(timeout=10)
        return LoadResult(started, out_path.read_text(errors="replace"), corefile_text)


def write_resolv_conf(directory: Path, nameserver: str = "127.0.0.1") -> str:
    """A resolv.conf for forward to read instead of the host's (no traffic leaves loopback)."""
    path = directory / "resolv.conf"
    path.write_text(f"nameserver {nameserver}\n", encoding="utf-8")
    return str(path)
