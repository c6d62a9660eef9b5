"""`guard --verify`: each changed head Corefile runs in the real CoreDNS.

The reviewer's view says what CoreDNS will load; --verify loads it and stages the failover
scenarios verify runs, clusters in parallel. A Corefile CoreDNS refuses is refused."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from gen.cli import app
from tests.guard.conftest import configmap, flux_ks, kustomization
from tests.guard.test_corefile_view import K3S, NEW_FORWARD

TALOS = "Corefile: |\n  .:53 {\n    errors\n    forward . 10.0.0.1 10.0.0.2 {\n      policy sequential\n    }\n  }"
OWNED = {"clusters/prod/dns.yaml": flux_ks("dns", "./dns"), "dns/kustomization.yaml": kustomization("cm.yaml"),
         "dns/cm.yaml": configmap("coredns", data=TALOS)}


def invoke(root: Path, coredns: Path, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["guard", "--repo", str(root), "--base", "base", "--no-cache", "--verify",
                                      "--coredns", str(coredns), *args], env={"GITHUB_ACTIONS": ""})
    return result.exit_code, result.stdout, result.stderr


def test_a_forward_without_next_before_the_stock_one_fails_over_nowhere(flux_repo, coredns_bin):
    """The issue's example: `forward . 9.9.9.9` in a k3s override passed with exit 0 and no word.
    k3s's own `forward . /etc/resolv.conf` after it is never reached: a dead 9.9.9.9 is SERVFAIL."""
    code, out, _ = invoke(flux_repo(K3S, NEW_FORWARD), coredns_bin, "--format", "json")
    found = json.loads(out)
    assert code == 0  # a failover warning, not a refusal
    (view,) = [f for f in found if f["rule"] == "corefile-diff"]
    assert view["details"]["verify"].endswith("scenarios passed") and "/" in view["details"]["verify"]
    failed = {f["message"].split("scenario ", 1)[1].split(":", 1)[0] for f in found if f["rule"] == "corefile-failover"}
    assert "primary-dead" in failed


def test_a_head_corefile_coredns_refuses_is_refused(flux_repo, coredns_bin):
    bad = TALOS.replace("policy sequential", "policy bogus")
    code, out, _ = invoke(flux_repo(OWNED, {"dns/cm.yaml": configmap("coredns", data=bad)}), coredns_bin)
    assert code == 1
    refused = [line for line in out.splitlines() if line.endswith("(corefile-refused)")]
    assert len(refused) == 1 and "refuses the Corefile cluster prod would load at head" in refused[0]


def test_a_good_head_corefile_passes_every_scenario(flux_repo, coredns_bin):
    good = TALOS.replace("10.0.0.1 10.0.0.2", "10.0.0.3 10.0.0.2")
    code, out, _ = invoke(flux_repo(OWNED, {"dns/cm.yaml": configmap("coredns", data=good)}), coredns_bin)
    assert code == 0, out
    verify_line = next(line for line in out.splitlines() if line.strip().startswith("verify: "))
    done, total = verify_line.split(": ")[-1].split(" ")[0].split("/")
    assert done == total and int(total) > 1
    assert "corefile-failover" not in out and "corefile-refused" not in out
