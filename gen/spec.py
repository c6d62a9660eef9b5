"""The frozen, typed values of one cluster: what every command reads after `values` validated a file.

Kept apart from the loader so platforms, render and flux can be typed against them without
importing the loader (which needs the platform registry: that would be a cycle).
"""

from __future__ import annotations

from typing import Literal, NamedTuple


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


def unset_forward_options(options: dict[str, object]) -> tuple[str, ...]:
    """The CoreDNS options a `forward:` mapping sets to null: left out, the stock one of that name too."""
    return tuple(name for key, name in FORWARD_OPTIONS if key in options and options[key] is None)


Policy = Literal["sequential", "round_robin", "random"]


class Upstream(NamedTuple):
    resolvers: tuple[str, ...]
    fallback: tuple[str, ...] = (RESOLV_CONF,)
    fallback_on: tuple[str, ...] = ("SERVFAIL", "REFUSED")
    resolv_conf: bool = False  # /etc/resolv.conf is the primary, before `resolvers`
    options: tuple[str, ...] = ()  # forward options of the first stanza (forward_option_lines)
    policy: Policy = "sequential"
    unset: tuple[str, ...] = ()  # forward options left out, the stock forward's of that name too (unset_forward_options)

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


def _bucket(name: str, bucket: dict[str, object]) -> str:
    return " ".join([name, *(str(bucket[k]) for k in ("capacity", "ttl", "minTtl") if k in bucket)])


def cache_lines(cache: dict[str, object]) -> tuple[str, ...]:
    """A `defaultBlock.cache` mapping (schema-checked) as the cache directive's lines: `cache TTL`,
    then its options in the order of CoreDNS's cache README, each nested one step."""
    options: list[str] = []
    for key in ("success", "denial"):
        bucket = cache.get(key)
        if isinstance(bucket, dict):
            options.append(_bucket(key, bucket))
    prefetch = cache.get("prefetch")
    if isinstance(prefetch, dict):
        percentage = [f"{prefetch['percentage']}%"] if "percentage" in prefetch else []
        options.append(" ".join(["prefetch", str(prefetch["amount"]), *([str(prefetch["duration"])] if "duration" in prefetch else []),
                                 *percentage]))
    stale = cache.get("serveStale")
    if isinstance(stale, dict):
        options.append(" ".join(["serve_stale", *(str(stale[k]) for k in ("duration", "refresh") if k in stale)]))
    if "servfail" in cache:
        options.append(f"servfail {cache['servfail']}")
    disable = cache.get("disable")
    if isinstance(disable, dict):
        for key in ("success", "denial"):
            zones = disable.get(key)
            if isinstance(zones, list):
                options.append(" ".join(["disable", key, *(str(z) for z in zones)]))
    if cache.get("keepttl") is True:
        options.append("keepttl")
    head = f"cache {cache['ttl']}"
    if not options:
        return (head,)
    return (head + " {", *(f"  {o}" for o in options), "}")


class DefaultBlock(NamedTuple):
    """What values change in the platform's stock default server block, beyond its root forward
    (gen/platforms/stock_edit.py applies it; docs/values.md)."""

    cache: tuple[str, ...] = ()  # the cache directive's lines (cache_lines); () keeps the stock one
    omit: tuple[str, ...] = ()  # stock plugins left out, by name
    lines: tuple[str, ...] = ()  # plugin lines: each replaces the stock plugin of its name, or is added

    @property
    def replaced(self) -> frozenset[str]:
        """The stock plugins that do not stay as the platform writes them (forward: never, the
        root forward is upstream's)."""
        return frozenset((set(plugin_names(self.lines)) - {"forward"}) | set(self.omit) | ({"cache"} if self.cache else set()))


def plugin_names(lines: tuple[str, ...]) -> tuple[str, ...]:
    """The plugin each top-level directive of `lines` names, in order (braces counted as the
    values checks made them balance: gen/injection.py; a `#` starts a comment)."""
    names: list[str] = []
    depth = 0
    for line in lines:
        words = line.split("#", 1)[0].split()
        if depth == 0 and words and words[0] not in ("{", "}"):
            names.append(words[0])
        depth += sum(w.count("{") - w.count("}") for w in words if not w.startswith(('"', "'")))
    return tuple(names)


class Server(NamedTuple):
    """An extra server block written as given (values `servers[]`)."""

    zones: tuple[str, ...]
    lines: tuple[str, ...]


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
    default_block: DefaultBlock | None = None
    servers: tuple[Server, ...] = ()
    # Warnings for stderr: what was assumed for a release newer than the tables (gen/platforms/newer.py).
    notices: tuple[str, ...] = ()

    overlay: str = ""  # the overlay folder, repo-relative POSIX; "" in hand-built values: the default

    @property
    def overlay_dir(self) -> str:
        return self.overlay or default_overlay(self.platform, self.cluster)


def default_overlay(platform: str, cluster: str) -> str:
    return f"overlays/{platform}/{cluster}"
