"""Turn a cluster's Corefile into one a real CoreDNS can run on loopback, next to fake upstreams.

The rewrite is as small as possible, so what runs is the cluster's config and not ours:
- every server block listens on a free 127.0.0.1 port (`bind 127.0.0.1` added, one local port
  per original port); `health`, `ready`, `prometheus`, `pprof` move to free loopback ports
  (health loses `lameduck`, which only delays shutdown);
- `kubernetes`, `k8s_external` and `autopath` go (no API server here); `loop` goes too: its
  start-up probe travels through `forward` to the *primary* upstream and so touches the very
  health state the scenarios measure (with loopback fakes it does not fire; measured);
- every forward upstream becomes a fake (`upstreams.py`); a resolv.conf-style file becomes a
  generated file naming a fake on port 53 (resolv.conf cannot carry a port), or, when this
  process may not bind port 53, the fake's `IP:port` written in place of the file;
- absolute paths (`import /etc/coredns/custom/*.override`, `hosts /etc/coredns/NodeHosts`,
  `/etc/resolv.conf`) move under the sandbox root; `import` stays an import, so the
  coredns-custom wiring is exercised for real;
- one server block is added on its own loopback port: `.:<port>` forwarding to a warm-up fake
  of its own (and carrying `ready` when the Corefile has none). A query through it proves the
  whole query path (listener, plugin chain, forward's dial) works before the first scenario,
  without touching the proxies, and so the health state, of the cluster's forwards.
"""

from __future__ import annotations

import ipaddress
import posixpath
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from gen.comments import comment
from gen.corefile import Corefile, Directive, ServerBlock, ServerKey, parse_corefile, parse_directives
from gen.errors import Problem, UsageError, quote
from gen.verify.fake_upstreams import DEFAULT_LIFETIME, FakeUpstream, can_bind_port_53, free_port, loopback_host, start_fake

REMOVED = frozenset({"kubernetes", "k8s_external", "autopath", "loop"})
LISTENERS = {"health": ":8080", "ready": ":8181", "prometheus": "localhost:9153", "pprof": "localhost:6053"}
LOOPBACK = "127.0.0.1"


@dataclass(frozen=True)
class VerifyConfig:
    """What CoreDNS would load: the main Corefile plus the coredns-custom keys it imports."""

    corefile: str
    custom: Mapping[str, str] = field(default_factory=dict)
    coredns_version: str = ""
    # zone ("." or "corp.example.com.") -> the upstream the values say must answer first
    primaries: Mapping[str, str] = field(default_factory=dict)
    # zone -> the upstream that must answer it: a forward in an override coredns-gen did not
    # write, added by verify itself (scenarios.PROBE_KEY), that CoreDNS must reach
    probes: Mapping[str, str] = field(default_factory=dict)
    name: str = "Corefile"
    base_dir: str = "/etc/coredns"
    custom_dir: str = "/etc/coredns/custom"

    def custom_label(self, key: str) -> str:
        return f"coredns-custom/{key}"


def upstream_kind(token: str) -> str:
    """`ip` (IP or IP:port, optional dns://), `file` (resolv.conf style) or `unsupported`."""
    bare = token[len("dns://"):] if token.startswith("dns://") else token
    if "://" in bare:
        return "unsupported"
    host = bare
    if bare.startswith("["):
        host = bare[1:bare.find("]")] if "]" in bare else bare
    elif bare.count(":") == 1:
        host = bare.split(":")[0]
    try:
        ipaddress.ip_address(host)
        return "ip"
    except ValueError:
        return "file"


@dataclass
class Sandbox:
    """A written-out sandbox: where the Corefile is, which local port stands for which, the fakes."""

    root: Path
    corefile: Path
    ports: dict[str, int]  # original listener port ("53") -> local port
    fakes: dict[str, FakeUpstream]  # upstream token as written -> its fake
    resolv_conf: str  # "file" or "inline"
    warmup: FakeUpstream | None = None  # the warm-up block's own upstream
    warmup_port: int = 0  # the warm-up block's listener
    ready: str = ""  # host:port of CoreDNS's `ready` endpoint

    def stop(self) -> None:
        for fake in [*self.fakes.values(), *([self.warmup] if self.warmup else [])]:
            fake.stop()


