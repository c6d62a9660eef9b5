"""Property: `import` is the inverse of `render`. Whatever values render, importing what they
rendered gives values that render the same configuration (the proof finds no difference), on
every platform, for random zones, upstreams (their policy, no fallback, a stock option left
out), fallbacks, policies, caches, cluster domains, override lines, default blocks (cache, omit,
lines) and extra server blocks (tests/test_properties.py's adversarial lines among them). Derandomized and
bounded, so CI is fast and repeatable.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gen.adopt import import_dns
from gen.errors import ValuesError
from gen.render.cluster import render_overlay
from gen.render.values import values_from_data
from tests.test_properties import LINE

RELEASES = {"talos": ("v1.13.9", None), "k3s": ("v1.34.9+k3s1", None), "aks": ("1.34", None), "rke2": ("v1.34.10+rke2r1", None),
            "eks": ("v1.11.1-eksbuild.8", "1.11.4"), "kubeadm": ("v1.35.0", None), "gardener": ("1.34", "1.14.7")}
OVERRIDES = {"k3s", "aks", "gardener"}
IP = st.builds(lambda a, b: f"10.{a}.0.{b}", st.integers(0, 3), st.integers(1, 4))
ADDRESSES = st.lists(st.one_of(IP, st.builds(lambda ip, port: f"{ip}:{port}", IP, st.sampled_from([53, 5353]))),
                     min_size=1, max_size=3, unique=True)
RCODES = st.lists(st.sampled_from(["SERVFAIL", "REFUSED", "NXDOMAIN"]), min_size=1, max_size=2, unique=True)
ZONE = st.fixed_dictionaries(
    {"zone": st.sampled_from(["corp.example", "lab.example.net", "a.b.c.example", "Upper.Example"]), "upstreams": ADDRESSES},
    optional={"fallback": ADDRESSES, "fallbackOn": RCODES, "policy": st.sampled_from(["sequential", "round_robin", "random"]),
              "cache": st.sampled_from([0, 5, 30, 3600])})
UPSTREAM = st.fixed_dictionaries({"resolvers": ADDRESSES}, optional={
    "fallback": st.one_of(ADDRESSES, st.just([])), "fallbackOn": RCODES,
    "policy": st.sampled_from(["sequential", "round_robin", "random"]),
    "forward": st.fixed_dictionaries({}, optional={"maxConcurrent": st.sampled_from([None, 50]), "maxFails": st.just(3)})})
STOCK_EDITED = {"talos", "kubeadm", "eks"}  # (gen/platforms/stock_edit.py)
CACHE = st.fixed_dictionaries({"ttl": st.sampled_from([5, 300])}, optional={
    "disable": st.fixed_dictionaries({}, optional={"success": st.sampled_from([[], ["cluster.local"]]), "denial": st.just([])}),
    "prefetch": st.fixed_dictionaries({"amount": st.just(10)}, optional={"duration": st.just("1m")}),
    "success": st.fixed_dictionaries({"capacity": st.just(9984)}, optional={"ttl": st.just(60)}),
    "serveStale": st.sampled_from([{}, {"duration": "1h", "refresh": "verify"}]), "servfail": st.just("5s"),
    "keepttl": st.just(True)})
DEFAULT_BLOCK = st.fixed_dictionaries({}, optional={
    "cache": CACHE, "omit": st.lists(st.sampled_from(["loadbalance", "loop", "prometheus", "errors"]), min_size=1, max_size=2, unique=True),
    "lines": st.sampled_from([["log"], ["forward lan 10.9.0.1"], ["hosts {", "  10.9.0.2 nas.lan", "  fallthrough", "}"],
                              ["kubernetes cluster.local in-addr.arpa ip6.arpa {", "  pods verified", "}"]])})
SERVER = st.fixed_dictionaries({"zones": st.sampled_from([["t.example"], ["u.example", "v.example"]]),
                                "lines": st.sampled_from([["whoami"], ["template IN A . {", '  answer "{{ .Name }} 60 IN A 10.9.0.3"', "}"]])})


@st.composite
def values(draw: st.DrawFn) -> dict[str, Any]:
    platform = draw(st.sampled_from(sorted(RELEASES)))
    release, coredns = RELEASES[platform]
    data: dict[str, Any] = {"cluster": "c", "platform": platform, "platformVersion": release}
    if coredns:
        data["corednsVersion"] = coredns
    if draw(st.booleans()):
        data["clusterDomain"] = draw(st.sampled_from(["cluster.local", "k8s.example.internal"]))
    if platform == "talos" or (platform != "aks" and draw(st.booleans())):
        data["upstream"] = draw(UPSTREAM)
    zones = draw(st.lists(ZONE, max_size=2, unique_by=lambda z: z["zone"].lower()))
    if zones:
        data["zones"] = zones
    if platform in STOCK_EDITED and draw(st.booleans()):
        data["defaultBlock"] = draw(DEFAULT_BLOCK)
    if platform in STOCK_EDITED and draw(st.booleans()):
        data["servers"] = [draw(SERVER)]
    if platform in OVERRIDES and draw(st.booleans()):
        data["overrides"] = [{"name": "custom", "lines": draw(st.lists(LINE, min_size=1, max_size=3))}]
    return data


@settings(max_examples=80, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(data=values())
def test_importing_what_any_values_render_gives_values_that_render_the_same(data: dict[str, Any]) -> None:
    try:
        rendered = render_overlay(values_from_data(data, "v.yaml"))
    except ValuesError:
        return  # refused: nothing rendered, nothing to import
    with tempfile.TemporaryDirectory() as tmp:
        for file in rendered:
            target = Path(tmp) / file.path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(file.text)
        result = import_dns([Path(tmp) / "overlays"], data["platform"], data["platformVersion"], "c", data.get("corednsVersion"))
    assert result.same, (data, [str(d) for d in result.differences], result.diff)
