"""`lint --load`: start the real CoreDNS on exactly what the cluster would load and map a refusal back.

What it loads: each main Corefile among the inputs (or, with `--platform`, the platform's stock
Corefile standing in) with the coredns-custom keys of the inputs as the files its imports read;
without a main Corefile, each Corefile, `*.server` key (whole server blocks) and `*.override`
key (wrapped in a `.:53 { … }` block) alone. It runs in the load sandbox (gen.lint.loadbox:
every plugin and option as written; listeners, upstream addresses, the kubernetes API and the
files plugins read replaced by loopback and sandbox stand-ins) through the one launcher
(gen.launcher), confined as verify is (gen/confine.py: new user, mount and network namespaces,
CoreDNS chrooted into the sandbox; refused with the fix where namespaces are not allowed). cli.py hands `load_check` to `lint` only for --load, so plain `lint` never
imports this module or the launcher.

CoreDNS names a parse error `FILE:LINE - Error during parsing: …`; the line is in the sandbox's
copy, so it is mapped to the same directive (same name, same count of that name before it) in
the user's file and its YAML line. A setup error (`plugin/NAME: …`) names no line: it is put on
the directive of that plugin a static rule also refuses, else on the second of a pair (once per
server block), else on its first use.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Any, Callable, NamedTuple

from gen.confine import child_main, run_confined, unconfined
from gen.corefile import Corefile, CorefileError, Directive, ServerBlock, Source, parse_corefile, parse_directives
from gen.finding import Finding, Severity
from gen.kubeapi import FakeKubeAPI
from gen.launcher import CoreDNS, LoadError, binary_version
from gen.lint.inputs import CUSTOM_CONFIGMAP, ConfigMapDoc, Inputs
from gen.lint.loadbox import BASE_DIR, build_loadbox, cloud_plugins

ID = "coredns-refused"
_PARSE = re.compile(r"(?P<file>\S+?):(?P<line>\d+) - Error during parsing: (?P<msg>.+)")
_SETUP = re.compile(r"plugin/(?P<plugin>[\w-]+): (?P<msg>.+)")
_ERROR = re.compile(r"^(?!maxprocs:)(?P<msg>\S.*)$", re.M)


class Load(NamedTuple):
    """One thing loaded: the main text and its custom keys, and where each came from."""

    main: Source
    custom: dict[str, Source]  # coredns-custom key -> its source
    files: dict[str, str] = {}  # absolute path in the pod -> text: the main ConfigMap's other keys


class Loaded(NamedTuple):
    release: str  # the CoreDNS release that ran (`coredns -version`)
    by: str  # "CoreDNS 1.13.1 (/path/to/coredns)": what lint's last line says loaded the inputs
    refusals: list[Finding]  # one error per load CoreDNS refuses


# (the inputs, the platform's stock Corefile standing in for a main one, the static findings)
LoadCheck = Callable[[Inputs, Source | None, list[Finding]], Loaded]


def load_check(binary: Path) -> LoadCheck:
    """What `lint` calls for --load: start `binary` on everything the cluster would load."""

    def check(inputs: Inputs, stock: Source | None, static: list[Finding]) -> Loaded:
        ran = binary_version(binary)
        return Loaded(ran, f"CoreDNS {ran} ({binary})", check_loads(loads(inputs, stock), binary, ran, static))

    return check


def loads(inputs: Inputs, stock: Source | None) -> list[Load]:
    cm = inputs.configmap(CUSTOM_CONFIGMAP)
    custom = dict(cm.data) if cm is not None else {}
    found = inputs.main_corefiles()
    if found:
        return [Load(m, custom, _mounted(cm)) for cm, m in found]
    if stock is not None:
        return [Load(stock, custom)]
    out = []
    for key, src in sorted(custom.items()):
        if key.endswith(".server"):
            out.append(Load(src, {}))
        elif key.endswith(".override"):
            out.append(Load(Source(".:53 {\n" + src.text + "\n}\n", src.filename, src.line_offset - 1, src.col_offset,
                                   src.fixed_line, src.label), {}))
    return out


def _mounted(cm: ConfigMapDoc | None) -> dict[str, str]:
    """The other keys of the ConfigMap holding a Corefile, where the pod mounts them (zone
    files that `file /etc/coredns/db.example.org` reads, hosts files)."""
    if cm is None:
        return {}
    return {f"{BASE_DIR}/{k}": s.text for k, s in cm.data.items() if k != "Corefile"}


def _directives(cf: Corefile) -> list[Directive]:
    out: list[Directive] = []

    def walk(ds: list[Directive]) -> None:
        for d in ds:
            out.append(d)
            walk(d.block or [])

    for item in cf.items:
        if isinstance(item, ServerBlock):
            walk(item.directives)
        elif isinstance(item, Directive):
            walk([item])
    return out


def _parsed(src: Source, override: bool) -> list[Directive]:
    try:
        if override:
            return parse_directives(src.text, filename=src.filename, line_offset=src.line_offset,
                                    col_offset=src.col_offset, fixed_line=src.fixed_line)
        return _directives(src.corefile())
    except CorefileError:
        return []


def _same_directive(sandbox_file: Path, line: int, original: list[Directive], override: bool) -> Directive | None:
    """The user's directive at the sandbox copy's `line`: same name, same count of that name before."""
    try:
        text = sandbox_file.read_text(encoding="utf-8")
        copy = parse_directives(text, filename="x") if override else _directives(parse_corefile(text, filename="x"))
    except (OSError, CorefileError):
        return None
    hit = next((d for d in copy if d.line == line), None)
    if hit is None:
        return None
    nth = sum(1 for d in copy[: copy.index(hit)] if d.name == hit.name)
    same = [d for d in original if d.name == hit.name]
    return same[nth] if nth < len(same) else None


def check_loads(items: list[Load], binary: Path, version: str, static: list[Finding]) -> list[Finding]:
    """One error finding per load CoreDNS refuses (none when it starts)."""
    out: list[Finding] = []
    for item in items:
        custom = {k: s.text for k, s in item.custom.items()}
        cloud = cloud_plugins(item.main.text, custom)
        if cloud:
            out.append(Finding(ID, Severity.WARNING, item.main.filename, item.main.fixed_line or item.main.line_offset + 1,
                               f"not loaded in CoreDNS {version}: {', '.join(cloud)} would call a cloud API while starting",
                               "lint --load loads configurations whose plugins start without leaving the machine"))
            continue
        request = {"main": item.main.text, "custom": custom, "files": dict(item.files), "name": item.main.filename,
                   "binary": str(binary)}
        with tempfile.TemporaryDirectory(prefix="coredns-gen-load-") as tmp:
            if unconfined():
                answer = serve_load(request, Path(tmp))
            else:
                answer = run_confined("gen.lint.load", request, binary, Path(tmp))
            if answer.get("refused"):  # read before the folder goes: the refusal names lines of its copy
                out.append(_place(item, str(answer["output"]), Path(answer["root"]), binary, version, static))
    return out


def serve_load(request: dict[str, Any], sandbox: Path) -> dict[str, Any]:
    """One load in the sandbox folder, CoreDNS beside a fake API server (in gen.confine's child
    unless the user asked otherwise): whether it refused, its output, and the copy's root."""
    root = sandbox / "load"
    with FakeKubeAPI() as api:
        try:
            box = build_loadbox(root, request["main"], request["custom"], api=api, files=request["files"],
                                name=request["name"])
        except CorefileError:
            return {"refused": False}  # the static pass reports where our reading of the grammar stops
        try:
            with CoreDNS(Path(request["binary"]), box.corefile, sorted(set(box.ports.values()))):
                return {"refused": False}
        except LoadError as err:
            return {"refused": True, "output": err.output, "root": str(root)}


