"""The sandbox `lint --load` starts CoreDNS in: every plugin and option as written, nothing leaving the machine.

CoreDNS is the judge of every option only if it sees them, so this rewrite replaces only what
would reach beyond this machine or collide with it, and keeps the shape of each replaced token
(a port stays a port, no port stays no port, a scheme stays):
- server keys move to free loopback ports (one per original port) and every block binds
  127.0.0.1 (a `bind` as written names interfaces of the cluster's node);
- `health`, `ready`, `prometheus`, `pprof` listen on free loopback ports, options kept (an
  address CoreDNS refuses, `health bogus`, stays as written: moved, it would pass);
- upstream addresses of `forward` and `grpc` become loopback (IPv4 127.0.0.1, IPv6 ::1, the
  written port kept); a host name stays a host name so CoreDNS refuses it ("not an IP address
  or file"); a path (resolv.conf style) becomes a file in the sandbox naming 127.0.0.1;
- `kubernetes` keeps every option and is pointed at a fake API server on loopback
  (gen.kubeapi): its `endpoint` replaced or added, a `kubeconfig` of ours under the context
  name written; client-certificate files (`tls CERT KEY CA`) are left out (nothing to read);
- the files `file`, `hosts` and `import` read move under the sandbox root: ConfigMap keys are
  written where the pod mounts them (/etc/coredns/KEY, coredns-custom keys under custom/), a
  missing hosts file is created empty (CoreDNS tolerates that too), anything else is left
  missing, as it would be in the pod.
Unlike verify's sandbox (gen/verify/sandbox.py) no plugin is removed and no fake upstream runs:
nothing is asked, CoreDNS only has to start.
"""

from __future__ import annotations

import ipaddress
import posixpath
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from gen.comments import comment
from gen.corefile import Corefile, Directive, ServerBlock, ServerKey, parse_corefile, parse_directives
from gen.corefile.tree import Snippet
from gen.kubeapi import FakeKubeAPI
from gen.loopback import free_port, movable_listener

LOOPBACK = "127.0.0.1"
LISTENERS = frozenset({"health", "ready", "prometheus", "pprof"})
BASE_DIR = "/etc/coredns"
CUSTOM_DIR = "/etc/coredns/custom"
# Plugins that would call a cloud API while starting: they are not loaded here (load.py says so).
CLOUD = frozenset({"route53", "clouddns", "azure"})


@dataclass
class LoadBox:
    """A written sandbox: its Corefile and the loopback ports CoreDNS must open."""

    root: Path
    corefile: Path
    ports: dict[str, int] = field(default_factory=dict)  # original port -> local port
    kubeconfigs: int = 0


def build_loadbox(root: Path, main: str, custom: Mapping[str, str], *, api: FakeKubeAPI,
                  files: Mapping[str, str] | None = None, name: str = "Corefile") -> LoadBox:
    """Write `main` (with `custom` as /etc/coredns/custom/KEY and `files` as absolute paths) under `root`.

    Raises:
        CorefileError: a text our reading of CoreDNS's grammar cannot parse (the static pass
            reports it with its position).
    """
    box = LoadBox(root, root / BASE_DIR.lstrip("/") / "Corefile")
    w = _Writer(box, api)
    for path, text in sorted((files or {}).items()):
        w.save(w.path(path), text)
    for key, raw in sorted(custom.items()):
        target = w.path(posixpath.join(CUSTOM_DIR, key))
        if key.endswith(".override"):
            w.save(target, "".join(d.render(0) for d in w.directives(parse_directives(raw, filename=key))))
        elif key.endswith(".server"):
            w.save(target, w.corefile(parse_corefile(raw, filename=key)))
        else:
            w.save(target, raw)
    w.save(box.corefile, w.corefile(parse_corefile(main, filename=name)))
    return box


def cloud_plugins(main: str, custom: Mapping[str, str]) -> list[str]:
    """Plugins in the texts that need a cloud API to start (not loadable here)."""
    found: list[str] = []
    for text in [main, *custom.values()]:
        for word in text.split():
            if word in CLOUD and word not in found:
                found.append(word)
    return found


