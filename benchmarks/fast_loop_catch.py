#!/usr/bin/env python3
"""How many rule regressions the fast loop catches, and how many the pipeline tests add (on demand).

Each mutant breaks one rule in a simple scripted way:
  silent   `check` yields no finding at all;
  invert   the first `if` of `violations` (else of `check`) tests the opposite.
For each mutant, in a scratch copy of HEAD (`git archive`, so the checkout is never touched):
  fast     the fast-loop tests (`-m "not pipeline and not slow"`) that call the rule, as one
           recorded fast-loop run found them (--record: benchmarks/rule_calls.py), else those of
           every test file that names the rule's id or module, with `-x`;
  full     when the fast loop missed it: the pipeline tests of every test file that names the
           rule's id or module, with `-x` (a lower bound for the full suite: a pipeline test
           elsewhere could still catch it).
A mutant is caught when pytest fails (exit 1) on the fast tests that pass unmutated: the fast
tests are run once per set without the mutant, and those that fail there (a test of the wheel in a
scratch copy, a part this machine lacks) are deselected from the mutant's runs. The scratch copy has
no built helper of its own: set COREDNS_GEN_HELPER to one (scripts/setup-dev prints where it is).
Prints one line per mutant and the totals; with --json FILE, writes them too.

    python3 benchmarks/fast_loop_catch.py                      # every guard and lint rule, both kinds
    python3 benchmarks/fast_loop_catch.py --kinds silent --rules gen.guard.rules.configmap_pruned
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FAST = "not pipeline and not slow"


def rule_modules() -> list[str]:
    out = []
    for package in ("gen/guard/rules", "gen/lint/rules"):
        for path in sorted((REPO / package).glob("*.py")):
            if path.name != "__init__.py":
                out.append(f"{package.replace('/', '.')}.{path.stem}")
    return out


def mutate(source: str, kind: str) -> str | None:
    """The mutant's source, or None when the rule has nothing to mutate that way."""
    tree = ast.parse(source)
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    lines = source.splitlines(keepends=True)
    if kind == "silent":
        check = functions.get("check")
        if check is None:
            return None
        first, last = check.body[0].lineno, check.body[-1].end_lineno or check.body[-1].lineno
        if isinstance(check.body[0], ast.Expr) and isinstance(check.body[0].value, ast.Constant):
            first = check.body[1].lineno if len(check.body) > 1 else last + 1
        indent = " " * check.body[0].col_offset
        return "".join(lines[:first - 1]) + f"{indent}return\n{indent}yield\n" + "".join(lines[last:])
    target = functions.get("violations") or functions.get("check")
    if target is None:
        return None
    found = next((n for n in ast.walk(target) if isinstance(n, ast.If)), None)
    if found is None:
        return None
    test = found.test
    if test.lineno != test.end_lineno:  # keep the edit to one line
        return None
    line = lines[test.lineno - 1]
    return "".join(lines[:test.lineno - 1]) + line[:test.col_offset] + "not (" + \
        line[test.col_offset:test.end_col_offset] + ")" + line[test.end_col_offset:] + "".join(lines[test.lineno:])


def scratch_copy(dest: Path, ref: str = "HEAD") -> None:
    blob = subprocess.run(["git", "archive", ref], cwd=REPO, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=BytesIO(blob)) as tar:
        tar.extractall(dest, filter="data")


TIMEOUT = 600.0


def pytest(copy: Path, args: list[str], env: dict[str, str]) -> tuple[int, float]:
    """(pytest's exit code, seconds); -1 when it ran out of time (neither caught nor missed)."""
    start = time.monotonic()
    try:
        proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
                              cwd=copy, env=env, capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return -1, time.monotonic() - start
    return proc.returncode, time.monotonic() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kinds", default="silent,invert")
    parser.add_argument("--rules", nargs="*", default=None, help="rule modules (default: every guard and lint rule)")
    parser.add_argument("--calls", type=Path, help="a recorded {rule: [tests]} file")
    parser.add_argument("--record", action="store_true", help="record which fast tests call each rule first (one fast-loop run)")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--ref", default="HEAD", help="the commit whose code and tests are mutated (default HEAD)")
    parser.add_argument("--timeout", type=float, default=TIMEOUT, help="seconds per pytest run (default 600)")
    opts = parser.parse_args()
    globals()["TIMEOUT"] = opts.timeout
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    with tempfile.TemporaryDirectory(prefix="fast-loop-catch-") as tmp:
        copy = Path(tmp) / "repo"
        scratch_copy(copy, opts.ref)
        if opts.record:
            opts.calls = Path(tmp) / "calls.json"
            code, took = pytest(copy, ["-m", FAST, "-p", "benchmarks.rule_calls"], {**env, "RULE_CALLS_OUT": str(opts.calls)})
            print(f"recorded the fast loop's rule calls: exit {code}, {took:.0f} s", flush=True)
        calls: dict[str, list[str]] | None = json.loads(opts.calls.read_text()) if opts.calls else None
        results = []
        baselines: dict[tuple[str, ...], list[str]] = {}

        def failing(tests: list[str]) -> list[str]:
            """The fast tests of this set that fail unmutated (asked once per set), as --deselect options."""
            key = tuple(tests)
            if key not in baselines:
                proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rfE",
                                       "-m", FAST, *tests], cwd=copy, env=env, capture_output=True, text=True,
                                      timeout=TIMEOUT, check=False)
                ids = re.findall(r"^(?:FAILED|ERROR) (\S+)", proc.stdout, re.M)
                baselines[key] = [f"--deselect={i}" for i in ids]
                if ids:
                    print(f"unmutated, {len(ids)} fast tests fail and are left out: {' '.join(ids)[:300]}", flush=True)
            return baselines[key]

        for module in opts.rules or rule_modules():
            path = copy / (module.replace(".", "/") + ".py")
            original = path.read_text()
            rule_id = re.search(r'^ID = "([^"]+)"', original, re.M)
            names = [module.rsplit(".", 1)[1]] + ([rule_id.group(1)] if rule_id else [])
            for kind in opts.kinds.split(","):
                mutant = mutate(original, kind)
                if mutant is None:
                    continue
                files = sorted(str(p.relative_to(copy)) for p in (copy / "tests").rglob("test_*.py")
                               if any(n in p.read_text() for n in names))
                tests = calls.get(module, []) if calls is not None else files
                left_out = failing(tests) if tests else []  # asked unmutated, before the mutant is written
                path.write_text(mutant)
                try:
                    fast_code, fast_s = pytest(copy, ["-x", "-m", FAST, *left_out, *tests], env) if tests else (5, 0.0)
                    full_code, full_s = fast_code, 0.0
                    if fast_code != 1:
                        full_code, full_s = pytest(copy, ["-x", "-m", "pipeline and not slow", *files], env) \
                            if files else (5, 0.0)
                finally:
                    path.write_text(original)
                row = {"rule": module, "kind": kind, "fast_selected": len(tests), "fast": fast_code == 1,
                       "full": full_code == 1, "fast_s": round(fast_s, 1), "full_s": round(full_s, 1)}
                results.append(row)
                print(f"{module:55} {kind:7} fast {'caught' if row['fast'] else 'MISSED':6} ({len(tests)} tests/files, {fast_s:.0f} s)  "
                      f"full {'caught' if row['full'] else 'MISSED'}", flush=True)
    fast = sum(r["fast"] for r in results)
    full = sum(r["full"] for r in results)
    print(f"\n{len(results)} mutants: the fast loop catches {fast}, the full suite at least {full}"
          + (f" (fast/full {fast / full:.0%})" if full else ""))
    if opts.json:
        opts.json.write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
