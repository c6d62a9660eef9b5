"""What an import finds and reports: the objects it read and each difference, named."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gen.adopt.needs import Need


@dataclass(frozen=True)
class Difference:
    """One thing the imported values would not render as the input has it.

    `lines` are the Corefile lines (as gen.corefile renders them, stripped) this difference
    accounts for, so the proof's line diff does not name them a second time; `adds` the render's
    server blocks it accounts for the same way."""

    where: str  # "Corefile server block internal.example.com:53", "coredns-custom key log.override"
    what: str  # the input's text or key, quoted
    why: str  # "needs zones[].lines, not in this version", "no values key says it"
    need: Need | None = None
    lines: tuple[str, ...] = ()
    adds: tuple[str, ...] = ()  # server blocks of the render (canonical heads) it accounts for

    def __str__(self) -> str:
        return f"{self.where}: {self.what}: {self.why}"


@dataclass
class Held:
    """The cluster DNS objects read from the input files, as plain data."""

    files: list[str] = field(default_factory=list)
    objects: list[dict[str, Any]] = field(default_factory=list)  # coredns, coredns-custom, rke2-coredns, Addon coredns
    origins: dict[int, str] = field(default_factory=dict)  # id(object) -> "file:line"
    others: list[dict[str, Any]] = field(default_factory=list)  # other cluster DNS objects (an HPA, a Deployment)
    flux: list[dict[str, Any]] = field(default_factory=list)  # Flux Kustomizations (one of them may apply the others)
    documents: dict[str, int] = field(default_factory=dict)  # file -> how many objects it holds
    unsupported: list[Difference] = field(default_factory=list)  # DNS objects coredns-gen cannot say
    skipped: list[str] = field(default_factory=list)  # objects read and left alone (not configuration)
