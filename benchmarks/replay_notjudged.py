#!/usr/bin/env python3
"""The share of harmless commits a replay refused as not judged, by repository and by cause.

Reads what benchmarks/replay_guard.py wrote (one JSON line per commit) and a list of the commits
where Flux deletes something, judged by a person reading each diff (one commit id or prefix a
line, `#` comments): every other commit deletes nothing. A commit is refused as not judged when it
exits 1 and every error is `not-judged-touched`, `helm-release-not-judged` or
`helm-chart-not-judged`; a prune is caught when it exits 1, warned when it exits 0 with a finding of
a removal rule (object-pruned warns, by design, for every kind but ConfigMaps, HelmReleases and
Namespaces holding them), missed when it exits 0 without one. A refusal
whose every cause is the network (a chart or a remote base this machine cannot fetch) is counted
apart: with network (CI) those are built and judged, so the share without them is the estimate
for a runner with network (an estimate: what the fetched chart would show is not known here).

  python3 benchmarks/replay_notjudged.py --prunes PRUNES.txt R1.jsonl R2.jsonl ...
"""

from __future__ import annotations

import argparse
import collections
import json
from pathlib import Path
from typing import Any

NOT_JUDGED = {"not-judged-touched", "helm-release-not-judged", "helm-chart-not-judged"}
REMOVAL = {"configmap-pruned", "object-pruned", "helmrelease-pruned", "namespace-pruned", "object-moved-pruned",
           "object-moved-deleted", "object-orphaned", "object-moved"}
NETWORK = {"chart not fetchable here (no network)", "remote base (no network)"}


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
    if "postBuild substitutes from" in why:
        reach = why.split("decides what Flux applies: ", 1)[-1] if "decides what Flux applies" in why else why
        return f"a variable of a substituteFrom source not readable here: {reach[:90]}"
    if "ResourceSetInputProvider" in why:
        return "a ResourceSet whose inputs come from an external provider (not git)"
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
    print("| repository | commits | deletes nothing | refused as not judged | of them only for the network | "
          "with network (estimate) | prunes refused + warned | missed | exit 0/1/2/3/other |")
    print("|---|---|---|---|---|---|---|---|---|")
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
                warned = any(f.get("rule") in REMOVAL for f in rec["findings"])
                row["warned"] += rec["exit"] == 0 and warned
                if rec["exit"] == 0 and not warned:
                    missed.append(sha[:10])
                continue
            row["harmless"] += 1
            if rec["exit"] == 1 and {f.get("rule") for f in errors} <= NOT_JUDGED:
                row["not_judged"] += 1
                why = {cause(f) for f in errors}
                causes.update(why)
                row["network"] += why <= NETWORK
        name = next(iter(records.values()))["repo"] if records else path.stem
        share = 100 * row["not_judged"] / max(1, row["harmless"])
        left = row["not_judged"] - row["network"]
        print(f"| {name} | {row['commits']} | {row['harmless']} | {row['not_judged']} ({share:.0f} %) | {row['network']} | "
              f"{left} ({100 * left / max(1, row['harmless']):.0f} %) | "
              f"{row['caught']} + {row['warned']} of {row['prunes']} | {len(missed)} {' '.join(missed)} | "
              f"{exits[0]}/{exits[1]}/{exits[2]}/{exits[3]}/{exits['other']} |")
        total.update(row)
        total.update({f"exit {k}": v for k, v in exits.items()})
        total["missed"] += len(missed)
    share = 100 * total["not_judged"] / max(1, total["harmless"])
    left = total["not_judged"] - total["network"]
    print(f"| all | {total['commits']} | {total['harmless']} | {total['not_judged']} ({share:.1f} %) | {total['network']} | "
          f"{left} ({100 * left / max(1, total['harmless']):.1f} %) | "
          f"{total['caught']} + {total['warned']} of {total['prunes']} | {total['missed']} | {total['exit 0']}/{total['exit 1']}/"
          f"{total['exit 2']}/{total['exit 3']}/{total['exit other']} |")
    print("\nrefused as not judged, by cause (a commit counts once per cause):")
    for text, n in causes.most_common():
        print(f"  {n:4}  {text}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
