"""Values that say what real Corefiles hold beyond the forward pair: `upstream.policy`,
`upstream.fallback: []`, `upstream.forward.maxConcurrent: null`, `defaultBlock` (cache, omit,
lines) and `servers[]` (docs/values.md).

Each key is rendered, imported back from the render (the same values), and the real Corefiles
that needed them (tests/data/import/SOURCES.md) import with no difference, render the same
Corefile, and load in a real CoreDNS.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml

from gen.adopt import import_dns
from gen.corefile import parse_corefile
from gen.adopt.prove import canonical
from gen.corefile.loadcheck import adapt_for_loopback, try_load, write_resolv_conf
from gen.errors import ValuesError
from gen.render.cluster import render_overlay
from gen.render.values import load_values, values_from_data
from tests.conftest import REPO_ROOT

DATA = REPO_ROOT / "tests/data/import"
TALOS_STOCK = (REPO_ROOT / "gen/data/talos/talos-1.13.Corefile").read_text()


def _values(**keys: Any) -> dict[str, Any]:
    return {"cluster": "home", "platform": "talos", "platformVersion": "v1.13.9", **keys}


def _corefile(data: dict[str, Any]) -> str:
    """The Corefile the values render (the coredns ConfigMap's)."""
    values = values_from_data(data, "home.yaml")
    for f in render_overlay(values):
        for obj in f.objects:
            if obj.get("kind") == "ConfigMap" and obj["metadata"]["name"] == "coredns":
                return str(obj["data"]["Corefile"])
    raise AssertionError("no coredns ConfigMap rendered")


def _configmap(corefile: str, tmp_path: Path) -> Path:
    body = "".join(f"    {line}\n" if line else "\n" for line in corefile.splitlines())
    path = tmp_path / "configmap.yaml"
    path.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: coredns\n  namespace: kube-system\n"
                    f"data:\n  Corefile: |\n{body}")
    return path


def _loads(corefile: str, coredns: Path) -> bool:
    with tempfile.TemporaryDirectory() as tmp:
        resolv = write_resolv_conf(Path(tmp))
        adapted = adapt_for_loopback(parse_corefile(corefile, filename="Corefile"), resolv).render()
        return try_load(adapted, coredns, timeout=20).started


CACHE_ALL = {"ttl": 300, "success": {"capacity": 9984, "ttl": 3600, "minTtl": 5}, "denial": {"capacity": 9984, "ttl": 600},
             "prefetch": {"amount": 10, "duration": "1m", "percentage": 20}, "serveStale": {"duration": "1h", "refresh": "verify"},
             "servfail": "5s", "disable": {"success": ["cluster.local"], "denial": []}, "keepttl": True}

# (id, values keys, what the rendered Corefile must hold, what it must not)
KEYS = [
    ("upstream.policy", {"upstream": {"resolvers": ["192.0.2.1", "192.0.2.2"], "policy": "round_robin"}},
     ["forward . 192.0.2.1 192.0.2.2 /etc/resolv.conf {\n       policy round_robin\n"], ["policy sequential"]),
    ("upstream.fallback []", {"upstream": {"resolvers": ["192.0.2.1"], "fallback": []}},
     ["forward . 192.0.2.1 {\n       policy sequential\n       max_concurrent 1000\n    }\n"], ["next ", "/etc/resolv.conf"]),
    ("maxConcurrent null", {"upstream": {"resolvers": ["192.0.2.1"], "forward": {"maxConcurrent": None, "maxFails": 3}}},
     ["       policy sequential\n       max_fails 3\n       next SERVFAIL REFUSED\n"], ["max_concurrent"]),
    ("defaultBlock.cache", {"upstream": {"resolvers": ["192.0.2.1"]}, "defaultBlock": {"cache": CACHE_ALL}},
     ["    cache 300 {\n       success 9984 3600 5\n       denial 9984 600\n       prefetch 10 1m 20%\n"
      "       serve_stale 1h verify\n       servfail 5s\n       disable success cluster.local\n       disable denial\n"
      "       keepttl\n    }\n"], ["cache 30 "]),
    ("defaultBlock.omit", {"upstream": {"resolvers": ["192.0.2.1"]}, "defaultBlock": {"omit": ["log", "prometheus"]}},
     ["    ready\n"], ["log . {", "prometheus :9153"]),
    ("defaultBlock.lines", {"upstream": {"resolvers": ["192.0.2.1"]}, "defaultBlock": {"lines": [
        "kubernetes cluster.local in-addr.arpa ip6.arpa {", "  pods verified", "}", "forward lan 192.0.2.53", "hosts {",
        "  192.0.2.10 nas.lan", "  fallthrough", "}"]}},
     ["    kubernetes cluster.local in-addr.arpa ip6.arpa {\n      pods verified\n    }\n    forward lan 192.0.2.53\n"
      "    hosts {\n      192.0.2.10 nas.lan\n      fallthrough\n    }\n    forward . 192.0.2.1 /etc/resolv.conf {"],
     ["pods insecure", "ttl 30"]),
    ("servers", {"upstream": {"resolvers": ["192.0.2.1"]}, "servers": [{"zones": ["a.example", "b.example"], "lines": [
        "template IN A . {", "  answer \"{{ .Name }} 60 IN A 192.0.2.7\"", "}"]}]},
     ["\na.example:53 b.example:53 {\n    template IN A . {\n      answer \"{{ .Name }} 60 IN A 192.0.2.7\"\n    }\n}\n"], []),
]


