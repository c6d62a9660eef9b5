"""CoreDNS release facts lint depends on, in one table: option or plugin -> first release.

Sources: the forward options, each checked in coredns/coredns plugin/forward/setup.go at every
v1.x tag. The stock plugin list is
coredns/coredns plugin.cfg at v1.13.1 (read from the v1.13.1 module source); the release that
added a plugin comes from that tree's notes/coredns-<version>.md ("new plugin …"). A plugin
whose first release we did not verify is listed with `None`: lint then accepts it in every
version rather than guess.
"""

from __future__ import annotations

from gen import versions
from gen.versions import NEXT_MIN, Version


def parse_version(text: str) -> Version | None:
    """`1.13.1`, `v1.13.1`, `v1.12.1-1` (AKS build suffix) -> Version; anything else -> None."""
    try:
        return versions.parse_version(text)
    except ValueError:
        return None


def image_version(image: str) -> Version | None:
    """The CoreDNS version in an image reference's tag (`…/coredns:v1.11.3`, `…:1.14.4@sha256:…`)."""
    ref = image.split("@", 1)[0]
    name = ref.rsplit("/", 1)[-1]
    if ":" not in name:
        return None
    return parse_version(name.split(":", 1)[1])


V = parse_version
NEWEST = Version(1, 14, 7)  # newest coredns/coredns tag read (gen/data/SOURCES.md); the default when nothing names a version
TESTED_BINARY = Version(1, 13, 1)  # the binary CI installs; real-binary tests prove rules at this version

FORWARD_PLUGIN = Version(1, 0, 6)
MULTIPLE_FORWARD = Version(1, 9, 4)  # before: "this plugin can only be used once per Server Block"
FAILOVER_NOERROR_REJECTED = Version(1, 13, 2)  # v1.13.1's check is unreachable: NOERROR is accepted
FAILOVER_LOOP_FIXED = Version(1, 14, 7)  # failover's counter reset loop, coredns PR #8277
# The release whose plugin/pkg/parse.HostPortOrFile coredns-gen-helper links (tools/helper/go.mod;
# a test holds the two equal); its refusals every release from 1.6.9 to 1.14.1 shares (host.go,
# read at every tag from v1.6.9 to v1.14.7). From HOSTPORT_TRIMS_BRACKETS on, HostPortOrFile
# strips `[]` off an address without a port before net.ParseIP.
HOSTPORT_LINKED = Version(1, 13, 1)
HOSTPORT_TRIMS_BRACKETS = Version(1, 14, 2)
# The same module gives the helper the setup functions of the plugins it runs on a directive's
# tokens (tools/helper/setup): their verdicts are that release's, not another's.
SETUP_LINKED = HOSTPORT_LINKED

# Plugins whose setup returns plugin.ErrOnce ("this plugin can only be used once per Server
# Block"): every plugin/*/setup.go of the coredns/coredns v1.13.1 module source that does
# (read, not copied; `metrics` is the directory of `prometheus`). Checked at v1.13.1 only.
ONCE_PER_BLOCK = frozenset({"cache", "dnssec", "errors", "grpc", "hosts", "kubernetes", "loop", "prometheus", "nsid",
                            "pprof", "ready", "tsig", "view"})

# The kubernetes plugin's block options: option -> (first release that parses it, first release
# that refuses it again, or None). Source: the `case` labels of ParseStanza in
# plugin/kubernetes/setup.go at every tag from v1.6.9 to v1.14.7 (Go module cache, read, not
# copied): `upstream` and `resyncperiod` go in 1.7.0, `transfer` in 1.8.0; `multicluster` comes in
# 1.12.2, `startup_timeout` 1.12.3, `apiserver_qps`/`_burst`/`_max_inflight` 1.14.0, `zonal` 1.14.7.
# Releases before 1.6.9 are not judged (KUBERNETES_TABLE_FROM).
KUBERNETES_TABLE_FROM = Version(1, 6, 9)
KUBERNETES_OPTIONS: dict[str, tuple[Version, Version | None]] = {
    **{name: (KUBERNETES_TABLE_FROM, None) for name in (
        "endpoint_pod_names", "pods", "namespaces", "endpoint", "tls", "labels", "namespace_labels",
        "fallthrough", "ttl", "noendpoints", "ignore", "kubeconfig")},
    "resyncperiod": (KUBERNETES_TABLE_FROM, Version(1, 7, 0)),
    "upstream": (KUBERNETES_TABLE_FROM, Version(1, 7, 0)),
    "transfer": (KUBERNETES_TABLE_FROM, Version(1, 8, 0)),
    "multicluster": (Version(1, 12, 2), None),
    "startup_timeout": (Version(1, 12, 3), None),
    "apiserver_qps": (Version(1, 14, 0), None),
    "apiserver_burst": (Version(1, 14, 0), None),
    "apiserver_max_inflight": (Version(1, 14, 0), None),
    "zonal": (Version(1, 14, 7), None),
}

