"""Is `coredns-gen verify` repeatable? N back-to-back runs of every example, from a cold page cache.

Run on demand (never in tests): `python3 benchmarks/verify_repeat.py [--runs 50] [--cold each|first|never]`.
As root, `sync; echo 3 > /proc/sys/vm/drop_caches` empties the page cache before every round
(`each`, the default) or before the first (`first`), so CoreDNS's 100 MB binary starts cold,
as it does on the first verify after a fresh build. Each run is its own `python3 -m gen verify`
process. Prints the pass count per example and every failed scenario with its query latencies.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = sorted(p.stem for p in (REPO / "examples").glob("*.yaml"))


def drop_caches() -> bool:
    """Empty the page cache (root only); False when not allowed."""
    try:
        os.sync()
        with open("/proc/sys/vm/drop_caches", "w") as handle:
            handle.write("3\n")
        return True
    except OSError:
        return False


def one(example: str) -> tuple[bool, list[str], float]:
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "gen", "verify", f"examples/{example}.yaml", "--format", "json"],
                          cwd=REPO, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    elapsed = time.monotonic() - started
    try:
        result = json.loads(proc.stdout)
    except ValueError:
        return False, [f"exit {proc.returncode}: {proc.stderr.strip()[-300:]}"], elapsed
    failed = [f"{o['zone']} {o['scenario']}: " + ", ".join(f"{q['rcode']} in {q['latency_ms']} ms (reached {q['reached'] or 'none'})"
                                                         for q in o.get("queries", [])) + (f" {o['detail']}" if o.get("detail") else "")
              for o in result.get("outcomes", []) if not o["passed"]]
    return proc.returncode == 0 and not failed, failed, elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--cold", choices=["each", "first", "never"], default="each")
    args = parser.parse_args()
    passed = {e: 0 for e in EXAMPLES}
    failures: list[str] = []
    times: list[float] = []
    dropped = 0
    for run in range(1, args.runs + 1):
        if args.cold == "each" or (args.cold == "first" and run == 1):
            dropped += drop_caches()
        for example in EXAMPLES:
            ok, failed, elapsed = one(example)
            times.append(elapsed)
            passed[example] += ok
            failures.extend(f"run {run} {example}: {f}" for f in failed)
            if not ok and not failed:
                failures.append(f"run {run} {example}: failed without a failed scenario")
        print(f"run {run}/{args.runs}: " + ", ".join(f"{e} {passed[e]}/{run}" for e in EXAMPLES), flush=True)
    print(f"\npage cache dropped {dropped} time(s) ({args.cold}); {len(times)} verifies, "
          f"{min(times):.1f}-{max(times):.1f} s each (median {sorted(times)[len(times) // 2]:.1f} s)")
    for example in EXAMPLES:
        print(f"{example}: {passed[example]}/{args.runs} passed")
    for line in failures:
        print("FAILED", line)


if __name__ == "__main__":
    main()