@pytest.mark.parametrize("keys,holds,lacks", [k[1:] for k in KEYS], ids=[k[0] for k in KEYS])
def test_each_key_renders_and_imports_back_to_the_same_values(tmp_path: Path, keys: dict[str, Any], holds: list[str],
                                                              lacks: list[str]) -> None:
    corefile = _corefile(_values(**keys))  # (render's own structural check passed: it raises otherwise)
    for text in holds:
        assert text in corefile, corefile
    for text in lacks:
        assert text not in corefile, corefile
    result = import_dns([_configmap(corefile, tmp_path)], "talos", "v1.13.9", "home")
    assert result.same, [str(d) for d in result.differences] + [result.diff]
    assert result.values_text is not None
    again = _corefile(yaml.safe_load(result.values_text))
    assert canonical(again, "again") == canonical(corefile, "first")  # what CoreDNS reads: the same
    if not any(line.startswith("  ") for line in keys.get("defaultBlock", {}).get("lines", []) +
               [line for s in keys.get("servers", []) for line in s["lines"]]):
        assert again == corefile  # byte for byte (import writes nested lines at its own indent)
    second = import_dns([_configmap(again, tmp_path)], "talos", "v1.13.9", "home")
    assert second.values_text is not None and _corefile(yaml.safe_load(second.values_text)) == again  # a fixed point


# (file, release, the keys its values need)
REAL = [("jobdouma-k8s-home-server-2418769.yaml", "v1.11.5", {"defaultBlock", "upstream"}),
        ("goldentooth-gitops-0a5bd8b.yaml", "v1.11.5", {"defaultBlock", "upstream"}),
        ("stasky745-homeops-talos.yaml", "v1.13.4", {"servers", "upstream"})]


@pytest.mark.coredns
@pytest.mark.parametrize("name,release,keys", REAL, ids=[r[0].split("-")[0] for r in REAL])
def test_real_corefiles_import_with_no_difference_and_load_in_coredns(name: str, release: str, keys: set[str],
                                                                      coredns_bin: Path) -> None:
    """JobDouma/k8s-home-server (cache 300, no log/prometheus, kubernetes without ttl, `forward lan`
    in `.:53`, no fallback, no max_concurrent), goldentooth/gitops (`forward goldentooth.net` in
    `.:53`, two resolvers at random, no fallback) and Stasky745/homeops (template-only blocks, one
    serving three zones): said by values, rendered to what CoreDNS reads the same, and loaded."""
    source = yaml.safe_load((DATA / name).read_text())["data"]["Corefile"]
    result = import_dns([DATA / name], "talos", release, "home")
    assert result.same, [str(d) for d in result.differences] + [result.diff]
    assert result.values_text is not None
    data = yaml.safe_load(result.values_text)
    assert keys <= set(data)
    rendered = _corefile(data)
    assert canonical(rendered, "render") == canonical(source, "input")
    assert _loads(rendered, coredns_bin)


