#!/usr/bin/env python3
"""The share of harmless commits a replay refused as not judged, by repository and by cause.

Reads what benchmarks/replay_guard.py wrote (one JSON line per commit) and a list of the commits
where Flux deletes something, judged by a person reading each diff (one commit id or prefix a
line, `#` comments): every other commit deletes nothing. A commit is refused as not judged when it
exits 1 and every error is `not-judged-touched`, `helm-release-not-judged` or
`helm-chart-not-judged`; a prune is caught when it exits 1, missed when it exits 0.

  python3 benchmarks/replay_notjudged.py --prunes PRUNES.txt R1.jsonl R2.jsonl ...
"""

from __future__ import annotations

import argparse
import collections
import json
from pathlib import Path
from typing import Any

NOT_JUDGED = {"not-judged-touched", "helm-release-not-judged", "helm-chart-not-judged"}


def cause(finding: dict[str, Any]) -> str:
    """One phrase per kind of reason a finding gives."""
    details = finding.get("details") or {}
    why = str(details.get("why") or details.get("reason") or finding.get("message", ""))
    if "could not be fetched" in why:
        return "chart not fetchable here (no network)"
    if "another repository's" in why:
        return "chart in another repository's GitRepository"
    if "not this repository" in why:
        return "source is not this repository"
    if "remote base" in why or "resolve host" in why:
        return "remote base (no network)"
    return why[:120]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--prunes", type=Path, required=True, help="commits where Flux deletes something, one a line")
    ap.add_argument("records", nargs="+", type=Path, help="replay_guard.py JSONL files (the last record of a commit wins)")
    args = ap.parse_args()
    prunes = [ln.split()[0] for ln in args.prunes.read_text(encoding="utf-8").splitlines()
              if ln.strip() and not ln.startswith("#")]
    total: collections.Counter[str] = collections.Counter()
    causes: collections.Counter[str] = collections.Counter()
    print("| repository | commits | deletes nothing | refused as not judged | prunes caught | missed | exit 0/1/2/3/other |")
    print("|---|---|---|---|---|---|---|")
    for path in args.records:
        records: dict[str, dict[str, Any]] = {}
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                rec = json.loads(line)
                records[rec["commit"]] = rec
        exits = collections.Counter(r["exit"] if r["exit"] in (0, 1, 2, 3) else "other" for r in records.values())
        row = collections.Counter(commits=len(records))
        missed: list[str] = []
        for sha, rec in records.items():
            errors = [f for f in rec["findings"] if f.get("severity") == "error"]
            if any(sha.startswith(p) for p in prunes):
                row["prunes"] += 1
                row["caught"] += rec["exit"] == 1
                if rec["exit"] == 0:
                    missed.append(sha[:10])
                continue
            row["harmless"] += 1
            if rec["exit"] == 1 and {f.get("rule") for f in errors} <= NOT_JUDGED:
                row["not_judged"] += 1
                causes.update({cause(f) for f in errors})
        name = next(iter(records.values()))["repo"] if records else path.stem
        share = 100 * row["not_judged"] / max(1, row["harmless"])
        print(f"| {name} | {row['commits']} | {row['harmless']} | {row['not_judged']} ({share:.0f} %) | "
              f"{row['caught']} of {row['prunes']} | {len(missed)} {' '.join(missed)} | "
              f"{exits[0]}/{exits[1]}/{exits[2]}/{exits[3]}/{exits['other']} |")
        total.update(row)
        total.update({f"exit {k}": v for k, v in exits.items()})
        total["missed"] += len(missed)
    share = 100 * total["not_judged"] / max(1, total["harmless"])
    print(f"| all | {total['commits']} | {total['harmless']} | {total['not_judged']} ({share:.1f} %) | "
          f"{total['caught']} of {total['prunes']} | {total['missed']} | {total['exit 0']}/{total['exit 1']}/"
          f"{total['exit 2']}/{total['exit 3']}/{total['exit other']} |")
    print("\nrefused as not judged, by cause (a commit counts once per cause):")
    for text, n in causes.most_common():
        print(f"  {n:4}  {text}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
