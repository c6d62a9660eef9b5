"""Measure `coredns-gen verify`: wall time per example cluster and the latencies seed 000 reports.

Run on demand (not in the test suite, which never asserts timings):
    python3 benchmarks/verify_timing.py [--runs 3] [--coredns PATH]
Prints, per cluster and run: total seconds, then for the root chain the first-query latency with
the primary dead (closed port) and silent, the SERVFAIL → second-stanza latency, and the time to
SERVFAIL with every upstream closed or silent.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from gen.verify.run import run_verify

REPO = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--coredns", default=None)
    args = parser.parse_args()
    for platform in ("talos", "k3s", "aks"):
        for run in range(args.runs):
            start = time.perf_counter()
            try:
                result = run_verify(REPO / "examples" / f"{platform}.yaml", repo=REPO, coredns=args.coredns)
            except Exception as err:  # noqa: BLE001 - a benchmark reports and moves on
                print(f"{platform} run {run + 1}: error: {str(err).splitlines()[0]}")
                break
            wall = time.perf_counter() - start
            cells = []
            for o in result.outcomes:
                if o.zone != result.outcomes[0].zone:
                    continue
                lat = [q.latency_ms for q in o.queries]
                cells.append(f"{o.scenario}={'/'.join(f'{x:.0f}' for x in lat)}")
            status = "pass" if result.passed else "FAIL"
            print(f"{platform} run {run + 1}: {wall:.2f}s {status} ms: " + " ".join(cells))


if __name__ == "__main__":
    main()
