"""Run the planned scenarios against the real CoreDNS and collect outcomes (values, never prints).

Scenarios that leave forward's health state alone (healthy, an upstream answering SERVFAIL or
REFUSED: each is a successful exchange) share one CoreDNS process, switching the fakes between
them. Each scenario that kills or silences an upstream, and the negative control (a different
Corefile), gets its own process and fakes; all of them, the shared one too, start at once, so a
cluster takes about as long as its slowest scenario (every upstream silent: ~6 s).
"""

from __future__ import annotations

import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

from gen.launcher import CoreDNS, LoadError
from gen.verify.runner import ask, warmed_up
from gen.verify.sandbox import Sandbox, VerifyConfig, build_sandbox
from gen.verify.scenarios import Scenario, find_chains, plan, query_ok
from gen.verify.fake_upstreams import Behaviour

PARALLEL = 6
GATE_WAIT = 5.0  # seconds a quick group waits at most for slow groups' start-ups


@dataclass(frozen=True)
class QueryResult:
    name: str
    transport: str
    rcode: str
    answered_by: str | None
    reached: tuple[str, ...]  # fakes that saw this query, in chain order
    latency_ms: float
    ok: bool


@dataclass(frozen=True)
class Outcome:
    scenario: str
    zone: str
    expectation: str
    passed: bool
    queries: tuple[QueryResult, ...] = ()
    detail: str = ""


@dataclass(frozen=True)
class VerifyResult:
    cluster: str
    platform: str
    coredns_version: str  # what the cluster runs
    binary_version: str  # what verify ran
    resolv_conf: str  # "file" (generated resolv.conf) or "inline" (no port 53 here)
    outcomes: tuple[Outcome, ...] = field(default_factory=tuple)
    confinement: str = ""  # how CoreDNS was kept from the machine (gen/verify/contained.py)

    @property
    def passed(self) -> bool:
        return all(o.passed for o in self.outcomes)


def run_scenarios(config: VerifyConfig, binary: Path) -> tuple[list[Outcome], str]:
    """Plan from the Corefile's shape, run every scenario; return outcomes and the resolv.conf mode."""
    scenarios = plan(find_chains(config), config.primaries, config.probes)
    groups: dict[str, list[Scenario]] = {}
    for sc in scenarios:
        groups.setdefault(sc.group, []).append(sc)
    with tempfile.TemporaryDirectory(prefix="coredns-gen-verify-") as tmp:
        # Every group's CoreDNS starts at once, the shared one too (it used to run first, alone:
        # its start-up and queries, ~1 s on a busy machine, were added to every cluster's time).
        # Slowest first (silent upstreams cost 2 s reads), so the run lasts about one of them.
        groups.setdefault("shared", [])  # run even when empty: it is the load check
        slow = sorted((name for name in groups if name != "shared"), key=lambda name: not _is_slow(groups[name]))
        names = ["shared", *slow]
        results: dict[str, list[Outcome]] = {}
        mode = "n/a"
        with ThreadPoolExecutor(max_workers=PARALLEL + 1) as pool:
            futures = {name: pool.submit(_run_group, config, binary, Path(tmp) / f"g{i}", groups[name])
                       for i, name in enumerate(names)}
            try:
                results["shared"], mode = futures["shared"].result()
            except LoadError as err:
                # the Corefile itself is refused: one `load` outcome, not one per scenario
                for fut in futures.values():
                    fut.cancel()
                return [Outcome("load", ".", "CoreDNS loads the Corefile", False, detail=_tail(err))], "n/a"
            for name, fut in futures.items():
                if name == "shared":
                    continue
                try:
                    results[name] = fut.result()[0]
                except LoadError as err:
                    results[name] = [Outcome(sc.id, sc.chain.label, sc.expect.text, False, detail=_tail(err))
                                     for sc in groups[name]]
    if not scenarios:
        return [Outcome("load", ".", "CoreDNS loads the Corefile (no forward to stage failures on)", True)], mode
    # Report in plan order (chain by chain), whichever process finished first.
    by_key = {(o.scenario, o.zone): o for outs in results.values() for o in outs}  # zone = chain label
    return [by_key[(sc.id, sc.chain.label)] for sc in scenarios], mode


