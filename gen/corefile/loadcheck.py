"""Load a bare Corefile in the real CoreDNS on loopback and report whether it started.

The real-binary lint tests prove each "CoreDNS refuses this" rule with it: listeners move to
free high ports on 127.0.0.1, health, ready and metrics off their fixed ports, plugins that
need a cluster or the network (`kubernetes`, `loop`) go, and `/etc/resolv.conf` points at a
generated file. The process is started and stopped by gen.launcher, as for `lint --load` and
`verify` (which adapt a whole cluster's config with gen.verify.sandbox instead).
"""

from __future__ import annotations

import copy
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from gen.corefile.tree import Corefile, Directive, ServerBlock
from gen.launcher import CoreDNS, LoadError
from gen.loopback import free_port as free_port  # re-exported for the real-binary lint tests
from gen.loopback import movable_listener

DROP = frozenset({"kubernetes", "loop"})  # need a cluster API / send probes upstream
RESOLV_CONF = "/etc/resolv.conf"


@dataclass(frozen=True)
class LoadResult:
    started: bool
    output: str  # stdout + stderr of the run (the refusal reason when it did not start)
    corefile: str  # the text CoreDNS was given


def _adapt_block(block: ServerBlock, ports: dict[str, int], resolv: str, api: str | None = None) -> ServerBlock:
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
        if api is not None and d.name == "kubernetes":
            d.block = [o for o in d.block or [] if o.name not in ("endpoint", "kubeconfig")]
            d.block.append(Directive("endpoint", [api], d.line, None, d.file))
            kept.append(d)
            continue
        if api is not None and d.name == "bind":
            d.args = ["127.0.0.1"]
        if d.name in DROP:
            continue
        if d.name in ("health", "ready", "prometheus") and movable_listener(d.args[0] if d.args else ""):
            d.args = [f"127.0.0.1:{free_port()}", *d.args[1:]]
        if d.name == "forward":
            d.args = [resolv if a == RESOLV_CONF else a for a in d.args]
        kept.append(d)
    if not any(d.name == "bind" for d in kept):
        kept.insert(0, Directive("bind", ["127.0.0.1"], block.line, None, block.file))
    out.directives = kept
    return out


def adapt_for_loopback(cf: Corefile, resolv_conf: str, ports: dict[str, int] | None = None,
                       api: str | None = None) -> Corefile:
    """A copy of `cf` that runs standalone on loopback; `ports` maps original port -> new port.

    With `api` (a fake API server's URL, gen.kubeapi) `kubernetes` stays, options intact, its
    `endpoint` pointed there, and a written `bind` is moved to 127.0.0.1.
    """
    ports = {} if ports is None else ports
    items = [_adapt_block(i, ports, resolv_conf, api) if isinstance(i, ServerBlock) else copy.deepcopy(i)
             for i in cf.items]
    return Corefile(cf.filename, items)


def try_load(corefile_text: str, binary: Path | str, *, files: Mapping[str, str] | None = None,
             env: Mapping[str, str] | None = None, timeout: float = 15.0) -> LoadResult:
    """Run `coredns -conf Corefile` in a temp dir (with `files` beside it); True if it started.

    The text is given to CoreDNS verbatim: adapt it first (adapt_for_loopback) unless it already
    listens on free loopback ports. Started means the version banner was printed, which CoreDNS
    does only after every server is listening; a refusal is an exit before that. `env` is set
    for `{$VAR}` placeholders.

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
        process = CoreDNS(binary, root / "Corefile", [], extra_args=("-dns.port", str(free_port())), start_timeout=timeout,
                          env={"HOME": tmp, **(env or {})})
        try:
            with process:
                started = True
        except LoadError:
            started = False
        return LoadResult(started, process.output(), corefile_text)


def write_resolv_conf(directory: Path, nameserver: str = "127.0.0.1") -> str:
    """A resolv.conf for forward to read instead of the host's (no traffic leaves loopback)."""
    path = directory / "resolv.conf"
    path.write_text(f"nameserver {nameserver}\n", encoding="utf-8")
    return str(path)