class _Writer:
    def __init__(self, box: LoadBox, api: FakeKubeAPI) -> None:
        self.box, self.api = box, api
        self.listeners: dict[tuple[str, str], str] = {}

    def path(self, original: str) -> Path:
        """Where a cluster path lives in the sandbox (relative: beside the Corefile, as in the pod)."""
        if not original.startswith("/"):
            original = posixpath.join(BASE_DIR, original)
        return self.box.root / posixpath.normpath(original).lstrip("/")

    def save(self, target: Path, text: str) -> None:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")

    def corefile(self, cf: Corefile) -> str:
        for item in cf.items:
            if isinstance(item, ServerBlock):
                item.keys = [self.key(k) for k in item.keys]
                body = [d for d in self.directives(item.directives) if d.name != "bind"]
                item.directives = [Directive("bind", [LOOPBACK], item.line, file=item.file), *body]
            elif isinstance(item, Snippet):
                item.directives = self.directives(item.directives)
            elif isinstance(item, Directive):
                self.directive(item)
        return cf.render()

    def key(self, text: str) -> str:
        key = ServerKey.parse(text)
        original = key.port or "53"
        if original not in self.box.ports:
            self.box.ports[original] = free_port()
        return key.with_port(self.box.ports[original])

    def directives(self, ds: list[Directive]) -> list[Directive]:
        return [self.directive(d) for d in ds]

    def directive(self, d: Directive) -> Directive:
        if d.name in ("forward", "grpc") and d.args:
            d.args = [d.args[0], *(self.upstream(t) for t in d.args[1:])]
        elif d.name in LISTENERS:
            if d.name != "pprof" or not d.args or not d.args[0].isdigit():
                original = d.args[0] if d.args else ""
                if d.name == "pprof" or movable_listener(original):
                    d.args = [self.listener(d.name, original), *d.args[1:]]
        elif d.name == "kubernetes":
            self.kubernetes(d)
        elif d.name == "import" and d.args:
            d.args = [str(self.path(d.args[0])) if d.args[0].startswith("/") else d.args[0], *d.args[1:]]
        elif d.name == "hosts":
            target = self.path(d.args[0] if d.args else "/etc/hosts")
            d.args = [str(target), *d.args[1:]]
            if not target.exists():
                self.save(target, "")
        elif d.name == "file" and d.args:
            d.args = [str(self.path(d.args[0])), *d.args[1:]]
        return d

    def listener(self, plugin: str, original: str) -> str:
        if (plugin, original) not in self.listeners:
            self.listeners[(plugin, original)] = f"{LOOPBACK}:{free_port()}"
        return self.listeners[(plugin, original)]

    def upstream(self, token: str) -> str:
        """The same shape on loopback: scheme and port kept, a host name kept, a path made local."""
        scheme, rest = ("", token)
        if "://" in token:
            scheme, rest = token.split("://", 1)
            scheme += "://"
        if rest.startswith("["):
            close = rest.find("]")
            host, tail = (rest[1:close], rest[close + 1:]) if close != -1 else (rest, "")
            return f"{scheme}[::1]{tail}" if _is_ip(host) else token
        host, sep, port = rest.partition(":") if rest.count(":") == 1 else (rest, "", "")
        if _is_ip(host):
            return f"{scheme}{'::1' if ':' in host else LOOPBACK}{sep}{port}"
        if "/" in rest and not scheme:  # a resolv.conf-style file: CoreDNS reads it at start-up
            target = self.path(rest)
            self.save(target, f"{comment('coredns-gen lint --load: stands for ' + rest)}\nnameserver {LOOPBACK}\n")
            return str(target)
        return token  # a host name: CoreDNS refuses it as the cluster's would

    def kubernetes(self, d: Directive) -> None:
        block = [o for o in d.block or [] if not (o.name == "tls" and len(o.args) == 3)]
        kept: list[Directive] = []
        pointed = False
        for o in block:
            if o.name == "endpoint" and o.args:
                o.args = [self.api.url]
                pointed = True
            elif o.name == "kubeconfig" and o.args:
                self.box.kubeconfigs += 1
                target = self.box.root / f"kubeconfig-{self.box.kubeconfigs}"
                context = o.args[1] if len(o.args) > 1 else "coredns-gen"
                self.save(target, self.api.kubeconfig(context))
                o.args = [str(target), *o.args[1:]]
                pointed = True
            kept.append(o)
        if not pointed:
            kept.append(Directive("endpoint", [self.api.url], d.line, file=d.file))
        d.block = kept


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
        return True
    except ValueError:
        return False