def _tail(err: LoadError) -> str:
    lines = [ln for ln in err.output.strip().splitlines() if ln.strip()]
    return str(err) + ("\n" + "\n".join(lines[-8:]) if lines else "")


class _Gate:
    """Groups with a silent upstream (~6 s once started) get through start-up before the quick
    ones begin theirs, in this process (guard --verify runs every cluster's groups at once): the
    quick groups then start while the slow ones wait out their timeouts, instead of sixty
    start-ups sharing the CPU and the slow groups starting last. Order only: every group runs."""

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.starting = 0

    def slow_start(self) -> None:
        with self.cond:
            self.starting += 1

    def slow_started(self) -> None:
        with self.cond:
            self.starting -= 1
            if self.starting == 0:
                self.cond.notify_all()

    def quick_start(self) -> None:
        with self.cond:  # bounded: a slow start-up that hangs delays the others, never blocks them
            self.cond.wait_for(lambda: self.starting == 0, timeout=GATE_WAIT)


_GATE = _Gate()


def _is_slow(group: list[Scenario]) -> bool:
    return any(s.id.endswith("silent") for s in group)


def _run_group(config: VerifyConfig, binary: Path, root: Path, group: list[Scenario]) -> tuple[list[Outcome], str]:
    drop = group[0].drop if group else frozenset()
    pending = [_is_slow(group)]  # a slow group whose start-up the gate still waits for

    def started() -> None:
        if pending[0]:
            pending[0] = False
            _GATE.slow_started()

    if pending[0]:
        _GATE.slow_start()
    else:
        _GATE.quick_start()
    try:
        return _run_started(config, binary, root, group, drop, started)
    finally:
        started()


def _run_started(config: VerifyConfig, binary: Path, root: Path, group: list[Scenario],
                 drop: frozenset[tuple[str, int]], started: Callable[[], None]) -> tuple[list[Outcome], str]:
    for attempt in (1, 2):
        box = build_sandbox(root / str(attempt), config, drop=drop)
        try:
            with CoreDNS(binary, box.corefile, sorted(box.ports.values()), ready=box.ready,
                         check=warmed_up(box.warmup_port) if box.warmup_port else None) as server:
                started()
                outcomes = [_run_one(box, sc) for sc in group]
                if server.proc is not None and server.proc.poll() is not None:
                    crash = _tail(LoadError(f"CoreDNS exited with code {server.proc.returncode} during the scenario",
                                            server.output()))
                    outcomes = [replace(o, passed=False, detail=crash) for o in outcomes]
                return outcomes, box.resolv_conf
        except LoadError as err:
            # A free port can be taken between our probe and CoreDNS's bind (another run on
            # this machine): retry once with new ports; any other load error is the Corefile's.
            if attempt == 2 or "address already in use" not in err.output:
                raise
        finally:
            box.stop()
    raise AssertionError("unreachable")


def _run_one(box: Sandbox, sc: Scenario) -> Outcome:
    for fake in box.fakes.values():
        if fake.behaviour is not Behaviour.CLOSED:
            fake.set(Behaviour.ANSWER)
    for token, behaviour in sc.states:
        box.fakes[token].set(behaviour)
    by_answer = {fake.answer: token for token, fake in box.fakes.items()}
    port = box.ports[sc.chain.port]
    results: list[QueryResult] = []
    for i, transport in enumerate(sc.transports, start=1):
        name = sc.chain.name(sc.id, i)
        got = ask(port, name, transport=transport, timeout=sc.client_timeout)
        answered = next((by_answer.get(a, a) for a in got.addresses), None)
        reached = tuple(t for t in sc.chain.upstreams if any(q[0] == name for q in box.fakes[t].received()))
        results.append(QueryResult(name, transport, got.rcode, answered, reached, got.latency_ms,
                                   query_ok(sc.expect, got.rcode, answered, got.latency_ms)))
    return Outcome(sc.id, sc.chain.label, sc.expect.text, all(r.ok for r in results), tuple(results))
