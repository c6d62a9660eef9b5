"""Values fields an import needs beyond the first ones: one table, each with whether this version has it.

Every entry is available now (the values of docs/values.md) and gen/adopt/mapping.py writes
it; the proof judges the render with it like any other value. A field not yet available is
reported as a named difference ("needs zones[].lines, not in this version") wherever an input
says something through it (each use asks `available(...)` first), so a field another change
adds is one entry turned on here.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

Need = Literal["zones[].lines", "upstream.resolvConf", "${VAR}", "flux.source", "flux.prune", "flux.targetNamespace",
               "flux.commonMetadata", "flux.postBuild"]


class Field(NamedTuple):
    available: bool
    says: str  # what the field would say, for the message


FIELDS: dict[Need, Field] = {
    "zones[].lines": Field(True, "extra plugin lines in a zone's server block"),
    "upstream.resolvConf": Field(True, "keep the platform's own `forward . /etc/resolv.conf` as the primary resolver"),
    "${VAR}": Field(True, "a Flux postBuild substitution `${VAR}` in a zone name, upstream or line, with flux.postBuild"),
    "flux.source": Field(True, "an existing Flux source named by kind and name"),
    "flux.prune": Field(True, "the Flux Kustomization's `prune`"),
    "flux.targetNamespace": Field(True, "the Flux Kustomization's `targetNamespace`"),
    "flux.commonMetadata": Field(True, "the Flux Kustomization's `commonMetadata`"),
    "flux.postBuild": Field(True, "the Flux Kustomization's `postBuild`"),
}


def available(need: Need) -> bool:
    return FIELDS[need].available


def missing(need: Need) -> str:
    """The reason a difference gives when `need` is not in this version."""
    return f"needs {need}, not in this version ({FIELDS[need].says})"
