"""render's upstream check (gen/render/addresses.py) accepts only what CoreDNS's forward accepts.

addresses.py is a policy narrower than CoreDNS (no zone ids, ports 1-65535, one bare token), so
it stays; what it must never do is pass an upstream CoreDNS's own HostPortOrFile refuses (the
helper's, gen/corefile/upstreams.py). Generated addresses: IPv4/IPv6, zones, brackets, ports,
transports, Unicode digits and garbage.
"""

from __future__ import annotations

import itertools
import random

import pytest

from gen.render.addresses import _address_problem
from gen.corefile.upstreams import judge
from gen.tools import corefile_binary
from tests.conftest import missing_tool

HOSTS = ["1.1.1.1", "10.0.0.53", "256.1.1.1", "01.1.1.1", "1.1.1", "0.0.0.0", "::1", "::", "2606:4700::1111",
         "fe80::1%eth0", "::ffff:1.2.3.4", "1::2::3", "[::1]", "[1.1.1.1]", "[::1", "dns.google", "resolv.conf", "",
         "/etc/resolv.conf", "/etc/../x", "１.１.１.１", "FE80::1", "1.2.3.4/32", "192.0.2.1", "fd00::53", "2001:db8::1",
         "::ffff:10.0.0.1", "127.0.0.1", "2001:0db8:0000:0000:0000:0000:0000:0001"]
PORTS = ["", ":53", ":", ":0", ":65535", ":65536", ":abc", "::53", ":٥٣", ":+53", ":053"]
PREFIXES = ["", "tls://", "dns://"]


def _addresses() -> list[str]:
    out = dict.fromkeys(p + h + port for p, h, port in itertools.product(PREFIXES, HOSTS, PORTS))
    out.update(dict.fromkeys(f"[{h}]{port}" for h, port in itertools.product(HOSTS, PORTS)))
    rng = random.Random(11)
    alphabet = "0123456789abcdef.:[]%/ "
    while len(out) < 4000:
        out["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 12)))] = None
    return list(out)


@pytest.fixture(scope="module", autouse=True)
def helper() -> None:
    if corefile_binary() is None:
        missing_tool("coredns-gen-corefile", RuntimeError("pip install -e . builds it into gen/bin"))


@pytest.mark.parametrize("files_ok", [False, True])
def test_every_upstream_render_accepts_coredns_accepts(files_ok: bool) -> None:
    texts = _addresses()
    accepted = [t for t in texts if _address_problem(t, files_ok) is None]
    verdicts = judge(accepted)
    wrong = [(t, verdicts[t]) for t in accepted if verdicts[t].verdict != ("file" if t.startswith("/") else "ok")]
    assert wrong == []
    assert len(accepted) > 80


def test_a_bracketed_address_without_port_is_refused_at_the_values_file() -> None:
    """Render wrote `forward . [2606:4700::1111]`, which CoreDNS before 1.14.2 refuses."""
    problem = _address_problem("[2606:4700::1111]", files_ok=False)
    assert problem is not None and "brackets but no port" in problem[0]
    assert problem[1] == "add the port, `[2606:4700::1111]:53`, or drop the brackets, `2606:4700::1111`"
    assert judge(["[2606:4700::1111]"])["[2606:4700::1111]"].verdict == "refused"
