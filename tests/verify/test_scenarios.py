"""Scenario planning reads the Corefile's shape; no CoreDNS needed."""

from __future__ import annotations

import pytest

from gen.verify.sandbox import VerifyConfig
from gen.verify.scenarios import Expect, Scenario, find_chains, plan, query_ok

TWO_STANZAS = """\
.:53 {
    forward . 10.96.0.53 /etc/resolv.conf {
       policy sequential
       next SERVFAIL REFUSED
    }
    forward . /etc/resolv.conf
}
"""


def _ids(config: VerifyConfig) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for sc in plan(find_chains(config)):
        out.setdefault(sc.chain.zone, []).append(sc.id)
    return out


def _by_id(config: VerifyConfig, zone: str = ".") -> dict[str, Scenario]:
    return {sc.id: sc for sc in plan(find_chains(config)) if sc.chain.zone == zone}


def test_talos_two_stanzas() -> None:
    cfg = VerifyConfig(TWO_STANZAS)
    assert _ids(cfg) == {".": ["healthy", "primary-dead", "primary-silent", "primary-servfail", "primary-refused",
                               "control-no-second-stanza", "all-down", "all-silent"]}
    sc = _by_id(cfg)
    assert sc["healthy"].expect.answered_by == ("10.96.0.53",)
    assert sc["primary-dead"].expect.answered_by == ("/etc/resolv.conf",)
    assert sc["primary-servfail"].expect.answered_by == ("/etc/resolv.conf",)
    assert sc["control-no-second-stanza"].drop == frozenset({("Corefile", 6)})
    assert sc["control-no-second-stanza"].expect.rcode == "SERVFAIL"
    # scenarios that retire an upstream never share a process
    groups = [s.group for s in sc.values() if s.group != "shared"]
    assert len(groups) == len(set(groups)) == 5


def test_single_upstream_has_nothing_to_fail_over_to() -> None:
    assert _ids(VerifyConfig(".:53 {\n    forward . /etc/resolv.conf\n}\n")) == {".": ["healthy", "all-down", "all-silent"]}


def test_rcode_without_next_must_reach_the_client() -> None:
    sc = _by_id(VerifyConfig(".:53 {\n    forward . 10.0.0.1 10.0.0.2 {\n        policy sequential\n    }\n}\n"))
    assert sc["primary-servfail"].expect.rcode == "SERVFAIL" and "control-no-second-stanza" not in sc


def test_failover_retries_in_list() -> None:
    cfg = VerifyConfig(".:53 {\n    forward . 10.0.0.1 10.0.0.2 {\n        policy sequential\n"
                       "        failover SERVFAIL\n    }\n}\n")
    sc = _by_id(cfg)
    assert sc["primary-servfail"].expect.rcode == "NOERROR"
    assert sc["primary-servfail"].expect.answered_by == ("10.0.0.2",)
    assert sc["primary-refused"].expect.rcode == "REFUSED"


def test_next_without_a_following_forward_still_expects_the_fallback() -> None:
    """The declared intent stays the expectation, so CoreDNS ignoring `next` fails the run."""
    cfg = VerifyConfig(".:53 {\n    forward . 10.0.0.1 10.0.0.2 {\n        policy sequential\n"
                       "        next SERVFAIL\n    }\n}\n")
    assert _by_id(cfg)["primary-servfail"].expect.rcode == "NOERROR"


def test_k3s_override_and_server_keys_form_their_chains() -> None:
    main = ".:53 {\n    import /etc/coredns/custom/*.override\n    forward . /etc/resolv.conf\n}\n" \
           "import /etc/coredns/custom/*.server\n"
    custom = {"upstream.override": "forward . 192.168.10.53 /etc/resolv.conf {\n    policy sequential\n"
                                   "    next SERVFAIL REFUSED\n}\n",
              "lab.example.net.server": "lab.example.net:53 {\n    forward . 192.168.20.10 192.168.20.11\n}\n"}
    chains = find_chains(VerifyConfig(main, custom))
    assert [(c.zone, c.primary, len(c.stanzas)) for c in chains] == [
        (".", "192.168.10.53", 2), ("lab.example.net.", "192.168.20.10", 1)]
    control = _by_id(VerifyConfig(main, custom))["control-no-second-stanza"]
    assert control.drop == frozenset({("Corefile", 3)})


def test_sub_zone_forward_joins_the_root_chain() -> None:
    cfg = VerifyConfig(".:53 {\n    forward corp.example 10.0.0.9\n    forward . 10.0.0.1\n}\n")
    chains = {c.zone: c for c in find_chains(cfg)}
    assert chains["corp.example."].upstreams == ("10.0.0.9", "10.0.0.1")
    assert chains["."].upstreams == ("10.0.0.1",)


def test_query_ok() -> None:
    want = Expect("NOERROR", ("b",))
    assert query_ok(want, "NOERROR", "b", 1.0)
    assert not query_ok(want, "NOERROR", "a", 1.0)
    assert not query_ok(want, "SERVFAIL", None, 1.0)
    bounded = Expect("SERVFAIL", within_ms=5000)
    assert query_ok(bounded, "SERVFAIL", None, 4999) and not query_ok(bounded, "SERVFAIL", None, 5001)
    assert not query_ok(bounded, "TIMEOUT", None, 5000)


