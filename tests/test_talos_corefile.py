"""The Talos Corefile is Talos's own text, byte for byte, except the forward stanzas (README.md: why two stanzas).

Asserted by diff against the vendored upstream file for every known Talos minor release, so a
stray whitespace or re-ordered plugin anywhere else fails the test.
"""

from __future__ import annotations


import pytest

from gen.platforms import talos
from gen.spec import Flux, Upstream, Values, Zone
from gen.versions import Version

MINORS = list(talos.KNOWN)


def _values(minor: tuple[int, int], **extra: object) -> Values:
    return Values(source="v.yaml", cluster="c", platform="talos", platform_version=f"v{minor[0]}.{minor[1]}.0",
                  coredns_version="1.14.6", cluster_domain="cluster.local", flux=Flux(output="c.yaml"),
                  upstream=Upstream(resolvers=("10.96.0.53",)), **extra)  # type: ignore[arg-type]


def _changes(old: str, new: str) -> tuple[list[str], list[str]]:
    """The one hunk of a line diff: everything before and after it is byte-identical."""
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    start = 0
    while start < min(len(a), len(b)) and a[start] == b[start]:
        start += 1
    end = 0
    while end < min(len(a), len(b)) - start and a[-1 - end] == b[-1 - end]:
        end += 1
    return [line.rstrip("\n") for line in a[start:len(a) - end]], [line.rstrip("\n") for line in b[start:len(b) - end]]


@pytest.mark.parametrize("minor", MINORS, ids=[f"v{a}.{b}" for a, b in MINORS])
def test_only_the_forward_changes(minor: tuple[int, int]) -> None:
    stock = talos.stock_corefile(Version(*minor), "cluster.local")
    rendered = talos.corefile(_values(minor))
    removed, added = _changes(stock, rendered)
    if minor >= (1, 9):
        assert removed == ["    forward . /etc/resolv.conf {", "       max_concurrent 1000", "    }"]
        assert added == ["    forward . 10.96.0.53 /etc/resolv.conf {", "       policy sequential", "       max_concurrent 1000",
                         "       next SERVFAIL REFUSED", "    }", "    forward . /etc/resolv.conf"]
    else:  # v1.8's forward is one line with no options: the minimal diff inserts the first stanza before it
        assert removed == []
        assert added == ["    forward . 10.96.0.53 /etc/resolv.conf {", "       policy sequential",
                         "       next SERVFAIL REFUSED", "    }"]


def test_zones_are_appended_as_their_own_blocks_and_nothing_else_moves() -> None:
    minor = (1, 13)
    zone = Zone(zone="corp.example.com", upstreams=("10.20.0.10",), fallback=("10.20.0.11",))
    rendered = talos.corefile(_values(minor, zones=(zone,)))
    plain = talos.corefile(_values(minor))
    assert rendered.startswith(plain)
    assert rendered[len(plain):] == (
        "\ncorp.example.com:53 {\n    errors\n    cache 30\n    forward . 10.20.0.10 10.20.0.11 {\n       policy sequential\n"
        "       next SERVFAIL REFUSED\n    }\n    forward . 10.20.0.11\n}\n"
    )


def test_custom_cluster_domain_touches_only_domain_tokens() -> None:
    stock = talos.stock_corefile(Version(1, 13), "cluster.local")
    values = _values((1, 13))
    values = values._replace(cluster_domain="lab.internal")
    expected = talos.corefile(_values((1, 13))).replace(
        "    kubernetes cluster.local in-addr.arpa", "    kubernetes lab.internal in-addr.arpa").replace(
        "disable success cluster.local", "disable success lab.internal").replace("disable denial cluster.local", "disable denial lab.internal")
    assert talos.corefile(values) == expected
    assert stock.count("cluster.local") == 3
