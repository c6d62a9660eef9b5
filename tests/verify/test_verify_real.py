"""Every scenario against the real CoreDNS binary, for each example cluster, plus the proofs
that the checks can fail (a missing second stanza, a fallback only reachable through `next`,
a Corefile CoreDNS refuses) and the measured reason `loop` is dropped.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from gen.yamlio import load_all_safe
from gen.verify.engine import Outcome, VerifyResult
from gen.verify.run import run_verify, verify_config
from gen.verify.sandbox import VerifyConfig
from gen.verify.scenarios import PROBE_KEY, PROBE_UPSTREAM, PROBE_ZONE
from gen.verify.output import format_verify
from gen.launcher import CoreDNS
from gen.verify.runner import ask, warmed_up
from gen.verify.fake_upstreams import free_port, start_fake

pytestmark = pytest.mark.coredns
REPO = Path(__file__).resolve().parents[2]

FAILOVER = {"healthy", "primary-dead", "primary-silent", "primary-servfail", "primary-refused", "all-down", "all-silent"}
EXPECTED = {
    "talos": {".": FAILOVER | {"control-no-second-stanza"}, "corp.example.com.": FAILOVER},
    "k3s": {".": FAILOVER | {"control-no-second-stanza"}, "lab.example.net.": FAILOVER | {"control-no-second-stanza"},
            PROBE_ZONE: {"other-override-reached"}},
    "aks": {".": {"healthy", "all-down", "all-silent"}, "contoso.internal.": FAILOVER | {"control-no-second-stanza"}},
    "kubeadm": {".": FAILOVER | {"control-no-second-stanza"}, "corp.example.com.": FAILOVER},
    # Gardener's CoreDNS binds 8053; the zone has one upstream, so only the single-server scenarios
    "gardener": {".:8053": FAILOVER | {"control-no-second-stanza"}, "corp.example.com.:8053": {"healthy", "all-down", "all-silent"},
                 f"{PROBE_ZONE}:8053": {"other-override-reached"}},
}


def _scenarios(result: VerifyResult) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for o in result.outcomes:
        out.setdefault(o.zone, set()).add(o.scenario)
    return out


def _outcome(result: VerifyResult, zone: str, scenario: str) -> Outcome:
    return next(o for o in result.outcomes if o.zone == zone and o.scenario == scenario)


_RESULTS: dict[str, VerifyResult] = {}


def _example(platform: str, coredns_bin: Path) -> VerifyResult:
    """One run per example cluster per session (each takes as long as its slowest scenario)."""
    if platform not in _RESULTS:
        _RESULTS[platform] = run_verify(REPO / "examples" / f"{platform}.yaml", repo=REPO, coredns=str(coredns_bin))
    return _RESULTS[platform]


# gen/platforms/k3s.py `base_corefile` YAML-parses the whole k3s manifest, whose Service has an
# unquoted `%{CLUSTER_DNS}%`. Only that exception is expected; any verify failure still fails,
# and the mark turns into XPASS once the platform code is fixed (then delete it).
@pytest.fixture(params=["talos", "k3s", "aks", "kubeadm", "gardener"])
def example(request: pytest.FixtureRequest, coredns_bin: Path) -> tuple[str, VerifyResult]:
    return request.param, _example(request.param, coredns_bin)


def test_example_cluster_passes_every_scenario(example: tuple[str, VerifyResult]) -> None:
    platform, result = example
    failed = [(o.zone, o.scenario, [(q.rcode, q.answered_by) for q in o.queries], o.detail)
              for o in result.outcomes if not o.passed]
    assert failed == []
    assert _scenarios(result) == EXPECTED[platform]


def test_example_zone_blocks_answer_from_their_own_upstreams(example: tuple[str, VerifyResult]) -> None:
    platform, result = example
    zone = {"talos": "corp.example.com.", "k3s": "lab.example.net.", "aks": "contoso.internal.",
            "kubeadm": "corp.example.com.", "gardener": "corp.example.com.:8053"}[platform]
    primary = {"talos": "10.20.0.10", "k3s": "192.168.20.10", "aks": "10.1.0.4", "kubeadm": "10.20.0.10", "gardener": "10.20.0.10"}[platform]
    healthy = _outcome(result, zone, "healthy")
    assert {q.answered_by for q in healthy.queries} == {primary}
    assert {q.transport for q in healthy.queries} == {"udp", "tcp"}


def test_talos_forward_pair_figures(coredns_bin: Path) -> None:
    """The forward pair (README.md: why two stanzas): a dead resolver loses no query; a SERVFAIL one is answered through stanza two."""
    result = _example("talos", coredns_bin)
    silent = _outcome(result, ".", "primary-silent")
    assert [q.rcode for q in silent.queries] == ["NOERROR"] * 4
    assert silent.queries[0].reached == ("10.96.0.53", "/etc/resolv.conf")
    servfail = _outcome(result, ".", "primary-servfail")
    assert {q.answered_by for q in servfail.queries} == {"/etc/resolv.conf"}
    control = _outcome(result, ".", "control-no-second-stanza")
    assert {q.rcode for q in control.queries} == {"SERVFAIL"} and control.passed


def test_k3s_stock_corefile_with_rendered_custom(coredns_bin: Path) -> None:
    """k3s's own Corefile (override import before its forward) plus the committed coredns-custom."""
    # Only the ConfigMap document: the others carry unquoted %{…}% placeholders YAML rejects.
    docs = (REPO / "gen/data/k3s/k3s-v1.34.9+k3s1-coredns.yaml").read_text().split("\n---\n")
    stock = load_all_safe(next(d for d in docs if "kind: ConfigMap" in d))[0]
    corefile = str(stock["data"]["Corefile"]).replace("%{CLUSTER_DOMAIN}%", "cluster.local")
    overlay = load_all_safe((REPO / "overlays/k3s/edge-k3s/coredns-custom-configmap.yaml").read_text())[0]
    result = verify_config(VerifyConfig(corefile, {str(k): str(v) for k, v in overlay["data"].items()}), coredns_bin)
    assert [(o.zone, o.scenario) for o in result.outcomes if not o.passed] == []
    assert _scenarios(result) == {z: s for z, s in EXPECTED["k3s"].items() if z != PROBE_ZONE}  # no probe added here
    assert {q.answered_by for q in _outcome(result, ".", "healthy").queries} == {"192.168.10.53"}