def test_same_zone_on_two_ports_are_two_chains() -> None:
    cfg = VerifyConfig(".:53 {\n    forward . 10.0.0.1\n}\n.:1053 {\n    forward . 10.0.0.2\n}\n")
    assert [(c.label, c.primary) for c in find_chains(cfg)] == [(".", "10.0.0.1"), (".:1053", "10.0.0.2")]


def test_declared_primary_must_answer_healthy_queries() -> None:
    """k3s ≤ 1.32.9 imports overrides after its own forward: the resolver override never runs."""
    main = ".:53 {\n    forward . /etc/resolv.conf\n    import /etc/coredns/custom/*.override\n}\n"
    custom = {"upstream.override": "forward . 192.168.10.53 /etc/resolv.conf {\n    policy sequential\n"
                                   "    next SERVFAIL\n}\n"}
    cfg = VerifyConfig(main, custom, primaries={".": "192.168.10.53"})
    healthy = plan(find_chains(cfg), cfg.primaries)[0]
    assert healthy.id == "healthy" and healthy.expect.answered_by == ("192.168.10.53",)
    assert plan(find_chains(cfg))[0].expect.answered_by == ("/etc/resolv.conf",)


def test_forward_outside_its_block_zone_is_not_a_chain() -> None:
    cfg = VerifyConfig("corp.example:53 {\n    forward other.example 10.0.0.9\n    forward . 10.0.0.1\n}\n")
    assert [c.zone for c in find_chains(cfg)] == ["corp.example."]


def test_probe_chain_gets_only_the_reached_scenario() -> None:
    """Another owner's domain forward is checked for being reached, not for our failover."""
    from gen.verify.scenarios import PROBE_UPSTREAM, PROBE_ZONE
    cfg = VerifyConfig(".:53 {\n    import custom/*.override\n    forward . /etc/resolv.conf\n}\n",
                       {"zzzz-coredns-gen-probe.override": f"forward {PROBE_ZONE} {PROBE_UPSTREAM}\n",
                        "zzzz-coredns-gen-upstream.override": "forward . 10.0.0.1 10.0.0.2\n"},
                       probes={PROBE_ZONE: PROBE_UPSTREAM})
    probe = [sc for sc in plan(find_chains(cfg), cfg.primaries, cfg.probes) if sc.chain.zone == PROBE_ZONE]
    assert [(sc.id, sc.expect.answered_by) for sc in probe] == [("other-override-reached", (PROBE_UPSTREAM,))]


@pytest.mark.parametrize(("platform", "probed"), [("k3s", True), ("gardener", True), ("aks", False), ("talos", False)])
def test_verify_adds_the_probe_where_our_root_forward_is_an_override(platform: str, probed: bool) -> None:
    from pathlib import Path
    from gen.corefile.facts import UPSTREAM_KEY
    from gen.render.values import load_values
    from gen.verify.run import config_for
    from gen.verify.scenarios import PROBE_KEY, PROBE_ZONE
    repo = Path(__file__).resolve().parents[2]
    cfg = config_for(load_values(repo / "examples" / f"{platform}.yaml", repo=repo))
    assert (PROBE_KEY in cfg.custom, PROBE_ZONE in cfg.probes) == (probed, probed)
    if probed:  # between every ordinary name and our root forward, in CoreDNS's (bytewise) order
        assert sorted(cfg.custom, key=str.encode).index(PROBE_KEY) == sorted(cfg.custom, key=str.encode).index(UPSTREAM_KEY) - 1


ZONE_FORWARD_IN_THE_DEFAULT_BLOCK = """\
.:53 {
    forward goldentooth.net 192.168.1.1
    forward . 8.8.8.8 1.1.1.1 {
       policy random
    }
}
"""


def test_a_zone_forward_before_the_root_one_never_hands_its_queries_on() -> None:
    """goldentooth/gitops: `forward goldentooth.net` then `forward . …` in one block. A forward that
    matched answers whatever its upstream does (no `next`), so a dead 192.168.1.1 is SERVFAIL, not
    an answer from 8.8.8.8: no primary-dead scenario for that zone (planned before, and failed)."""
    ids = _ids(VerifyConfig(ZONE_FORWARD_IN_THE_DEFAULT_BLOCK))
    assert ids["goldentooth.net."] == ["healthy", "all-down", "all-silent"]


def test_with_a_random_policy_every_upstream_gives_the_rcode_that_must_reach_the_client() -> None:
    """policy random may ask 1.1.1.1 first: SERVFAIL from 8.8.8.8 alone was answered NOERROR."""
    sc = _by_id(VerifyConfig(ZONE_FORWARD_IN_THE_DEFAULT_BLOCK))
    assert sc["primary-servfail"].expect.rcode == "SERVFAIL"
    assert {u for u, _ in sc["primary-servfail"].states} == {"8.8.8.8", "1.1.1.1"}
    assert sc["primary-dead"].expect.answered_by == ("1.1.1.1",)
