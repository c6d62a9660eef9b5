#!/usr/bin/env python3
"""Replay `coredns-gen guard` over the history of a real Flux repository, one commit at a time.

A tool, not a test: it shows how the gate behaves on repositories nobody here wrote, as a new
user would run it in CI on every merge (`guard --base C~1 --head C`, first-parent history, so a
merge commit is judged as the whole pull request it lands). Each run is a subprocess of
`python3 -m gen` from `--coredns-gen-src` (any worktree's code; default this checkout), with a
build cache of its own so two code versions never share cached builds.

  replay:  python3 benchmarks/replay_guard.py --repo R --last 120 --out R.jsonl
           python3 benchmarks/replay_guard.py --repo R --range A..B [--last N] --out R.jsonl
           python3 benchmarks/replay_guard.py --repo R --commits C1 C2 ... --out R.jsonl   (a chosen subset)
  table:   python3 benchmarks/replay_guard.py --table R.jsonl [S.jsonl ...]
  judge:   python3 benchmarks/replay_guard.py --repo R --diff C [--from R.jsonl]
  as CI:   add --base-branch main: each run's --base is origin/main moved to the parent (rewrites that ref)
  cache:   add --cache DIR to keep builds between runs (one DIR per repository and code version)

One JSON line per commit: commit, subject, exit code, wall time, the stderr summary line and the
indented lines under it (what was not judged, unreached files), the stderr tail when the exit code is neither 0 nor 1, the findings (`--format json`) and the files the
commit changed. The table gives exit-code counts, errors by rule, "0 of N clusters touched" runs
(and how many of those changed YAML outside dot-folders: the candidates for a silent pass) and wall
time p50/p95. `--diff` prints `git show --stat` and the findings side by side, to judge a refusal
by reading the change.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TypedDict

HERE = Path(__file__).resolve().parent.parent
TOUCHED = re.compile(r"(\d+) of (\d+) clusters? touched")
YAML = (".yaml", ".yml")


def delivered_yaml(path: str) -> bool:
    """A YAML file outside dot-folders (.github, .taskfiles, ...): what Flux could deliver, roughly."""
    return path.endswith(YAML) and not any(part.startswith(".") for part in path.split("/"))


class Finding(TypedDict, total=False):
    rule: str
    severity: str
    file: str
    line: int | None
    message: str
    details: dict[str, object]


class Record(TypedDict):
    repo: str
    commit: str
    parent: str
    subject: str
    exit: int
    seconds: float
    summary: str
    notes: list[str]
    stderr_tail: str
    findings: list[Finding]
    changed: list[str]


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def commits(repo: Path, last: int | None, span: str | None) -> list[str]:
    """First-parent commits, oldest first; a root commit (no parent to compare with) is left out."""
    lines = git(repo, "rev-list", "--first-parent", "--reverse", "--parents", span or "HEAD").splitlines()
    with_parent = [ln.split()[0] for ln in lines if len(ln.split()) > 1]
    return with_parent[-last:] if last else with_parent


def run_one(repo: Path, commit: str, src: Path, cache: Path, timeout: float, extra: Sequence[str],
            base_branch: str | None = None) -> Record:
    """One guard run as CI would make it; findings are parsed from stdout, the summary is stderr's `guard` line.
    With `base_branch`, `refs/remotes/origin/<base_branch>` is first moved to the parent and named as
    `--base`, as a pull request's CI names its target branch (a script's bootstrap syncs a branch:
    judged against a commit, the guard cannot tell that branch is the one judged)."""
    parent = git(repo, "rev-parse", f"{commit}~1").strip()
    base = parent
    if base_branch:
        git(repo, "update-ref", f"refs/remotes/origin/{base_branch}", parent)
        base = f"origin/{base_branch}"
    env = {**os.environ, "PYTHONPATH": str(src), "COREDNS_GEN_CACHE_DIR": str(cache)}
    env.pop("GITHUB_ACTIONS", None)
    argv = [sys.executable, "-m", "gen", "guard", "--repo", str(repo), "--base", base, "--head", commit,
            "--format", "json", *extra]
    start = time.monotonic()
    try:
        done = subprocess.run(argv, cwd=src, env=env, capture_output=True, text=True, timeout=timeout)
        code, out, err = done.returncode, done.stdout, done.stderr
    except subprocess.TimeoutExpired as exc:
        code, out, err = -1, "", f"timeout after {timeout:.0f} s: {exc}"
    seconds = time.monotonic() - start
    lines = err.strip().splitlines()
    at = next((i for i in range(len(lines) - 1, -1, -1) if lines[i].startswith("guard ")), None)
    summary = lines[at] if at is not None else ""
    notes = [ln.strip() for ln in lines[at + 1:] if ln.startswith(" ")] if at is not None else []
    try:
        parsed = json.loads(out) if out.strip() else []
        findings: list[Finding] = parsed if isinstance(parsed, list) else []
    except json.JSONDecodeError:
        findings = []
        err = f"{err}\n(stdout is not JSON: {out[:300]!r})"
    return Record(repo=repo.name, commit=commit, parent=parent, subject=git(repo, "log", "-1", "--format=%s", commit).strip(),
                  exit=code, seconds=round(seconds, 3), summary=summary, notes=notes,
                  stderr_tail="" if code in (0, 1) else "\n".join(err.strip().splitlines()[-8:]),
                  findings=findings, changed=git(repo, "diff", "--name-only", parent, commit).split())


def replay(repo: Path, shas: Sequence[str], src: Path, out: Path, timeout: float, extra: Sequence[str],
           base_branch: str | None = None, kept_cache: Path | None = None) -> list[Record]:
    """With `kept_cache`, builds are kept there between runs (one folder per repository and code version:
    a replay stopped and resumed, or re-run with `--commits`, reuses them); else a temp folder, removed."""
    records: list[Record] = []
    cache = kept_cache or Path(tempfile.mkdtemp(prefix="replay-guard-cache-"))
    cache.mkdir(parents=True, exist_ok=True)
    try:
        with out.open("a", encoding="utf-8") as sink:
            for i, sha in enumerate(shas, 1):
                rec = run_one(repo, sha, src, cache, timeout, extra, base_branch)
                records.append(rec)
                sink.write(json.dumps(rec, sort_keys=True) + "\n")
                sink.flush()
                errors = sum(1 for f in rec["findings"] if f.get("severity") == "error")
                print(f"[{i}/{len(shas)}] {sha[:10]} exit {rec['exit']} {rec['seconds']:.1f}s errors {errors} "
                      f"{rec['summary'][:90]}", file=sys.stderr, flush=True)
    finally:
        if kept_cache is None:
            shutil.rmtree(cache, ignore_errors=True)
    return records


def load(paths: Iterable[Path]) -> list[Record]:
    return [json.loads(ln) for p in paths for ln in p.read_text(encoding="utf-8").splitlines() if ln.strip()]


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * (len(ordered) - 1) + 0.5))] if ordered else 0.0


def table(records: Sequence[Record]) -> Iterator[str]:
    """Per repository: what a reviewer needs to choose which diffs to read."""
    by_repo: dict[str, list[Record]] = collections.defaultdict(list)
    for rec in records:
        by_repo[rec["repo"]].append(rec)
    yield (f"{'repo':40} {'commits':>7} {'exit 0/1/2/3/other':>19} {'refused':>7} {'0-touched':>9} "
           f"{'0-t+yaml':>8} {'p50 s':>6} {'p95 s':>6}  first..last")
    for name, recs in sorted(by_repo.items()):
        codes = collections.Counter(r["exit"] for r in recs)
        other = sum(n for c, n in codes.items() if c not in (0, 1, 2, 3))
        zero = [r for r in recs if (m := TOUCHED.search(r["summary"])) and m.group(1) == "0"]
        zero_yaml = [r for r in zero if any(delivered_yaml(f) for f in r["changed"])]
        secs = [r["seconds"] for r in recs]
        yield (f"{name:40} {len(recs):>7} {f'{codes[0]}/{codes[1]}/{codes[2]}/{codes[3]}/{other}':>19} "
               f"{codes[1]:>7} {len(zero):>9} {len(zero_yaml):>8} {percentile(secs, 0.5):>6.2f} "
               f"{percentile(secs, 0.95):>6.2f}  {recs[0]['commit'][:10]}..{recs[-1]['commit'][:10]}")
    rules: collections.Counter[tuple[str, str]] = collections.Counter()
    for rec in records:
        for rule in {f.get("rule", "?") for f in rec["findings"] if f.get("severity") == "error"}:
            rules[(rec["repo"], rule)] += 1
    if rules:
        yield ""
        yield "refused commits by rule (a commit counts once per rule):"
        for (name, rule), n in sorted(rules.items()):
            yield f"  {name:40} {rule:28} {n}"


def side_by_side(left: Sequence[str], right: Sequence[str], width: int = 78) -> Iterator[str]:
    for i in range(max(len(left), len(right))):
        a = left[i] if i < len(left) else ""
        b = right[i] if i < len(right) else ""
        yield f"{a[:width]:<{width}} | {b}"


def diff_view(repo: Path, commit: str, rec: Record) -> Iterator[str]:
    """`git show --stat` beside a one-line-per-finding list, then every finding in full."""
    stat = git(repo, "show", "--stat=76,60", "--format=%h %s%n%an %ci", "--first-parent", commit).rstrip().splitlines()
    summary = rec["summary"]
    brief = [f"exit {rec['exit']}  {rec['seconds']:.1f}s", *(summary[i:i + 100] for i in range(0, len(summary), 100)),
             *(note[:100] for note in rec.get("notes", [])), ""]
    brief += [f"{f.get('severity', '?')[:4]} {f.get('rule', '?')} {f.get('file', '')}:{f.get('line') or ''} "
              f"{(f.get('details') or {}).get('object', '')} [{(f.get('details') or {}).get('kustomization', '')}]"
              for f in rec["findings"]]
    yield from side_by_side(stat, brief)
    if rec["stderr_tail"]:
        yield from ("", "stderr:", rec["stderr_tail"])
    for f in rec["findings"]:
        yield ""
        yield f"{f.get('severity')} {f.get('rule')} {f.get('file')}:{f.get('line')}"
        yield f"  {f.get('message', '')}"
        if f.get("details"):
            yield f"  details: {json.dumps(f.get('details'), sort_keys=True)}"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repo", type=Path, help="git repository to replay (a clone with a work tree or bare)")
    ap.add_argument("--last", type=int, help="the last N first-parent commits (of HEAD or of --range; default 100)")
    ap.add_argument("--range", dest="span", help="a rev-list range A..B, first-parent (all of it unless --last)")
    ap.add_argument("--commits", nargs="+", metavar="REV", help="exactly these commits (each judged against its first parent)")
    ap.add_argument("--coredns-gen-src", type=Path, default=HERE, help="checkout whose gen/ is run (default: this one)")
    ap.add_argument("--out", type=Path, help="JSONL file to append to (default: replay-<repo>.jsonl here)")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per guard run")
    ap.add_argument("--guard-arg", action="append", default=[], help="extra guard argument (repeatable)")
    ap.add_argument("--base-branch", metavar="NAME", help="judge against origin/NAME moved to each parent (the clone's "
                    "remote-tracking ref is rewritten), as CI names a pull request's target branch")
    ap.add_argument("--cache", type=Path, metavar="DIR", help="keep the guard's cache here between runs (one folder "
                    "per repository and code version: two code versions must never share cached builds)")
    ap.add_argument("--table", nargs="+", type=Path, metavar="JSONL", help="only print the table of these files")
    ap.add_argument("--diff", metavar="COMMIT", help="show one commit's change beside its findings")
    ap.add_argument("--from", dest="from_file", type=Path, help="with --diff: take the run from this JSONL")
    args = ap.parse_args(argv)
    if args.table:
        print("\n".join(table(load(args.table))))
        return 0
    if args.repo is None:
        ap.error("--repo is required unless --table is given")
    repo: Path = args.repo.resolve()
    src: Path = args.coredns_gen_src.resolve()
    if args.diff:
        sha = git(repo, "rev-parse", args.diff).strip()
        known = [r for r in load([args.from_file]) if r["commit"] == sha] if args.from_file else []
        rec = known[-1] if known else run_one(repo, sha, src, Path(tempfile.mkdtemp(prefix="replay-guard-cache-")),
                                              args.timeout, args.guard_arg, args.base_branch)
        print("\n".join(diff_view(repo, sha, rec)))
        return 0
    if args.commits:
        shas = [git(repo, "rev-parse", f"{rev}^{{commit}}").strip() for rev in args.commits]
    else:
        shas = commits(repo, args.last or (None if args.span else 100), args.span)
    out: Path = args.out or Path.cwd() / f"replay-{repo.name}.jsonl"
    print(f"replaying {len(shas)} commits of {repo} with {src}/gen -> {out}", file=sys.stderr)
    records = replay(repo, shas, src, out, args.timeout, args.guard_arg, args.base_branch, args.cache)
    print("\n".join(table(records)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