def upstream_tokens(config: VerifyConfig) -> list[str]:
    """Every forward TO entry in the main Corefile and the custom files, first-seen order."""
    seen: list[str] = []
    for _label, nodes in _parsed(config):
        for d in _walk(nodes):
            if d.name == "forward":
                seen.extend(t for t in d.args[1:] if t not in seen)
    return seen


def build_sandbox(root: Path, config: VerifyConfig, *, drop: frozenset[tuple[str, int]] = frozenset(),
                  lifetime: float = DEFAULT_LIFETIME) -> Sandbox:
    """Start one fake per upstream and write the adapted files under `root`.

    `drop` names forward directives (file label, line) to leave out: the negative control.

    Raises:
        UsageError: an upstream verify cannot fake (tls://, https://, grpc://).
    """
    tokens = upstream_tokens(config)
    bad = [Problem(f"cannot fake upstream {quote(t)}", file=d.file, line=d.line, col=d.col, key="forward",
                   hint="verify fakes plain DNS upstreams only (IP, IP:port or a resolv.conf file)")
           for _label, nodes in _parsed(config) for d in _walk(nodes) if d.name == "forward"
           for t in d.args[1:] if upstream_kind(t) == "unsupported"]
    if bad:
        raise UsageError(bad)
    use_file = can_bind_port_53(loopback_host())
    fakes: dict[str, FakeUpstream] = {}
    warmup: FakeUpstream | None = None
    try:
        for i, token in enumerate(tokens):
            port = 53 if upstream_kind(token) == "file" and use_file else 0
            fakes[token] = start_fake(token, i, port=port, lifetime=lifetime)
        warmup = start_fake("warm-up", len(tokens), lifetime=lifetime)
        for fake in [*fakes.values(), warmup]:
            fake.wait_ready()
        box = Sandbox(root, root / config.base_dir.lstrip("/") / "Corefile", {}, fakes,
                      "file" if use_file else "inline", warmup, free_port())
        _Writer(box, config, drop, use_file).write()
    except BaseException:
        for fake in [*fakes.values(), *([warmup] if warmup else [])]:
            fake.stop()
        raise
    return box


def _parsed(config: VerifyConfig) -> list[tuple[str, list[ServerBlock | Directive]]]:
    out: list[tuple[str, list[ServerBlock | Directive]]] = []
    main = parse_corefile(config.corefile, filename=config.name)
    out.append((config.name, [i for i in main.items if isinstance(i, (ServerBlock, Directive))]))
    for key, text in sorted(config.custom.items()):
        label = config.custom_label(key)
        if key.endswith(".override"):
            out.append((label, list(parse_directives(text, filename=label))))
        elif key.endswith(".server"):
            cf = parse_corefile(text, filename=label)
            out.append((label, [i for i in cf.items if isinstance(i, (ServerBlock, Directive))]))
    return out


def _walk(nodes: list[ServerBlock | Directive]) -> list[Directive]:
    out: list[Directive] = []
    for node in nodes:
        if isinstance(node, ServerBlock):
            out.extend(node.directives)
        else:
            out.append(node)
    return out


