"""Benchmark: render and validate 1,000 values files vs ten `kubectl kustomize` builds, in one run.

Goal: the 1,000-file render, in memory, with schema and object validation, takes less
time than ten kustomize builds of one overlay. Run on demand:

    python3 benchmarks/render_bench.py [--files 1000] [--builds 10]

The render runs in a fresh interpreter each time, so imports count. It gets the state an
installed coredns-gen has: the package's modules byte-compiled (pip does that for a wheel;
an editable checkout under PYTHONDONTWRITEBYTECODE=1 would recompile them in every run) and its
own cache folder (compiled validators and templates, see gen/codecache.py), empty for the first
run, which is reported on its own line: that is what a fresh CI machine pays once.
"""

from __future__ import annotations

import argparse
import compileall
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from gen.tools import kustomize_command  # noqa: E402


RENDER = """
import sys, time; sys.path.insert(0, {repo!r})
from pathlib import Path
from gen.render.project import render_files
root = Path({root!r})
paths = sorted(root.glob("dns/*.yaml"))
count = len(render_files(paths, root))
start = time.perf_counter()
render_files(paths, root)  # same interpreter again: schemas compiled, templates loaded
print(count, time.perf_counter() - start)
"""


def write_fleet(root: Path, count: int) -> list[Path]:
    """count values files cycling through the three examples, each its own cluster and zones."""
    examples = {p: (REPO_ROOT / f"examples/{p}.yaml").read_text() for p in ("talos", "k3s", "aks")}
    names = {"talos": "prod-talos", "k3s": "edge-k3s", "aks": "aks-westeu"}
    paths = []
    for i in range(count):
        platform = ("talos", "k3s", "aks")[i % 3]
        text = examples[platform].replace(f"cluster: {names[platform]}", f"cluster: c{i:04d}")
        text = text.replace(f"examples/clusters/{names[platform]}/", f"clusters/c{i:04d}/")
        text = text.replace(".example.", f".z{i}.")
        path = root / f"dns/c{i:04d}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        paths.append(path)
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--builds", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3, help="best of N runs for each figure (machine noise)")
    args = parser.parse_args()
    compileall.compile_dir(REPO_ROOT / "gen", quiet=1)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        write_fleet(root, args.files)
        env = {**os.environ, "COREDNS_GEN_CODE_CACHE": str(Path(tmp) / "cache")}
        overlay = REPO_ROOT / "overlays/talos/prod-talos"
        argv = [*kustomize_command(), str(overlay)]

        def render() -> tuple[float, int, float]:
            """Seconds for the first render in a fresh interpreter (the second, warm one subtracted)."""
            start = time.perf_counter()
            proc = subprocess.run([sys.executable, "-c", RENDER.format(repo=str(REPO_ROOT), root=str(root))],
                                  check=True, capture_output=True, text=True, env=env)
            count, warm = proc.stdout.split()
            return time.perf_counter() - start - float(warm), int(count), float(warm)

        first_s, files, _ = render()  # empty cache: validators and templates compiled in this run
        render_s = builds_s = warm_s = float("inf")
        for _ in range(args.repeat):  # interleaved, so both see the same machine load
            seconds, files, warm = render()
            render_s, warm_s = min(render_s, seconds), min(warm_s, warm)
            start = time.perf_counter()
            for _ in range(args.builds):
                subprocess.run(argv, check=True, capture_output=True)
            builds_s = min(builds_s, time.perf_counter() - start)
    print(f"render+validate {args.files} values files ({files} output files, fresh interpreter incl. imports): {render_s:.3f} s "
          f"({render_s / args.files * 1000:.2f} ms/file)")
    print(f"  the first run, with an empty cache (compiles validators and templates): {first_s:.3f} s")
    print(f"  the same again in that interpreter (schemas compiled, templates loaded): {warm_s:.3f} s")
    print(f"{args.builds} x `{' '.join(argv[:2])} {overlay.relative_to(REPO_ROOT)}`: {builds_s:.3f} s "
          f"({builds_s / args.builds * 1000:.1f} ms/build)")
    print(f"ratio render/builds: {render_s / builds_s:.2f} ({'PASS' if render_s < builds_s else 'FAIL'}: goal < 1.00)")


if __name__ == "__main__":
    main()
