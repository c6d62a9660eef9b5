"""`guard --verify`: the head Corefile of each cluster whose Corefile changes, run in the real CoreDNS.

The reviewer's view (gen/guard/corefile_view.py) says what CoreDNS will load at head; this
loads exactly that text in the real binary through verify's engine (gen/verify/: loopback
sandbox, fake upstreams, every failover scenario the Corefile's shape calls for), one cluster per
worker thread (each run mostly waits on its silent-upstream timeouts). A Corefile CoreDNS
refuses, or one CoreDNS's own parser refuses, is an error (`corefile-refused`): the cluster
would be left without a working DNS server. A failover scenario that fails is a warning
(`corefile-failover`), naming the scenario and what the query got. One verify cannot stage (a
`tls://` upstream) is a warning saying why it was not run. Kept out of `gen.guard`'s import
path: only `--verify` pays for the sandbox and dnspython.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Sequence

from gen.errors import UsageError
from gen.finding import Finding, Severity
from gen.launcher import binary_version
from gen.verify.run import verify_config
from gen.verify.engine import VerifyResult
from gen.verify.sandbox import VerifyConfig

REFUSED = "corefile-refused"
FAILOVER = "corefile-failover"
WORKERS = 16  # clusters verified at once; each run is mostly waiting on timeouts (measured: 10 clusters)


def verify_views(views: Sequence[Finding], binary: Path) -> tuple[list[Finding], list[Finding]]:
    """(new findings, the views with a `verify` line added), in the views' order.

    Raises:
        ToolError: the binary does not run (exit 3: the user asked for --verify).
    """
    ran = binary_version(binary) if any(v.details.get("head") for v in views) else ""

    def one(view: Finding) -> tuple[list[Finding], Finding]:
        d = view.details
        name = d.get("cluster_name", view.file)
        where = {"cluster": d.get("cluster", view.file)}
        if " does not parse: " in view.message:
            why = view.message.split("; at head it does not parse: ", 1)[-1]
            return [Finding(REFUSED, Severity.ERROR, view.file, 1,
                            f"CoreDNS's parser refuses the Corefile cluster {name} would load at head: {why}",
                            "fix the change so the Corefile parses (the Corefile diff shows it)", details=where)], view
        if not d.get("head"):
            return [], view
        config = VerifyConfig(d["head"], {}, name=f"{name} Corefile at head")
        try:
            result = verify_config(config, binary, cluster=name, platform=d.get("platform", ""), ran=ran)
        except UsageError as err:
            return [Finding(FAILOVER, Severity.WARNING, view.file, 1,
                            f"the Corefile cluster {name} would load at head was not run in CoreDNS: {err}",
                            "run `coredns-gen verify` on the cluster's values file, or check it by hand",
                            details=where)], replace(view, details={**d, "verify": "not run"})
        return _findings(view, name, where, result), replace(view, details={**d, "verify": _line(result)})

    with ThreadPoolExecutor(max_workers=max(1, min(WORKERS, len(views)))) as pool:
        done = list(pool.map(one, views))
    return [f for found, _ in done for f in found], [v for _, v in done]


def _line(result: VerifyResult) -> str:
    passed = sum(1 for o in result.outcomes if o.passed)
    return f"CoreDNS {result.binary_version}: {passed}/{len(result.outcomes)} scenarios passed"


def _findings(view: Finding, name: str, where: dict[str, str], result: VerifyResult) -> list[Finding]:
    out = []
    for o in result.outcomes:
        if o.passed:
            continue
        if o.scenario == "load":
            detail = o.detail.strip().splitlines()
            out.append(Finding(REFUSED, Severity.ERROR, view.file, 1,
                               f"CoreDNS {result.binary_version} refuses the Corefile cluster {name} would load at head: "
                               + (" ".join(detail[:3]) if detail else "it exits before serving"),
                               "fix the change so CoreDNS starts (the Corefile diff shows what it loads; "
                               "`coredns-gen lint --load` on the objects points at the line)", details=where))
            continue
        got = "; ".join(f"{q.name} got {q.rcode}" for q in o.queries[:3]) if o.queries else o.detail
        out.append(Finding(FAILOVER, Severity.WARNING, view.file, 1,
                           f"cluster {name} at head, zone {o.zone}, scenario {o.scenario}: expected {o.expectation}"
                           + (f"; {got}" if got else ""),
                           "see docs/verify.md for what each scenario stages", details=where))
    return out