# forward's block options: option -> first release that parses it (coredns/coredns plugin/forward/setup.go at each tag).
FORWARD_OPTIONS: dict[str, Version] = {
    "tls": FORWARD_PLUGIN,
    "tls_servername": FORWARD_PLUGIN,
    "expire": FORWARD_PLUGIN,
    "max_fails": FORWARD_PLUGIN,
    "health_check": FORWARD_PLUGIN,
    "force_tcp": FORWARD_PLUGIN,
    "except": FORWARD_PLUGIN,
    "policy": FORWARD_PLUGIN,
    "prefer_udp": Version(1, 2, 0),
    "max_concurrent": Version(1, 6, 8),
    "next": NEXT_MIN,
    "failfast_all_unhealthy_upstreams": Version(1, 12, 1),
    "failover": Version(1, 13, 0),
    "max_connect_attempts": Version(1, 13, 2),
    "max_idle_conns": Version(1, 14, 1),
    "next_on_nodata": Version(1, 14, 4),
    "resolver": Version(1, 14, 4),
    "read_timeout": Version(1, 14, 5),
    "doh_method": Version(1, 14, 5),
    "source_address": Version(1, 14, 6),
}
POLICY_VALUES: dict[str, Version] = {
    "random": FORWARD_PLUGIN,
    "round_robin": FORWARD_PLUGIN,
    "sequential": Version(1, 1, 2),
}

# Plugins of the stock build (plugin.cfg @ v1.13.1) -> first release, where notes/ says so.
PLUGINS: dict[str, Version | None] = {
    "root": None, "metadata": None, "geoip": V("1.8.5"), "cancel": None, "tls": None,
    "quic": None, "timeouts": V("1.10.1"), "multisocket": V("1.12.0"), "reload": None,
    "nsid": None, "bufsize": V("1.6.6"), "bind": None, "debug": None, "trace": None,
    "ready": None, "health": None, "pprof": None, "prometheus": None, "errors": None,
    "log": None, "dnstap": None, "local": V("1.8.1"), "dns64": V("1.7.0"), "acl": V("1.6.4"),
    "any": None, "chaos": None, "loadbalance": None, "tsig": V("1.9.4"), "cache": None,
    "rewrite": None, "header": V("1.8.5"), "dnssec": None, "autopath": None,
    "minimal": V("1.8.4"), "template": None, "transfer": V("1.6.5"), "hosts": None,
    "route53": None, "azure": V("1.6.2"), "clouddns": V("1.6.3"), "k8s_external": None,
    "kubernetes": None, "file": None, "auto": None, "secondary": None, "etcd": None,
    "loop": None, "forward": None, "grpc": None, "erratic": None, "whoami": None, "on": None,
    "sign": V("1.6.3"), "view": V("1.10.0"), "nomad": V("1.13.0"),
}
# Directives CoreDNS's parser handles itself (never plugins).
BUILTIN_DIRECTIVES = frozenset({"import"})
# Plugins that are gone, with what replaced them (notes/coredns-1.5.0.md, 1.7.0.md).
REMOVED_PLUGINS: dict[str, tuple[Version, str]] = {
    "proxy": (Version(1, 5, 0), "use `forward`"),
    "federation": (Version(1, 7, 0), "use the external federation plugin or drop it"),
}

def plugin_status(name: str, version: Version) -> tuple[str, str]:
    """('ok'|'unknown'|'too-new'|'removed', detail) for a directive name at a CoreDNS version."""
    if name in BUILTIN_DIRECTIVES:
        return "ok", ""
    if name in REMOVED_PLUGINS:
        gone, hint = REMOVED_PLUGINS[name]
        if version >= gone:
            return "removed", f"removed in {gone}; {hint}"
        return "ok", ""
    if name not in PLUGINS:
        return "unknown", ""
    first = PLUGINS[name]
    if first is not None and version < first:
        return "too-new", f"added in {first}"
    return "ok", ""
