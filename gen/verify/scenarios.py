"""Which failures to stage, and what must happen, read off the Corefile's own shape.

A *chain* is what one query meets: the forward directives of one server block that match its
name, in the order CoreDNS chains them (imports expanded, so a k3s `*.override` forward and the
stock forward after it form one chain). The expectations state the config's declared intent:
an upstream listed after the primary, or a later stanza reached through `next`, must answer
when the primary fails; an RCODE named in neither `next` nor `failover` must reach the client.
Numbers behind the time bounds (CoreDNS 1.13.1, measured by `coredns-gen verify`): a silent
upstream costs the 2 s read timeout per query until health checks retire it (3 queries); with
every upstream silent the SERVFAIL comes after 6 s, because the 5 s deadline is checked before
each 2 s attempt, not during it.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from typing import Mapping

from gen.corefile import Directive, ServerKey, Source, VirtualFS, expand_imports, parse_corefile
from gen.verify.sandbox import VerifyConfig
from gen.verify.fake_upstreams import Behaviour

POD_TIMEOUT = 5.0  # a pod's resolv.conf default (`timeout:5`): the client every scenario plays
FORWARD_DEADLINE_MS = 5000.0  # forward's overall per-query deadline (defaultTimeout)
READ_TIMEOUT_MS = 2000.0  # forward's per-attempt read timeout (defaultReadTimeout)
ROOT_NAME = "coredns-gen-verify.test."
# A domain forward in an override coredns-gen does not own (`zz-corp.override` in docs/verify.md), named
# to sort after ordinary names and before our root forward's key (CoreDNS imports `*.override` in
# bytewise name order; the first forward whose zone matches answers). Its upstream is a fake.
PROBE_KEY = "zzzz-coredns-gen-probe.override"
PROBE_ZONE = "coredns-gen-probe.test."
PROBE_UPSTREAM = "192.0.2.53"


@dataclass(frozen=True)
class Stanza:
    """One `forward` directive: where it is written and what it declares."""

    file: str
    line: int
    upstreams: tuple[str, ...]
    policy: str
    next: tuple[str, ...]
    failover: tuple[str, ...]
    zone: str = "."  # the names it forwards (the block's zone for `forward .`)


@dataclass(frozen=True)
class Chain:
    zone: str  # the zone the test names live in ("." for the root)
    port: str  # the listener port the block had in the cluster
    stanzas: tuple[Stanza, ...]

    @property
    def label(self) -> str:
        """How reports name the chain: its zone, plus the port when it is not 53."""
        return self.zone if self.port == "53" else f"{self.zone}:{self.port}"

    @property
    def primary(self) -> str:
        return self.stanzas[0].upstreams[0]

    @property
    def upstreams(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(u for s in self.stanzas for u in s.upstreams))

    def name(self, scenario: str, i: int) -> str:
        """A fresh name per query, so `cache` never answers in place of the upstream."""
        base = ROOT_NAME if self.zone == "." else self.zone
        return f"q{i}-{scenario}.{base}"


@dataclass(frozen=True)
class Expect:
    rcode: str
    answered_by: tuple[str, ...] = ()  # with NOERROR: the fakes allowed to answer
    within_ms: float | None = None
    text: str = ""


@dataclass(frozen=True)
class Scenario:
    id: str
    chain: Chain
    expect: Expect
    states: tuple[tuple[str, Behaviour], ...] = ()
    transports: tuple[str, ...] = ("udp", "udp")
    group: str = "shared"  # scenarios in one group share one CoreDNS process
    drop: frozenset[tuple[str, int]] = field(default_factory=frozenset)
    client_timeout: float = POD_TIMEOUT


def _norm(zone: str) -> str:
    zone = zone[len("dns://"):] if zone.startswith("dns://") else zone
    zone = zone.lower()
    return zone if zone.endswith(".") else zone + "."


def _under(name: str, zone: str) -> bool:
    return zone == "." or name == zone or name.endswith("." + zone)


def _stanza(d: Directive, block_zone: str) -> Stanza:
    policy = d.option("policy")
    nxt, fo = d.option("next"), d.option("failover")
    origin = _norm(d.args[0])
    return Stanza(d.file, d.line, tuple(d.args[1:]), policy.args[0] if policy and policy.args else "random",
                  tuple(a.upper() for a in nxt.args) if nxt else (), tuple(a.upper() for a in fo.args) if fo else (),
                  block_zone if origin == "." else origin)


def find_chains(config: VerifyConfig) -> list[Chain]:
    """Every (zone, port) a forward serves, with its stanzas in chain order."""
    files = {posixpath.join(config.custom_dir, key): Source(text, config.custom_label(key))
             for key, text in config.custom.items()}
    cf = expand_imports(parse_corefile(config.corefile, filename=config.name), VirtualFS(files, config.base_dir))
    chains: dict[tuple[str, str], Chain] = {}
    for block in cf.server_blocks:
        key = ServerKey.parse(block.keys[0])
        block_zone, port = _norm(key.zone), key.port or "53"
        fwd = [d for d in block.find("forward") if len(d.args) > 1]
        for d in fwd:
            origin = _norm(d.args[0])
            zone = block_zone if origin == "." else origin
            if not _under(zone, block_zone) or (zone, port) in chains:
                # outside the block's zone: no query ever reaches this forward
                continue
            stanzas = tuple(_stanza(f, block_zone) for f in fwd if _under(zone, _norm(f.args[0])))
            chains[(zone, port)] = Chain(zone, port, stanzas)
    return list(chains.values())


def _others(chain: Chain) -> tuple[str, ...]:
    """Who should answer when the primary is dead: the first stanza's other upstreams (forward
    tries the next one on a network error); with none, the later stanzas when the first one's
    SERVFAIL goes on through `next`. Without `next`, a forward that matched never hands a query on
    (CoreDNS answers SERVFAIL): a later stanza for wider names (`forward lan …` before `forward .`)
    is not that zone's fallback, so nothing should answer; a later stanza for the same names
    (`forward . 9.9.9.9` before k3s's `forward . /etc/resolv.conf`) was written as its fallback,
    so the scenario expects it and fails: that fallback is never reached."""
    s0 = chain.stanzas[0]
    in_list = tuple(u for u in s0.upstreams if u != chain.primary)
    if in_list:
        return in_list
    later = chain.stanzas[1:] if "SERVFAIL" in s0.next else [s for s in chain.stanzas[1:] if s.zone == s0.zone]
    return tuple(u for u in dict.fromkeys(u for s in later for u in s.upstreams) if u != chain.primary)


def _rcode_scenario(chain: Chain, rcode: str) -> Scenario:
    s0, later = chain.stanzas[0], tuple(dict.fromkeys(u for s in chain.stanzas[1:] for u in s.upstreams))
    in_list = tuple(u for u in s0.upstreams[1:] if u != chain.primary)
    states: tuple[tuple[str, Behaviour], ...] = ((chain.primary, Behaviour(rcode.lower())),)
    if rcode in s0.failover and in_list:
        expect = Expect("NOERROR", in_list, text=f"NOERROR from the next upstream (failover {rcode})")
    elif rcode in s0.next:
        by = later if later and s0.policy == "sequential" else (later + in_list or _others(chain))
        expect = Expect("NOERROR", tuple(dict.fromkeys(by)), text=f"NOERROR through the next stanza (next {rcode})")
    else:
        expect = Expect(rcode, text=f"{rcode} reaches the client (no next/failover for it)")
        if s0.policy != "sequential":  # (random, round_robin: any of them may be asked first, so all answer so)
            states = tuple((u, Behaviour(rcode.lower())) for u in s0.upstreams)
    return Scenario(f"primary-{rcode.lower()}", chain, expect, states)


def plan(chains: list[Chain], primaries: Mapping[str, str] | None = None,
         probes: Mapping[str, str] | None = None) -> list[Scenario]:
    """The scenarios for every chain; only ones the chain's shape makes meaningful.

    `primaries` (zone -> upstream, from the values) overrides who must answer a healthy query,
    so a forward that never runs (k3s ≤ 1.32.9 imports overrides *after* its own forward)
    fails instead of passing on whatever upstream came first. A chain in `probes` (zone ->
    upstream) is another owner's forward that must be reached: its one scenario says so.
    """
    out: list[Scenario] = []
    for chain in chains:
        probe = (probes or {}).get(chain.zone)
        if probe is not None:
            out.append(Scenario("other-override-reached", chain,
                                Expect("NOERROR", (probe,), text=f"NOERROR from {probe}, a forward in another override"),
                                transports=("udp", "tcp")))
            continue
        s0 = chain.stanzas[0]
        by = (chain.primary,) if s0.policy == "sequential" else s0.upstreams
        who = "the primary" if len(by) == 1 else "a first-stanza upstream"
        declared = (primaries or {}).get(chain.zone)
        if declared and declared not in by:
            by, who = (declared,), f"the declared primary {declared}"
        out.append(Scenario("healthy", chain, Expect("NOERROR", by, text=f"NOERROR from {who}"),
                            transports=("udp", "tcp", "udp")))
        others = _others(chain)
        tag = f"{chain.zone}:{chain.port}"
        if others:
            for state, what in ((Behaviour.CLOSED, "dead"), (Behaviour.SILENT, "silent")):
                out.append(Scenario(f"primary-{what}", chain,
                                    Expect("NOERROR", others, text="NOERROR from a fallback upstream"),
                                    ((chain.primary, state),), ("udp",) * 4, group=f"{tag}/{what}"))
            out.extend(_rcode_scenario(chain, rc) for rc in ("SERVFAIL", "REFUSED"))
            control = next((rc for rc in ("SERVFAIL", "REFUSED") if rc in s0.next and rc not in s0.failover), None)
            if control and len(chain.stanzas) > 1:
                drop = frozenset((s.file, s.line) for s in chain.stanzas[1:])
                out.append(Scenario("control-no-second-stanza", chain,
                                    Expect(control, text=f"{control} reaches the client (negative control)"),
                                    ((chain.primary, Behaviour(control.lower())),), group=f"{tag}/control", drop=drop))
        down = tuple((u, Behaviour.CLOSED) for u in chain.upstreams)
        out.append(Scenario("all-down", chain, Expect("SERVFAIL", within_ms=FORWARD_DEADLINE_MS,
                                                      text="SERVFAIL within the 5 s deadline"),
                            down, group=f"{tag}/all-down"))
        silent = tuple((u, Behaviour.SILENT) for u in chain.upstreams)
        bound = FORWARD_DEADLINE_MS + READ_TIMEOUT_MS
        out.append(Scenario("all-silent", chain, Expect("SERVFAIL", within_ms=bound,
                                                        text="SERVFAIL, no hang (5 s deadline + 2 s read)"),
                            silent, ("udp",), group=f"{tag}/all-silent", client_timeout=bound / 1000 + 3))
    return out


def query_ok(expect: Expect, rcode: str, answered_by: str | None, latency_ms: float) -> bool:
    """Whether one answer meets the expectation."""
    if rcode != expect.rcode:
        return False
    if expect.answered_by and answered_by not in expect.answered_by:
        return False
    if not expect.answered_by and answered_by is not None:
        return False
    return expect.within_ms is None or latency_ms <= expect.within_ms
