"""Property: `import` is the inverse of `render`. Whatever values render, importing what they
rendered gives values that render the same configuration (the proof finds no difference), on
every platform, for random zones, upstreams, fallbacks, policies, caches, cluster domains and
override lines (tests/test_properties.py's adversarial lines among them). Derandomized and
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
UPSTREAM = st.fixed_dictionaries({"resolvers": ADDRESSES}, optional={"fallback": ADDRESSES, "fallbackOn": RCODES})


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
