"""What every lint rule sees: the parsed Corefile units, the manifests, and the target versions.

A *unit* is one piece of Corefile text as CoreDNS would load it: a main Corefile (its imports
of coredns-custom keys expanded when that ConfigMap is among the inputs), a `*.server` key, or
an `*.override` key. An override on its own is wrapped in a *partial* block: the rest of the
default block lives in a Corefile we were not given, so rules that need what follows (is there
a forward after this `next`?) stay silent there rather than guess.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Literal, Protocol

from gen.corefile import Corefile, Directive, ServerBlock, Source, VirtualFS, expand_imports
from gen.finding import Finding, Severity
from gen.lint.inputs import CUSTOM_CONFIGMAP, ConfigMapDoc, Inputs
from gen.versions import Version



VersionSource = Literal["flag", "image", "platform", "default"]  # where the judged CoreDNS release came from


@dataclass
class LintUnit:
    kind: str  # "corefile" | "stock" (the platform's, standing in) | "server" | "override"
    source: Source
    raw: Corefile  # as written (imports kept)
    effective: Corefile  # snippets and resolvable imports spliced in
    configmap: ConfigMapDoc | None = None
    partial: bool = False  # an override outside its default block
    in_main: bool = False  # an override/server already spliced into a main Corefile we lint

    @property
    def label(self) -> str:
        if self.configmap is not None:
            return f"{self.configmap.name}/{self.source.label}"
        return self.source.filename


@dataclass
class LintContext:
    units: list[LintUnit]
    inputs: Inputs
    version: Version
    platform: str | None = None
    platform_version: Version | None = None  # --platform-version (--k3s-version)
    version_source: VersionSource = "default"  # said in messages
    plugins: frozenset[str] = frozenset()  # external plugins of a custom build (--plugin, lint.plugins)

    def blocks(self) -> Iterator[tuple[LintUnit, ServerBlock]]:
        """Every effective server block the generic rules judge (no unit is judged twice)."""
        for unit in self.units:
            if unit.in_main:
                continue
            for block in unit.effective.server_blocks:
                yield unit, block

    def raw_blocks(self) -> Iterator[tuple[LintUnit, ServerBlock]]:
        for unit in self.units:
            for block in unit.raw.server_blocks:
                yield unit, block

    def where(self) -> str:
        """Which CoreDNS a finding is judged for, and why that one (every VersionSource is said)."""
        said: dict[VersionSource, str] = {
            "flag": "", "image": " (from the Deployment image)", "default": " (newest known; pass --coredns-version)",
            "platform": f" ({self.platform} {self.platform_version}'s CoreDNS)"}
        return f"CoreDNS {self.version}" + said[self.version_source]


def at(rule: str, severity: Severity, node: Directive | ServerBlock, message: str, hint: str) -> Finding:
    """A finding anchored at a parsed node (its file/line/col are already mapped for the user)."""
    return Finding(rule=rule, severity=severity, file=node.file, line=node.line, message=message,
                   hint=hint, col=node.col)


class Rule(Protocol):
    """A lint rule module: ID, SEVERITY, a PASS/FAIL docstring, and check()."""

    ID: str
    SEVERITY: Severity
    REFUSES: bool  # True: an error finding means CoreDNS refuses the Corefile (proved with the binary)
    __doc__: str | None

    def check(self, ctx: LintContext) -> Iterator[Finding]: ...


def _imported(cf: Corefile, fs: VirtualFS) -> set[str]:
    """Paths of the virtual files a Corefile's imports (top level or in any block) would read."""
    stack: list[Directive] = [*cf.imports, *(d for b in cf.server_blocks for d in b.directives)]
    paths: set[str] = set()
    while stack:
        d = stack.pop()
        stack.extend(d.block or [])
        if d.name == "import" and d.args:
            paths.update(p for p, s in fs.files.items() if s in (fs(d.args[0]) or []))
    return paths


def build_units(inputs: Inputs, stock: Source | None = None) -> list[LintUnit]:
    """Parse every Corefile text in the inputs into units (raises CorefileError on bad syntax).

    A coredns-custom key that a main Corefile among the inputs imports is judged inside that
    Corefile (`in_main`), where its real neighbours are known; any other key is judged alone.
    With no main Corefile among the inputs, `stock` (the platform's own Corefile, from
    --platform) stands in for it: a unit of kind "stock", whose own lines are not reported.
    """
    custom = inputs.custom_sources()
    fs = VirtualFS(custom)
    units: list[LintUnit] = []
    imported: set[str] = set()
    mains: list[tuple[str, ConfigMapDoc | None, Source]] = [("corefile", cm, src) for cm, src in inputs.main_corefiles()]
    if not mains and stock is not None:
        mains = [("stock", None, stock)]
    for kind, cm, src in mains:
        raw = src.corefile()
        units.append(LintUnit(kind, src, raw, expand_imports(raw, fs), cm))
        imported |= _imported(raw, fs)
    cm = inputs.configmap(CUSTOM_CONFIGMAP)
    for path, src in custom.items():
        if path.endswith(".server"):
            raw = src.corefile()
            units.append(LintUnit("server", src, raw, expand_imports(raw), cm, in_main=path in imported))
        elif path.endswith(".override"):
            block = ServerBlock([".:53"], src.directives(), src.fixed_line or src.line_offset + 1, None, src.filename)
            raw = Corefile(src.filename, [block])
            units.append(LintUnit("override", src, raw, expand_imports(raw), cm, partial=True,
                                  in_main=path in imported))
    return units
