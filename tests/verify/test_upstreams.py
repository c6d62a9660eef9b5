"""The fakes must behave like the upstream failures they stand for, over UDP and TCP."""

from __future__ import annotations

import time

import dns.exception
import dns.message
import dns.query
import dns.rcode
import pytest

from gen.verify.fake_upstreams import Behaviour, FakeUpstream, answer_address, start_fake


def _ask(fake: FakeUpstream, transport: str = "udp", timeout: float = 1.0) -> dns.message.Message:
    q = dns.message.make_query("who.example.", "A")
    send = dns.query.tcp if transport == "tcp" else dns.query.udp
    return send(q, fake.host, port=fake.port, timeout=timeout)


@pytest.mark.parametrize("transport", ["udp", "tcp"])
def test_answer_names_the_fake(transport: str) -> None:
    fake = start_fake("10.0.0.1", 3)
    try:
        resp = _ask(fake, transport)
        assert resp.rcode() == dns.rcode.NOERROR
        assert [rr.to_text() for rrset in resp.answer for rr in rrset] == [answer_address(3)]
        assert fake.received() == [("who.example.", "A", transport)]
    finally:
        fake.stop()


@pytest.mark.parametrize("transport", ["udp", "tcp"])
@pytest.mark.parametrize("behaviour,rcode", [(Behaviour.SERVFAIL, dns.rcode.SERVFAIL), (Behaviour.REFUSED, dns.rcode.REFUSED)])
def test_error_rcodes(behaviour: Behaviour, rcode: int, transport: str) -> None:
    fake = start_fake("u", 0, behaviour=behaviour)
    try:
        resp = _ask(fake, transport)
        assert resp.rcode() == rcode and not resp.answer
    finally:
        fake.stop()


def test_silent_reads_and_drops() -> None:
    fake = start_fake("u", 0)
    fake.set(Behaviour.SILENT)
    try:
        with pytest.raises(dns.exception.Timeout):
            _ask(fake, timeout=0.3)
        assert fake.received() == [("who.example.", "A", "udp")]
    finally:
        fake.stop()


@pytest.mark.parametrize("transport", ["udp", "tcp"])
def test_closed_port_refuses_at_once(transport: str) -> None:
    """Closing must really unbind: the kernel answers the very next packet with a refusal."""
    fake = start_fake("u", 0)
    fake.set(Behaviour.CLOSED)
    with pytest.raises(ConnectionRefusedError):
        if transport == "tcp":
            _ask(fake, "tcp")
        else:
            import socket

            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.connect((fake.host, fake.port))
            s.settimeout(1.0)
            s.send(dns.message.make_query("x.", "A").to_wire())
            s.recv(512)
    with pytest.raises(ValueError):
        fake.set(Behaviour.ANSWER)


def test_fakes_stop_themselves() -> None:
    fake = start_fake("u", 0, lifetime=0.2)
    time.sleep(0.5)
    with pytest.raises((dns.exception.Timeout, ConnectionRefusedError)):
        _ask(fake, timeout=0.3)


def test_fakes_avoid_the_address_coredns_dials_from() -> None:
    """127.0.0.1 would let a closed fake's port be picked as CoreDNS's own source port."""
    fakes = [start_fake("u", i) for i in range(5)]
    try:
        assert all(f.host.startswith("127.0.0.") and f.host != "127.0.0.1" for f in fakes)
    finally:
        for f in fakes:
            f.stop()


def test_a_fake_is_ready_without_a_query_and_stops_at_once() -> None:
    """Readiness is the serving threads' word (guard --verify starts ~200 fakes at once: a UDP and
    a TCP round trip each cost seconds on a busy machine), and a blocked thread is woken on stop."""
    fake = start_fake("u", 0)
    fake.wait_ready(timeout=5.0)
    assert fake.queries == []  # no probe went out
    assert _ask(fake).rcode() == dns.rcode.NOERROR
    threads = list(fake._threads)
    start = time.monotonic()
    fake.stop()
    assert not any(t.is_alive() for t in threads) and time.monotonic() - start < 1.0
