"""The frozen, typed values of one cluster: what every command reads after `values` validated a file.

Kept apart from the loader so platforms, render and flux can be typed against them without
importing the loader (which needs the platform registry: that would be a cycle).
"""

from __future__ import annotations

from typing import NamedTuple


# The resolver `coredns-gen new` writes until the user puts theirs: RFC 5737 TEST-NET-1, a
# documentation address nothing answers on, so a starter rendered as is cannot pass for a real
# configuration (render warns while it is there).
PLACEHOLDER_RESOLVER = "192.0.2.53"


RESOLV_CONF = "/etc/resolv.conf"  # the node's resolvers, as the stock Corefiles forward to them


# The forward plugin's options a values file may set (`forward:` of upstream and of a zone), in the
# order they are rendered: values key -> CoreDNS option (coredns plugin/forward README). A boolean
# is a bare option, written when true; the others take their value as the one argument.
FORWARD_OPTIONS: tuple[tuple[str, str], ...] = (
    ("maxFails", "max_fails"),
    ("expire", "expire"),
    ("healthCheck", "health_check"),
    ("maxConcurrent", "max_concurrent"),
    ("forceTcp", "force_tcp"),
    ("preferUdp", "prefer_udp"),
)


def forward_option_lines(options: dict[str, object]) -> tuple[str, ...]:
    """A `forward:` mapping (schema-checked) as the option lines of the forward stanza."""
    out: list[str] = []
    for key, name in FORWARD_OPTIONS:
        value = options.get(key)
        if value is True:
            out.append(name)
        elif value is not None and not isinstance(value, bool):
            out.append(f"{name} {value}")
    return tuple(out)


class Upstream(NamedTuple):
    resolvers: tuple[str, ...]
    fallback: tuple[str, ...] = (RESOLV_CONF,)
    fallback_on: tuple[str, ...] = ("SERVFAIL", "REFUSED")
    resolv_conf: bool = False  # /etc/resolv.conf is the primary, before `resolvers`
    options: tuple[str, ...] = ()  # forward options of the first stanza (forward_option_lines)

    @property
    def primary(self) -> tuple[str, ...]:
        """What the first forward stanza tries first: resolv.conf (when kept), then the resolvers."""
        return ((RESOLV_CONF,) if self.resolv_conf else ()) + self.resolvers


class Zone(NamedTuple):
    zone: str
    upstreams: tuple[str, ...]
    policy: str = "sequential"
    kind: str = "stub"
    fallback: tuple[str, ...] = ()
    fallback_on: tuple[str, ...] = ("SERVFAIL", "REFUSED")
    cache: int = 30
    lines: tuple[str, ...] = ()  # extra plugin lines of the server block, as written
    options: tuple[str, ...] = ()  # forward options of the first stanza (forward_option_lines)


class Override(NamedTuple):
    name: str
    lines: tuple[str, ...]


class Autoscaling(NamedTuple):
    min_replicas: int = 2
    max_replicas: int = 3
    cpu_utilization: int = 80
    scale_down_window_seconds: int = 600


class Alert(NamedTuple):
    enabled: bool = False
    for_: str = "5m"
    severity: str = "critical"
    labels: tuple[tuple[str, str], ...] = ()


class Nodelocal(NamedTuple):
    enabled: bool
    ipvs: bool = False


class Rke2(NamedTuple):
    """RKE2 chart values beyond `servers`; `autoscaler` holds only the keys the user wrote."""

    nodelocal: Nodelocal | None = None
    autoscaler: tuple[tuple[str, int | bool], ...] = ()


class Ack(NamedTuple):
    cluster_name: str
    namespace: str = "kube-system"
    resolve_conflicts: str = "OVERWRITE"


class Eks(NamedTuple):
    """`configuration_values`: the user's extra add-on configurationValues as canonical JSON text
    (an object, without `corefile`); the add-on's own schema judges it."""

    configuration_values: str = "{}"
    ack: Ack | None = None


class FluxSource(NamedTuple):
    """`url` None: an existing source, referenced by kind and name, never rendered."""

    kind: str
    name: str
    url: str | None
    interval: str = "5m"
    secret_ref: str | None = None
    ref: tuple[tuple[str, str], ...] = ()


class Flux(NamedTuple):
    output: str
    name: str = "coredns"
    namespace: str = "flux-system"
    path: str = ""
    interval: str = "10m"
    timeout: str = "5m"
    retry_interval: str = "2m"
    wait: bool = True
    depends_on: tuple[tuple[str, str | None], ...] = ()
    source: FluxSource | None = None
    prune: bool = True
    target_namespace: str | None = None
    common_labels: tuple[tuple[str, str], ...] = ()
    common_annotations: tuple[tuple[str, str], ...] = ()
    substitute: tuple[tuple[str, str], ...] | None = None  # postBuild.substitute; None: no postBuild at all
    substitute_from: tuple[tuple[str, str, bool | None], ...] = ()  # (kind, name, optional)

    @property
    def post_build(self) -> bool:
        """Whether Flux substitutes `${VAR}` in the overlay (only when spec.postBuild is set)."""
        return self.substitute is not None


class Values(NamedTuple):
    """One cluster's validated settings; the rest of the code never touches raw YAML."""

    source: str  # the values file, relative to the repo root (POSIX), as users name it
    cluster: str
    platform: str
    platform_version: str
    coredns_version: str
    cluster_domain: str
    flux: Flux
    upstream: Upstream | None = None
    zones: tuple[Zone, ...] = ()
    overrides: tuple[Override, ...] = ()
    autoscaling: Autoscaling = Autoscaling()
    alert: Alert = Alert()
    rke2: Rke2 = Rke2()
    eks: Eks = Eks()
    # Warnings for stderr: what was assumed for a release newer than the tables (gen/platforms/newer.py).
    notices: tuple[str, ...] = ()

    overlay: str = ""  # the overlay folder, repo-relative POSIX; "" in hand-built values: the default

    @property
    def overlay_dir(self) -> str:
        return self.overlay or default_overlay(self.platform, self.cluster)


def default_overlay(platform: str, cluster: str) -> str:
    return f"overlays/{platform}/{cluster}"