def test_jobdouma_values_say_the_cache_the_omitted_plugins_and_the_lan_forward() -> None:
    result = import_dns([DATA / "jobdouma-k8s-home-server-2418769.yaml"], "talos", "v1.11.5", "home")
    assert result.values_text is not None
    data = yaml.safe_load(result.values_text)
    assert data["upstream"] == {"resolvers": ["192.168.2.53", "1.1.1.1", "8.8.8.8"], "fallback": [],
                                "forward": {"maxFails": 3, "expire": "30s", "healthCheck": "5s", "maxConcurrent": None,
                                            "preferUdp": True}}
    assert data["defaultBlock"]["cache"] == {"ttl": 300}
    assert data["defaultBlock"]["omit"] == ["log", "prometheus"]
    assert data["defaultBlock"]["lines"][0] == "kubernetes cluster.local in-addr.arpa ip6.arpa {"
    assert "forward lan 192.168.2.53 {" in data["defaultBlock"]["lines"]


def test_goldentooth_values_say_the_random_policy() -> None:
    result = import_dns([DATA / "goldentooth-gitops-0a5bd8b.yaml"], "talos", "v1.11.5", "home")
    assert result.values_text is not None
    data = yaml.safe_load(result.values_text)
    assert data["upstream"] == {"resolvers": ["8.8.8.8", "1.1.1.1"], "fallback": [], "policy": "random"}
    assert data["defaultBlock"] == {"lines": ["forward goldentooth.net 192.168.1.1"]}


def test_a_missing_kubernetes_plugin_is_named_with_its_fix(tmp_path: Path) -> None:
    corefile = TALOS_STOCK.replace("    kubernetes cluster.local in-addr.arpa ip6.arpa {\n        pods insecure\n"
                                   "        fallthrough in-addr.arpa ip6.arpa\n        ttl 30\n    }\n", "")
    assert "kubernetes" not in corefile
    result = import_dns([_configmap(corefile, tmp_path)], "talos", "v1.13.9", "home")
    said = [str(d) for d in result.differences]
    assert any("no `kubernetes` plugin: coredns-gen keeps the stock `kubernetes` plugin" in s and "add your `kubernetes` lines" in s
               for s in said), said


def test_a_cache_the_typed_keys_cannot_say_is_kept_as_lines(tmp_path: Path) -> None:
    """`cache 30 cluster.local` (zones after the TTL) has no typed key: it replaces the stock cache as a line."""
    corefile = TALOS_STOCK.replace("    cache 30 {\n       disable success cluster.local\n       disable denial cluster.local\n    }\n",
                                   "    cache 30 example.org\n")
    result = import_dns([_configmap(corefile, tmp_path)], "talos", "v1.13.9", "home")
    assert result.same, [str(d) for d in result.differences] + [result.diff]
    assert result.values_text is not None
    assert yaml.safe_load(result.values_text)["defaultBlock"] == {"lines": ["cache 30 example.org"]}


BAD = [
    ({"defaultBlock": {"omit": ["forward"]}}, "home.yaml:9:5: defaultBlock.omit[0]: the root forward is not omitted"),
    ({"defaultBlock": {"omit": ["kubernetes"]}}, "home.yaml:9:5: defaultBlock.omit[0]: without the kubernetes plugin"),
    ({"defaultBlock": {"omit": ["ready"]}}, "home.yaml:9:5: defaultBlock.omit[0]: the coredns Deployment's readiness probe"),
    ({"defaultBlock": {"omit": ["hosts"]}}, "home.yaml:9:5: defaultBlock.omit[0]: talos's stock default block has no hosts plugin"),
    ({"defaultBlock": {"lines": ["forward . 192.0.2.9"]}}, "home.yaml:9:5: defaultBlock.lines[0]: a root `forward .` here"),
    ({"defaultBlock": {"cache": {"ttl": 60}, "lines": ["cache 30"]}}, "defaultBlock.lines: a cache directive here and defaultBlock.cache"),
    ({"servers": [{"zones": ["a.example"], "lines": ["whoami"]}], "zones": [{"zone": "a.example", "upstreams": ["192.0.2.3"]}]},
     "servers[0].zones[0]: zone a.example is served twice (also zones[0])"),
    ({"defaultBlock": {"lines": ["hosts {"]}}, "defaultBlock.lines"),
]