class _Writer:
    def __init__(self, box: Sandbox, config: VerifyConfig, drop: frozenset[tuple[str, int]], use_file: bool) -> None:
        self.box, self.config, self.drop, self.use_file = box, config, drop, use_file
        self.listeners: dict[tuple[str, str], str] = {}

    def path(self, original: str) -> Path:
        """Where an absolute cluster path lives in the sandbox (relative: beside the Corefile)."""
        if not original.startswith("/"):
            original = posixpath.join(self.config.base_dir, original)
        return self.box.root / posixpath.normpath(original).lstrip("/")

    def write(self) -> None:
        main = parse_corefile(self.config.corefile, filename=self.config.name)
        text = self._corefile(main)
        for key, raw in sorted(self.config.custom.items()):
            label = self.config.custom_label(key)
            target = self.path(posixpath.join(self.config.custom_dir, key))
            if key.endswith(".override"):
                body = "".join(d.render(0) for d in self._directives(parse_directives(raw, filename=label)))
            elif key.endswith(".server"):
                body = self._corefile(parse_corefile(raw, filename=label))
            else:
                body = raw
            self._save(target, body)
        self._save(self.box.corefile, text + self._warmup_block())  # last: a `ready` in a .server file counts

    def _warmup_block(self) -> str:
        box = self.box
        assert box.warmup is not None
        ready = ""
        if not box.ready:
            box.ready = self._listener("ready", "coredns-gen")
            ready = f"    ready {box.ready}\n"
        return (f"\n# coredns-gen verify: warm-up and readiness, not part of the cluster's Corefile\n"
                f".:{box.warmup_port} {{\n    bind {LOOPBACK}\n{ready}    forward . {box.warmup.address}\n}}\n")

    def _save(self, target: Path, text: str) -> None:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)

    def _corefile(self, cf: Corefile) -> str:
        for item in cf.items:
            if isinstance(item, ServerBlock):
                item.keys = [self._key(k) for k in item.keys]
                body = self._directives(item.directives)
                item.directives = [Directive("bind", [LOOPBACK], item.line, file=item.file), *body]
            elif isinstance(item, Directive):
                self._directive(item)
            else:
                item.directives = self._directives(item.directives)
        return cf.render()

    def _key(self, text: str) -> str:
        key = ServerKey.parse(text)
        if key.scheme != "dns":
            raise UsageError(Problem(f"cannot verify a {key.scheme}:// server block", key=text,
                                     hint="verify runs plain DNS server blocks only"))
        original = key.port or "53"
        if original not in self.box.ports:
            self.box.ports[original] = free_port()
        return f"{key.zone}:{self.box.ports[original]}"

    def _directives(self, ds: list[Directive]) -> list[Directive]:
        out: list[Directive] = []
        for d in ds:
            if d.name in REMOVED or d.name == "bind":
                continue
            if d.name == "forward" and (d.file, d.line) in self.drop:
                continue
            out.append(self._directive(d))
        return out

    def _directive(self, d: Directive) -> Directive:
        if d.name == "forward" and d.args:
            d.args = [d.args[0], *(self._upstream(t) for t in d.args[1:])]
        elif d.name in LISTENERS:
            original = d.args[0] if d.args else LISTENERS[d.name]
            d.args = [self._listener(d.name, original)]
            if d.name == "health":
                d.block = None
            if d.name == "ready" and not self.box.ready:
                self.box.ready = d.args[0]
        elif d.name == "import" and d.args and d.args[0].startswith("/"):
            d.args = [str(self.path(d.args[0])), *d.args[1:]]
        elif d.name == "hosts":
            self._hosts(d)
        return d

    def _listener(self, plugin: str, original: str) -> str:
        if (plugin, original) not in self.listeners:
            self.listeners[(plugin, original)] = f"{LOOPBACK}:{free_port()}"
        return self.listeners[(plugin, original)]

    def _upstream(self, token: str) -> str:
        fake = self.box.fakes[token]
        if upstream_kind(token) != "file":
            return fake.address
        if not self.use_file:
            return fake.address
        target = self.path(token)
        self._save(target, f"{comment('coredns-gen verify: stands for ' + token)}\nnameserver {fake.host}\n")
        return str(target)

    def _hosts(self, d: Directive) -> None:
        # `hosts [FILE [ZONES…]]`: a relative FILE is relative to the Corefile, none is /etc/hosts.
        target = self.path(d.args[0] if d.args else "/etc/hosts")
        d.args = [str(target), *d.args[1:]]
        if not target.exists():
            self._save(target, "")
