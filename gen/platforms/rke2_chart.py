"""The Corefile RKE2's `rke2-coredns` chart renders from its values: our port of its template.

RKE2 loads what `templates/configmap.yaml` of rancher/rke2-charts makes of `servers`,
`extraConfig` and `global.clusterDomain` (RKE2 sets the last from its `cluster-domain`), so
`lint` and `verify` must judge exactly that text, not the values we meant. This module does what
that template does, value by value, including its quirks: two spaces after each plugin name that
has parameters, the cluster domain put in front of the `kubernetes` parameters (which is why
charts up to 1.45.201 render `cluster.local` twice), config blocks indented by twelve then read
back through the ConfigMap's `|-` block. The template is the same in every chart version we
vendor (tests/data/upstream/rke2-coredns/ holds the real chart's `helm template` output, and
tests compare this port with it byte for byte).
"""

from __future__ import annotations

from typing import Any, Mapping

from gen import yamlio


def _truthy(value: Any) -> bool:
    """Go template truth: empty string, zero, nil, empty map/list are false."""
    return bool(value) if not isinstance(value, float) else value != 0.0


def _text(value: Any) -> str:
    """How Go's template prints a values scalar (Helm reads numbers as float64: 30.0 prints 30)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _indent(text: str, spaces: int) -> str:
    """sprig's `indent`: the pad before the text and after every line break (blank lines too)."""
    pad = " " * spaces
    return pad + text.replace("\n", "\n" + pad)


def _zones(server: Mapping[str, Any]) -> str:
    zones = server.get("zones") or []
    if not zones:
        return "."
    return " ".join(_text(z.get("scheme") or "") + _text(z.get("zone") or ".") for z in zones)


def _plugin(plugin: Mapping[str, Any], cluster_domain: str) -> str:
    line = "        " + _text(plugin.get("name"))
    if _truthy(plugin.get("parameters")):
        line += " "
        if plugin.get("name") == "kubernetes":
            line += " " + cluster_domain + " "
        line += " " + _text(plugin["parameters"])
    if _truthy(plugin.get("configBlock")):
        line += " {\n" + _indent(_text(plugin["configBlock"]), 12) + "\n        }"
    return line


def _shape(values: Mapping[str, Any]) -> None:
    """The fields the template reads as mappings are mappings, as Helm needs them ("can't
    evaluate field zones in type interface {}" otherwise): a ValueError naming the first that is not."""
    def mapping(value: Any, where: str) -> Mapping[str, Any]:
        if not isinstance(value, Mapping):
            raise ValueError(f"{where} is a {type(value).__name__}, where the rke2-coredns chart's template reads a mapping")
        return value

    def sequence(value: Any, where: str) -> list[Any]:
        if value is None or value == "":
            return []
        if not isinstance(value, list):
            raise ValueError(f"{where} is a {type(value).__name__}, where the rke2-coredns chart's template reads a list")
        return value

    if values.get("global") is not None:
        mapping(values["global"], "global")
    for name, conf in mapping(values.get("extraConfig") or {}, "extraConfig").items():
        if conf is not None:
            mapping(conf, f"extraConfig.{name}")
    for i, server in enumerate(sequence(values.get("servers"), "servers")):
        server = mapping(server, f"servers[{i}]")
        for j, zone in enumerate(sequence(server.get("zones"), f"servers[{i}].zones")):
            mapping(zone, f"servers[{i}].zones[{j}]")
        for j, plugin in enumerate(sequence(server.get("plugins"), f"servers[{i}].plugins")):
            mapping(plugin, f"servers[{i}].plugins[{j}]")


def template_text(values: Mapping[str, Any]) -> str:
    """The block-scalar body the template writes under `Corefile: |-` (4-space indented lines).

    Raises:
        ValueError: a field the template reads as a mapping or a list is not one.
    """
    _shape(values)
    cluster_domain = _text(((values.get("global") or {}).get("clusterDomain")) or "cluster.local")
    out = ""
    for name, conf in sorted((values.get("extraConfig") or {}).items()):
        out += "\n    " + name + ((" " + _text(conf["parameters"])) if _truthy((conf or {}).get("parameters")) else "")
    out += "\n    "
    for server in values.get("servers") or []:
        out += _zones(server)
        if _truthy(server.get("port")):
            out += ":" + _text(server["port"]) + " "
        out += "{"
        for plugin in server.get("plugins") or []:
            out += "\n" + _plugin(plugin, cluster_domain)
        out += "\n    }\n    "
    return out


def corefile(values: Mapping[str, Any]) -> str:
    """The Corefile CoreDNS reads: the template's text read back by a YAML parser, as the API
    server reads the chart's ConfigMap (a `|-` block: indentation from its first line, trailing
    blank lines dropped). A server or plugin that would break the block is refused, not guessed."""
    document = yamlio.load_all_safe("data:\n  Corefile: |-" + template_text(values) + "\n")
    try:
        text = document[0]["data"]["Corefile"]
    except (IndexError, KeyError, TypeError):
        raise ValueError("these chart values do not render a Corefile block") from None
    if not isinstance(text, str):
        raise ValueError("these chart values do not render a Corefile block")
    return text


def merged(defaults: Mapping[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """Helm's merge of a values file over the chart's: maps merge key by key, anything else
    (lists included: a `servers` list replaces the chart's whole default server) is replaced,
    and a null deletes the chart's key."""
    out = dict(defaults)
    for key, value in overrides.items():
        if value is None:
            out.pop(key, None)
        elif isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = merged(out[key], value)
        else:
            out[key] = value
    return out
