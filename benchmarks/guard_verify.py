#!/usr/bin/env python3
"""Benchmark `guard --verify` (<= 10 s for 10 clusters) against another checkout.

Generates a git repository of CLUSTERS clusters (a Flux bootstrap each; half own a Talos-style
Corefile of two sequential upstreams, half are k3s clusters with a coredns-custom override that
forwards to two upstreams with `next SERVFAIL`), one commit changing every cluster's upstreams,
judges it once with run_guard, then times only the verify step (gen.guard.verify_heads.verify_views
on the head Corefile views) in a fresh interpreter per run, alternating this checkout and
`--against DIR` (e.g. a `git worktree add /tmp/main main`), so both see the same load. Prints
each run (with a digest of every finding and verify line: the same digest on both sides means
both checked the same), the medians, the ratio this/against, and the load average: no timing
is asserted.

Usage: python3 benchmarks/guard_verify.py [--clusters 10] [--repeat 3] [--against DIR] [--coredns PATH]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
GIT_ENV = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@example.invalid",
           "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@example.invalid", "GIT_CONFIG_GLOBAL": "/dev/null"}
TIMED = """
import sys, time
from pathlib import Path
from gen.guard import GuardOptions, run_guard
from gen.guard.verify_heads import verify_views
result = run_guard(GuardOptions(repo=Path(sys.argv[1]), base="base", head="HEAD", cache_dir=None))
start = time.perf_counter()
found, views = verify_views(result.views, Path(sys.argv[2]))
took = time.perf_counter() - start
import hashlib
lines = sorted(v.details.get("verify", "") for v in views)
said = hashlib.sha256(repr(sorted((f.rule, f.message) for f in found) + lines).encode()).hexdigest()[:12]
print(f"{took:.3f} {len(views)} views, {len(found)} findings, digest {said}, {lines[0]!r}")
"""


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, env=GIT_ENV, check=True, capture_output=True, text=True)


def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def sync(cluster: str) -> str:
    return f"""apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata: {{name: flux-system, namespace: flux-system}}
spec: {{interval: 1m, url: ssh://git@example.invalid/fleet, ref: {{branch: main}}}}
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {{name: flux-system, namespace: flux-system}}
spec:
  interval: 10m
  path: ./clusters/{cluster}
  prune: true
  sourceRef: {{kind: GitRepository, name: flux-system}}
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {{name: dns, namespace: flux-system}}
spec:
  interval: 10m
  path: ./dns/{cluster}
  prune: true
  sourceRef: {{kind: GitRepository, name: flux-system}}
"""


def dns(i: int, second: str) -> dict[str, str]:
    """Cluster i's DNS objects; `second` is the upstream the head commit changes."""
    cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: %s, namespace: kube-system}\ndata:\n"
    if i % 2 == 0:
        body = (cm % "coredns") + ("  Corefile: |\n    .:53 {\n        errors\n        health\n        ready\n"
                                   f"        forward . 10.0.{i}.1 {second} {{\n            policy sequential\n"
                                   "        }\n        cache 30\n    }\n")
    else:
        body = (cm % "coredns-custom") + (f"  corp.server: |\n    corp{i}.example:53 {{\n        errors\n"
                                          f"        forward . 10.0.{i}.1 {second} {{\n            policy sequential\n"
                                          "            next SERVFAIL\n        }\n    }\n")
    return {f"dns/c{i}/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
                                            "resources: [dns.yaml]\n", f"dns/c{i}/dns.yaml": body}


def make_fleet(root: Path, clusters: int) -> None:
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    platforms = "".join(f"    - {{name: c{i}, root: clusters/c{i}/flux-system/gotk-sync.yaml, "
                        f"platform: {'talos' if i % 2 == 0 else 'k3s'}}}\n" for i in range(clusters))
    write(root, ".coredns-gen.yaml", "guard:\n  clusters:\n" + platforms)
    for i in range(clusters):
        write(root, f"clusters/c{i}/flux-system/gotk-sync.yaml", sync(f"c{i}"))
        write(root, f"clusters/c{i}/flux-system/kustomization.yaml",
              "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [gotk-sync.yaml]\n")
        for rel, text in dns(i, "10.1.0.2").items():
            write(root, rel, text)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    git(root, "tag", "base")
    for i in range(clusters):
        for rel, text in dns(i, "10.1.0.3").items():
            write(root, rel, text)
    git(root, "commit", "-q", "-am", "head: every cluster's second upstream changes")


def run(checkout: Path, fleet: Path, coredns: str) -> tuple[float, str]:
    env = {**os.environ, "PYTHONPATH": str(checkout), "COREDNS_GEN_HELPER": str(checkout / "gen/bin/coredns-gen-helper")}
    if not Path(env["COREDNS_GEN_HELPER"]).exists():
        env.pop("COREDNS_GEN_HELPER")
    out = subprocess.run([sys.executable, "-c", TIMED, str(fleet), coredns], env=env, cwd=checkout,
                         check=True, capture_output=True, text=True).stdout.split(maxsplit=1)
    return float(out[0]), out[1].strip()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--clusters", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--against", type=Path, default=None, help="another checkout to time in the same run")
    ap.add_argument("--coredns", default=str(Path.home() / ".cache/coredns-gen/bin/coredns"))
    args = ap.parse_args()
    checkouts = {"this": REPO, **({"against": args.against.resolve()} if args.against else {})}
    with tempfile.TemporaryDirectory(prefix="coredns-gen-bench-verify-") as tmp:
        fleet = Path(tmp) / "fleet"
        make_fleet(fleet, args.clusters)
        print(f"{args.clusters} clusters, CoreDNS {args.coredns}; load average {os.getloadavg()[0]:.1f}", flush=True)
        times: dict[str, list[float]] = {name: [] for name in checkouts}
        for n in range(args.repeat):
            for name, checkout in checkouts.items():
                took, what = run(checkout, fleet, args.coredns)
                times[name].append(took)
                print(f"run {n + 1} {name:8} {took:6.2f} s  ({what}); "
                      f"load {os.getloadavg()[0]:.1f}", flush=True)
        medians = {name: statistics.median(ts) for name, ts in times.items()}
        print("medians: " + ", ".join(f"{name} {m:.2f} s" for name, m in medians.items()))
        if "against" in medians:
            print(f"ratio this/against: {medians['this'] / medians['against']:.2f}")
        print(f"load average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
