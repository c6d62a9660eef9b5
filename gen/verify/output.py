"""Render a `VerifyResult` as the table people read or the JSON CI parses.

JSON has a fixed key order and no absolute paths or timestamps; only the measured latencies
(and `resolv_conf`, which depends on whether the run may bind port 53) vary between runs.
"""

from __future__ import annotations

import json
from typing import Any

from gen.errors import UsageError
from gen.verify.engine import Outcome, VerifyResult

FORMATS = ("text", "json")


def format_verify(result: VerifyResult, fmt: str) -> str:
    """Raises: UsageError for an unknown format."""
    if fmt == "json":
        return json.dumps(as_dict(result), indent=2) + "\n"
    if fmt == "text":
        return format_text(result)
    raise UsageError(f"unknown format `{fmt}`", key="--format", hint=f"use one of: {', '.join(FORMATS)}")


def as_dict(result: VerifyResult) -> dict[str, Any]:
    return {
        "cluster": result.cluster,
        "platform": result.platform,
        "coredns_version": result.coredns_version,
        "binary_version": result.binary_version,
        "resolv_conf": result.resolv_conf,
        "confinement": result.confinement,
        "passed": result.passed,
        "scenarios": [
            {
                "zone": o.zone,
                "scenario": o.scenario,
                "expectation": o.expectation,
                "passed": o.passed,
                "detail": o.detail,
                "queries": [
                    {"name": q.name, "transport": q.transport, "rcode": q.rcode, "answered_by": q.answered_by,
                     "reached": list(q.reached), "latency_ms": q.latency_ms, "ok": q.ok}
                    for q in o.queries
                ],
            }
            for o in result.outcomes
        ],
    }


def _row(o: Outcome) -> list[str]:
    rcodes = list(dict.fromkeys(q.rcode for q in o.queries))
    by = list(dict.fromkeys(q.answered_by or "-" for q in o.queries))
    latency = " ".join(f"{q.latency_ms:.0f}" if q.latency_ms >= 10 else f"{q.latency_ms:.1f}" for q in o.queries)
    return [o.zone, o.scenario, "PASS" if o.passed else "FAIL", o.expectation,
            ",".join(rcodes) or "-", ",".join(by) or "-", latency or "-"]


def format_text(result: VerifyResult) -> str:
    head = ["ZONE", "SCENARIO", "RESULT", "EXPECTATION", "RCODE", "ANSWERED BY", "LATENCY ms (each query)"]
    rows = [head, *(_row(o) for o in result.outcomes)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(head) - 1)]
    lines = []
    name = result.cluster or "Corefile"
    where = f" ({result.platform}, CoreDNS {result.coredns_version})" if result.platform else ""
    lines.append(f"verify {name}{where}: ran CoreDNS {result.binary_version}, resolv.conf {result.resolv_conf}"
                 + (f", confinement: {result.confinement}" if result.confinement else ""))
    for r in rows:
        lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)) + "  " + r[-1])
    for o in result.outcomes:
        if not o.passed:
            bad = [q for q in o.queries if not q.ok]
            lines.append(f"FAIL {o.zone} {o.scenario}: expected {o.expectation}")
            for q in bad:
                lines.append(f"  {q.name} ({q.transport}): {q.rcode}, answered by {q.answered_by or '-'}, "
                             f"reached {', '.join(q.reached) or 'no upstream'}, {q.latency_ms:.1f} ms")
            if o.detail:
                lines.extend("  " + ln for ln in o.detail.splitlines())
    if result.coredns_version and result.binary_version and result.coredns_version != result.binary_version:
        lines.append(f"note: the cluster runs CoreDNS {result.coredns_version}; verify ran {result.binary_version} "
                     "(drop --coredns to run that release: verify builds it once into ~/.cache/coredns-gen/bin)")
    failed = sum(not o.passed for o in result.outcomes)
    total = len(result.outcomes)
    noun = "scenario" if total == 1 else "scenarios"
    lines.append(f"{total - failed} of {total} {noun} passed" if failed else f"all {total} {noun} passed")
    return "\n".join(lines) + "\n"