@pytest.mark.parametrize("keys,message", BAD, ids=[b[1].split(": ")[1] if ": " in b[1] else b[1] for b in BAD])
def test_what_the_keys_cannot_mean_is_refused_at_its_line(tmp_path: Path, keys: dict[str, Any], message: str) -> None:
    text = yaml.safe_dump(_values(upstream={"resolvers": ["192.0.2.1"]}, **keys), sort_keys=False)
    (tmp_path / "home.yaml").write_text(text)
    with pytest.raises(ValuesError) as err:
        load_values(tmp_path / "home.yaml", repo=tmp_path)
    assert message in str(err.value), str(err.value)


@pytest.mark.parametrize("platform,release,keys,message", [
    ("k3s", "v1.34.2+k3s1", {"defaultBlock": {"omit": ["log"]}}, "'defaultBlock' does not apply to k3s"),
    ("k3s", "v1.34.2+k3s1", {"servers": [{"zones": ["a.example"], "lines": ["whoami"]}]}, "'servers' does not apply to k3s"),
    ("k3s", "v1.34.2+k3s1", {"upstream": {"resolvers": ["192.0.2.1"], "fallback": []}}, "upstream.fallback: on k3s `upstream` is an override"),
])
def test_keys_of_an_owned_corefile_are_refused_where_the_platform_owns_it(tmp_path: Path, platform: str, release: str,
                                                                         keys: dict[str, Any], message: str) -> None:
    text = yaml.safe_dump({"cluster": "home", "platform": platform, "platformVersion": release, **keys}, sort_keys=False)
    (tmp_path / "home.yaml").write_text(text)
    with pytest.raises(ValuesError) as err:
        load_values(tmp_path / "home.yaml", repo=tmp_path)
    assert message in str(err.value), str(err.value)


PDB = """apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: coredns, namespace: kube-system}
spec:
  maxUnavailable: 1
  selector: {matchLabels: {k8s-app: kube-dns}}
"""


def test_a_pdb_beside_a_self_managed_coredns_on_talos_is_left_alone_not_a_difference(tmp_path: Path) -> None:
    """goldentooth/gitops runs its own CoreDNS (Talos's turned off) with a PodDisruptionBudget in
    the same folder. coredns-gen renders no PDB on Talos, so none moves: a note says to keep its
    file (it was a difference, and import exited 1)."""
    (tmp_path / "configmap.yaml").write_text((DATA / "goldentooth-gitops-0a5bd8b.yaml").read_text())
    (tmp_path / "pdb.yaml").write_text(PDB)
    result = import_dns([tmp_path], "talos", "v1.11.5", "goldentooth")
    assert result.same, [str(d) for d in result.differences] + [result.diff]
    assert any(n.startswith("PodDisruptionBudget kube-system/coredns: coredns-gen renders no PodDisruptionBudget on talos")
               and "keep its file" in n for n in result.notes), result.notes


@pytest.mark.parametrize("platform,release", [("k3s", "v1.34.2+k3s1"), ("rke2", "v1.34.10+rke2r1"), ("kubeadm", "v1.35.0")])
def test_upstream_policy_renders_and_imports_back_on_other_platforms(tmp_path: Path, platform: str, release: str) -> None:
    """k3s's upstream override and RKE2's chart entry wrote `policy sequential` whatever the values."""
    data = {"cluster": "home", "platform": platform, "platformVersion": release,
            "upstream": {"resolvers": ["192.0.2.1", "192.0.2.2"], "policy": "round_robin"}}
    objects = [o for f in render_overlay(values_from_data(data, "home.yaml")) for o in f.objects]
    assert "policy round_robin" in yaml.safe_dump_all(objects)
    (tmp_path / "render.yaml").write_text(yaml.safe_dump_all([o for o in objects if o.get("kind") != "Kustomization"]))
    result = import_dns([tmp_path / "render.yaml"], platform, release, "home")
    assert result.same, [str(d) for d in result.differences] + [result.diff]
    assert result.values_text is not None
    assert yaml.safe_load(result.values_text)["upstream"]["policy"] == "round_robin"