@pytest.mark.parametrize("platform", ["k3s", "gardener"])
def test_another_overrides_domain_forward_is_reached(platform: str, coredns_bin: Path) -> None:
    """a domain forward in an override sorting after ours must answer its zone."""
    result = _example(platform, coredns_bin)
    label = PROBE_ZONE if platform == "k3s" else f"{PROBE_ZONE}:8053"
    probe = _outcome(result, label, "other-override-reached")
    assert probe.passed and {q.answered_by for q in probe.queries} == {PROBE_UPSTREAM}


def test_root_forward_sorting_first_hides_another_override(coredns_bin: Path) -> None:
    """The measured case: our root forward under `upstream.override` (the old key) answers the
    probe's zone itself, so the forward in the override sorting after it is never reached."""
    docs = (REPO / "gen/data/k3s/k3s-v1.34.9+k3s1-coredns.yaml").read_text().split("\n---\n")
    stock = load_all_safe(next(d for d in docs if "kind: ConfigMap" in d))[0]
    corefile = str(stock["data"]["Corefile"]).replace("%{CLUSTER_DOMAIN}%", "cluster.local")
    overlay = load_all_safe((REPO / "overlays/k3s/edge-k3s/coredns-custom-configmap.yaml").read_text())[0]
    custom = {str(k).replace("zzzz-coredns-gen-upstream.override", "upstream.override"): str(v)
              for k, v in overlay["data"].items()}
    custom[PROBE_KEY] = f"forward {PROBE_ZONE} {PROBE_UPSTREAM}\n"
    result = verify_config(VerifyConfig(corefile, custom, probes={PROBE_ZONE: PROBE_UPSTREAM}), coredns_bin)
    probe = _outcome(result, PROBE_ZONE, "other-override-reached")
    assert not probe.passed and {q.answered_by for q in probe.queries} == {"192.168.10.53"}
    assert not result.passed


def _run(coredns_bin: Path, corefile: str) -> VerifyResult:
    return verify_config(VerifyConfig(corefile), coredns_bin)


# Two broken shapes in one Corefile, one zone each, so their scenarios run side by side.
BROKEN = """\
nosecond.test:53 {
    forward . 10.96.0.53 /etc/resolv.conf {
        policy sequential
        next SERVFAIL REFUSED
    }
}
nextonly.test:53 {
    forward . 10.96.0.54 {
        next SERVFAIL REFUSED
    }
    forward . /etc/resolv.conf
}
oldk3s.test:53 {
    forward . /etc/resolv.conf
    import /etc/coredns/custom/*.override
}
"""
# k3s ≤ 1.32.9 order: the override's forward comes after k3s's own and never runs.
OVERRIDE = {"upstream.override": "forward . 192.168.10.53 /etc/resolv.conf {\n    policy sequential\n"
                                 "    next SERVFAIL REFUSED\n}\n"}


@pytest.fixture(scope="module")
def broken(coredns_bin: Path) -> VerifyResult:
    return verify_config(VerifyConfig(BROKEN, OVERRIDE, primaries={"oldk3s.test.": "192.168.10.53"}), coredns_bin)


def test_override_forward_that_never_runs_fails(broken: VerifyResult) -> None:
    healthy = _outcome(broken, "oldk3s.test.", "healthy")
    assert not healthy.passed
    assert {q.answered_by for q in healthy.queries} == {"/etc/resolv.conf"}
    assert healthy.expectation == "NOERROR from the declared primary 192.168.10.53"