def _reason(output: str) -> str:
    lines = [m["msg"].strip() for m in _ERROR.finditer(output)]
    errors = [line for line in lines if _PARSE.search(line) or _SETUP.search(line) or "rror" in line]
    return (errors or lines or ["exited before listening"])[-1]


def _place(item: Load, output: str, root: Path, binary: Path, version: str, static: list[Finding]) -> Finding:
    reason = _reason(output)
    file, line = item.main.filename, item.main.fixed_line or item.main.line_offset + 1
    parse, setup = _PARSE.search(reason), _SETUP.search(reason)
    target: Directive | None = None
    if parse:
        copy = Path(parse["file"])
        copy = copy if copy.is_absolute() else root / "etc/coredns" / copy
        key = copy.name if copy.parent.name == "custom" else None
        src = item.custom.get(key) if key else item.main
        override = bool(key and key.endswith(".override")) or False
        if src is not None:
            target = _same_directive(copy, int(parse["line"]), _parsed(src, override), override)
            file, line = src.filename, src.fixed_line or src.line_offset + 1
    elif setup:
        plugin = setup["plugin"]
        sources = [(item.main, False)] + [(s, k.endswith(".override")) for k, s in item.custom.items()]
        uses = [d for src, override in sources for d in _parsed(src, override) if d.name == plugin]
        flagged = {(f.file, f.line) for f in static if f.severity is Severity.ERROR}
        target = next((d for d in uses if (d.file, d.line) in flagged), None)
        if target is None and "once per Server Block" in reason and len(uses) > 1:
            target = uses[1]
        target = target or (uses[0] if uses else None)
    if target is not None:
        file, line = target.file, target.line
    if parse:
        reason = parse["msg"]  # the sandbox copy's path and line mean nothing to the user
    reason = reason.replace(str(root), "")  # a sandbox path is named as the pod's path
    return Finding(ID, Severity.ERROR, file, line, f"CoreDNS {version} ({binary}) refuses to load this: {reason}",
                   "fix what CoreDNS names; `coredns-gen lint` without --load explains most refusals")


if __name__ == "__main__":  # the confined child (gen/confine.py run_confined)
    child_main(serve_load)
