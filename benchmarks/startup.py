#!/usr/bin/env python3
"""Benchmark the start-up of `coredns-gen guard` (keep it small), every figure from one run.

Each command runs RUNS times in a fresh interpreter, the commands interleaved so that all of
them see the same machine load; each figure is the median wall time:

  python3 -c pass                        the bare interpreter, with this machine's site-packages
  python3 -c "import gen.guard"          + every module the guard's work imports
  the same without byte-code             a copy of gen/ without __pycache__ under
                                         PYTHONDONTWRITEBYTECODE=1: every module compiled, every run
  python3 -m gen guard --help            + Typer, the CLI and its help text (Typer draws it with rich)
  python3 -m gen guard --base no-such    the whole path to the guard's first git call (exit 2)
  python3 -m gen lint Corefile           lint of a five-line Corefile: start-up, then a few ms of work

It prints each figure, its ratio to the bare interpreter and what it adds to it, and how many
modules `import gen.guard` loads. `--baseline DIR` times another checkout of coredns-gen the
same way in the same run (for instance `git worktree add /tmp/before main`) and prints after
against before. Each checkout's modules are byte-compiled first, as an installed coredns-gen
has them (pip compiles a wheel; an editable checkout under PYTHONDONTWRITEBYTECODE=1 would
recompile every module in every run). Run on demand:

    python3 benchmarks/startup.py [--runs 20] [--baseline DIR]
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
COMMANDS = {
    "bare": ["-c", "pass"],
    "import": ["-c", "import gen.guard"],
    "source": ["-c", "import gen.guard"],
    "help": ["-m", "gen", "guard", "--help"],
    "guard": ["-m", "gen", "guard", "--base", "no-such-ref"],
    "lint": ["-m", "gen", "lint", "Corefile"],
}
LABELS = {
    "bare": "python3 -c pass",
    "import": 'python3 -c "import gen.guard"',
    "source": "  the same, compiling every module (no .pyc)",
    "help": "python3 -m gen guard --help",
    "guard": "python3 -m gen guard --base no-such-ref (exit 2)",
    "lint": "python3 -m gen lint Corefile",
}
EXPECTED = {"bare": 0, "import": 0, "source": 0, "help": 0, "guard": 2, "lint": 0}
COUNT = "import sys; before = len(sys.modules); import gen.guard; print(len(sys.modules) - before, gen.guard.__file__)"


def scratch_repo(root: Path) -> Path:
    """A one-commit git repository for the guard to start in (it refuses the unknown ref), with
    a Corefile for lint."""
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@example.invalid", "GIT_COMMITTER_NAME": "b",
           "GIT_COMMITTER_EMAIL": "b@example.invalid", "GIT_CONFIG_GLOBAL": "/dev/null"}
    repo = root / "repo"
    repo.mkdir()
    (repo / "Corefile").write_text(".:53 {\n    errors\n    forward . 10.0.0.53\n    cache 30\n}\n")
    for args in (["init", "-q"], ["add", "Corefile"], ["commit", "-qm", "one"]):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)
    return repo


def environment(checkout: Path, cache: Path) -> dict[str, str]:
    """The checkout first on the path, its own empty code cache, no CI or terminal switches."""
    env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_ACTIONS", "PYTHONPATH")}
    return {**env, "PYTHONPATH": str(checkout), "COREDNS_GEN_CODE_CACHE": str(cache)}


def module_count(checkout: Path, env: dict[str, str], cwd: Path) -> int:
    out = subprocess.run([sys.executable, "-c", COUNT], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout.split()
    if not Path(out[1]).resolve().is_relative_to(checkout.resolve()):
        sys.exit(f"gen.guard came from {out[1]}, not from {checkout}: is an installed copy shadowing it?")
    return int(out[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="fresh interpreters per command (the median is reported)")
    parser.add_argument("--baseline", type=Path, help="another checkout of coredns-gen to time the same way (the 'before')")
    args = parser.parse_args()
    checkouts = {"after": REPO} if args.baseline is None else {"before": args.baseline.resolve(), "after": REPO}
    with tempfile.TemporaryDirectory(prefix="coredns-gen-startup-") as tmp:
        repo = scratch_repo(Path(tmp))
        envs = {(name, c): environment(path, Path(tmp) / f"cache-{name}") for name, path in checkouts.items() for c in COMMANDS}
        counts = {}
        for name, path in checkouts.items():
            compileall.compile_dir(path / "gen", quiet=1)
            counts[name] = module_count(path, envs[(name, "import")], repo)
            source = Path(tmp) / f"source-{name}"
            shutil.copytree(path / "gen", source / "gen", ignore=shutil.ignore_patterns("__pycache__"))
            envs[(name, "source")] = {**environment(source, Path(tmp) / f"cache-{name}"), "PYTHONDONTWRITEBYTECODE": "1"}
        times: dict[tuple[str, str], list[float]] = {(n, c): [] for n in checkouts for c in COMMANDS}
        for _ in range(args.runs):
            for name in checkouts:
                for command, argv in COMMANDS.items():
                    start = time.perf_counter()
                    proc = subprocess.run([sys.executable, *argv], cwd=repo, env=envs[(name, command)], capture_output=True)
                    times[(name, command)].append(time.perf_counter() - start)
                    if proc.returncode != EXPECTED[command]:
                        sys.exit(f"{name}: {LABELS[command]} exited {proc.returncode}:\n{proc.stderr.decode()}")
    median = {key: statistics.median(values) for key, values in times.items()}
    print(f"start-up of coredns-gen guard, median of {args.runs} fresh interpreters each, one run "
          f"(load average {os.getloadavg()[0]:.2f}):")
    for name, path in checkouts.items():
        bare = median[(name, "bare")]
        print(f"\n{name}: {path}  (`import gen.guard` loads {counts[name]} modules)")
        for command, label in LABELS.items():
            seconds = median[(name, command)]
            extra = "" if command == "bare" else f"  {seconds / bare:4.1f}x bare, +{(seconds - bare) * 1000:4.0f} ms"
            print(f"  {label:52} {seconds * 1000:6.0f} ms{extra}")
    if "before" in checkouts:
        print("\nafter / before (the time above the bare interpreter in brackets):")
        for command, label in LABELS.items():
            if command == "bare":
                continue
            ratio = median[("after", command)] / median[("before", command)]
            added = (median[("after", command)] - median[("after", "bare")]) / \
                (median[("before", command)] - median[("before", "bare")])
            print(f"  {label:52} {ratio:5.2f}  ({added:.2f})")


if __name__ == "__main__":
    main()