def test_next_without_second_stanza_fails(broken: VerifyResult) -> None:
    """Negative control for the checker itself: CoreDNS ignores `next` here, and verify says so."""
    assert not broken.passed
    servfail = _outcome(broken, "nosecond.test.", "primary-servfail")
    assert not servfail.passed and {q.rcode for q in servfail.queries} == {"SERVFAIL"}
    assert _outcome(broken, "nosecond.test.", "primary-dead").passed  # the in-list fallback covers a dead socket


def test_next_does_not_cover_a_dead_primary(broken: VerifyResult) -> None:
    """The two stanzas' split: without /etc/resolv.conf in the first list, a dead socket is SERVFAIL."""
    dead = _outcome(broken, "nextonly.test.", "primary-dead")
    assert not dead.passed and dead.queries[0].rcode == "SERVFAIL"
    assert _outcome(broken, "nextonly.test.", "primary-servfail").passed


def test_failures_are_spelled_out_in_the_table(broken: VerifyResult) -> None:
    text = format_verify(broken, "text")
    assert "FAIL nosecond.test. primary-servfail: expected NOERROR through the next stanza (next SERVFAIL)" in text
    assert "reached 10.96.0.53" in text
    assert text.splitlines()[-1].endswith("scenarios passed") and not text.splitlines()[-1].startswith("all")


def test_text_table(coredns_bin: Path) -> None:
    lines = format_verify(_example("aks", coredns_bin), "text").splitlines()
    assert lines[0].startswith("verify aks-westeu (aks, CoreDNS 1.13.1): ran CoreDNS ")
    assert lines[1].split()[:4] == ["ZONE", "SCENARIO", "RESULT", "EXPECTATION"]
    assert any(ln.split()[:3] == ["contoso.internal.", "primary-servfail", "PASS"] for ln in lines)
    assert lines[-1].startswith("all ") and lines[-1].endswith("scenarios passed")


def test_corefile_coredns_refuses_is_a_failed_load(coredns_bin: Path) -> None:
    result = _run(coredns_bin, ".:53 {\n    forward . 10.0.0.1 {\n        no_such_option\n    }\n}\n")
    assert [(o.scenario, o.passed) for o in result.outcomes] == [("load", False)]
    assert "no_such_option" in result.outcomes[0].detail


def test_corefile_without_forward_is_a_load_check(coredns_bin: Path) -> None:
    result = _run(coredns_bin, ".:53 {\n    whoami\n}\n")
    assert [(o.scenario, o.passed) for o in result.outcomes] == [("load", True)]


def test_loop_does_not_fire_on_fakes_but_probes_the_primary(coredns_bin: Path, tmp_path: Path) -> None:
    """Why sandbox drops `loop`: its start-up HINFO probe goes through forward to the primary
    (disturbing the health state scenarios measure); it does not detect a loop on loopback fakes."""
    primary, fallback = start_fake("primary", 0), start_fake("fallback", 1)
    port = free_port()
    corefile = tmp_path / "Corefile"
    corefile.write_text(f".:{port} {{\n    bind 127.0.0.1\n    forward . {primary.address} {fallback.address} {{\n"
                        "        policy sequential\n    }\n    loop\n}\n")
    try:
        with CoreDNS(coredns_bin, corefile, [port]) as server:
            deadline = time.monotonic() + 5
            while not any(q[1] == "HINFO" for q in primary.received()) and time.monotonic() < deadline:
                time.sleep(0.05)
            assert any(q[1] == "HINFO" for q in primary.received())
            assert ask(port, "after-loop-probe.test.").rcode == "NOERROR"
            assert server.proc is not None and server.proc.poll() is None
            assert "Loop" not in server.output()
    finally:
        primary.stop()
        fallback.stop()


def test_start_returns_when_coredns_itself_says_ready(coredns_bin: Path, tmp_path: Path) -> None:
    """start() returns only when UDP is bound on every listener, `ready` says 200 and a query
    through the warm-up block was answered; none of it reaches the cluster's own upstream."""
    from gen.launcher import _ready, _udp_bound
    from gen.verify.sandbox import build_sandbox

    box = build_sandbox(tmp_path, VerifyConfig(".:53 {\n    forward . 10.0.0.1\n}\n"))
    try:
        assert not _udp_bound(box.ports["53"]) and not _ready(box.ready)
        assert box.warmup is not None
        probed = len(box.warmup.queries)  # the fake's own readiness probes
        with CoreDNS(coredns_bin, box.corefile, sorted(box.ports.values()), ready=box.ready, check=warmed_up(box.warmup_port)):
            assert _udp_bound(box.ports["53"]) and _ready(box.ready)
            assert box.fakes["10.0.0.1"].received() == []  # the warm-up went to its own fake only
            assert len(box.warmup.queries) >= probed + 2  # through CoreDNS, over UDP and TCP
    finally:
        box.stop()
