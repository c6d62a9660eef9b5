"""The `coredns-custom` ConfigMap shared by k3s and AKS: `<zone>.server` and `<name>.override` keys.

Both platforms mount every key under /etc/coredns/custom and import `*.server` at the top level
and `*.override` inside the default `.:53` block; any other suffix is mounted but never loaded.
"""

from __future__ import annotations

import functools

from gen.corefile import CorefileError, is_root_forward, parse_directives
from gen.corefile.facts import UPSTREAM_KEY, UPSTREAM_NAME
from gen.errors import Problem
from gen.platforms.base import At
from gen.rendered import Obj
from gen.spec import Values
from gen.templating import render_macro

MAX_KEY = 253  # Kubernetes' limit on a ConfigMap key (validation.IsConfigMapKey)


def root_forward_overrides(values: Values) -> list[tuple[int, int]]:
    """(override index, line index) of every root forward in the overrides, as the Corefile parser
    reads them: `forward .:53`, `forward dns://.` and `forward tls://.` are root forwards too (an
    override that does not parse is refused at its line by gen.render.injection)."""
    return [(i, j) for i, o in enumerate(values.overrides) for j in _root_forward_lines(o.lines)]


@functools.lru_cache(maxsize=1024)  # a fleet repeats the same few overrides
def _root_forward_lines(lines: tuple[str, ...]) -> tuple[int, ...]:
    try:
        directives = parse_directives("\n".join(lines) + "\n", filename="override")
    except CorefileError:
        return ()
    return tuple(d.line - 1 for d in directives if is_root_forward(d))


def check_override_names(values: Values, at: At, reserved: set[str]) -> list[Problem]:
    problems = []
    seen: set[str] = set()
    for i, o in enumerate(values.overrides):
        if o.name in seen:
            problems.append(at(["overrides", i, "name"], f"override {o.name} is listed twice", "merge the two entries"))
        if o.name in reserved:
            problems.append(at(["overrides", i, "name"], f"override name {o.name} is generated from other values",
                               "pick another name"))
        elif UPSTREAM_NAME in reserved and f"{o.name}.override".encode() > UPSTREAM_KEY.encode():
            problems.append(at(["overrides", i, "name"], f"override {o.name} would be imported after {UPSTREAM_KEY}, whose root "
                               "forward answers every name first: a forward in it would never be reached",
                               f"pick a name that sorts before {UPSTREAM_NAME} (CoreDNS imports overrides in name order)"))
        seen.add(o.name)
    for i, zone in enumerate(values.zones):
        if len(zone.zone) + len(".server") > MAX_KEY:
            problems.append(at(["zones", i, "zone"], f"the coredns-custom key {zone.zone[:40]}….server would be "
                               f"{len(zone.zone) + 7} characters; Kubernetes allows at most {MAX_KEY} in a ConfigMap key",
                               f"use a zone of at most {MAX_KEY - 7} characters"))
    return problems


def upstream_override(values: Values) -> dict[str, str]:
    """`upstream:` as the override key that lands before the platform's own forward (k3s, Gardener)
    and after every other override (UPSTREAM_KEY)."""
    if values.upstream is None:
        return {}
    return {UPSTREAM_KEY: render_macro("common/upstream.override.j2", "upstream_override", upstream=values.upstream)}


def custom_data(values: Values, extra_overrides: dict[str, str] | None = None, port: int = 53) -> dict[str, str]:
    """Keys sorted, so the ConfigMap is byte-stable whatever order the values list them in."""
    data: dict[str, str] = {}
    for zone in values.zones:
        data[f"{zone.zone}.server"] = render_macro("common/zone.server.j2", "zone_server", zone=zone, indent="    ", step="    ", port=port)
    for override in values.overrides:
        data[f"{override.name}.override"] = render_macro("common/override.j2", "override_lines", override=override)
    data.update(extra_overrides or {})
    return dict(sorted(data.items()))


def configmap(values: Values, annotations: dict[str, str], extra_overrides: dict[str, str] | None = None, port: int = 53) -> Obj:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "coredns-custom", "namespace": "kube-system", "annotations": dict(sorted(annotations.items()))},
        "data": custom_data(values, extra_overrides, port),
    }
