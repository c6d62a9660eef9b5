"""The runs of benchmarks/guard_fleet.py beyond the one-file and full ones: a sharded
full run merged, flate's changed-only diff of the touched cluster, the findings-heavy pair."""

from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile
from pathlib import Path


def _fleet():  # type: ignore[no-untyped-def]
    import guard_fleet  # the helpers of the script that imports this module (loaded by then)

    return guard_fleet


def sharded(tmp: Path, guard: list[str], env: dict[str, str], whole: tuple[float, int, int, str]) -> None:
    """Run 1 (full, cold) as four shards on four empty caches, then guard-merge, against run 1."""
    fleet = _fleet()
    times, peaks, files = [], [], []
    for k in range(1, 5):
        cache = tmp / f"cache-shard-{k}"
        out = tmp / f"shard-{k}.json"
        t = fleet.timed(f"full cold, shard {k}/4", [*guard, "--head", "full", "--shard", f"{k}/4", "--result", str(out)],
                        {**env, "COREDNS_GEN_CACHE_DIR": str(cache)})
        times.append(t[0])
        peaks.append(t[1])
        files.append(str(out))
        shutil.rmtree(cache, ignore_errors=True)
    merge = [sys.executable, "-m", "gen", "guard-merge", *files, "--format", "text"]
    merged = fleet.timed("guard-merge of the 4 shards", merge, env)
    same = _scrub(merged[3]) == _scrub(whole[3]) and merged[2] == whole[2]
    print(f"sharded N=4: slowest shard {max(times):.2f} s + merge {merged[0]:.2f} s = {max(times) + merged[0]:.2f} s on 4 machines "
          f"(sum {sum(times):.2f} s on one) vs unsharded {whole[0]:.2f} s; peak RSS {max(peaks) / 1024:.0f} MiB; "
          f"merged verdict {'==' if same else '!='} unsharded", flush=True)


def _scrub(text: str) -> str:
    return re.sub(r"coredns-gen-guard-[^/]+/", "TMP/", text)


def flate(root: Path, cluster: str, repeat: int = 1) -> tuple[float, float] | None:
    """flate's changed-only diff (`--path-orig`) of the touched cluster, base -> one-file, cold
    (empty --cache-dir) then warm (the same cache), `repeat` times each: the median times, or
    None when flate is not installed."""
    home_bin = Path.home() / "go" / "bin" / "flate"
    exe = shutil.which("flate") or (str(home_bin) if home_bin.is_file() else None)
    if exe is None:
        print("flate: not on PATH (go install github.com/home-operations/flate/cmd/flate@latest): skipped", flush=True)
        return None
    fleet = _fleet()
    with tempfile.TemporaryDirectory(prefix="flate-") as work:
        base, head, cache = Path(work) / "base", Path(work) / "head", Path(work) / "cache"
        for rev, dest in (("base", base), ("one-file", head)):
            fleet.git(root, "worktree", "add", "-q", "--detach", str(dest), rev)
        argv = [exe, "diff", "ks", "--path", str(head / "clusters" / cluster), "--path-orig", str(base / "clusters" / cluster),
                "--cache-dir", str(cache)]
        colds, warms = [], []
        for _ in range(repeat):
            shutil.rmtree(cache, ignore_errors=True)
            colds.append(fleet.timed(f"flate changed-only {cluster}, cold", argv, dict(os.environ), ok=(0, 1)))
        for _ in range(repeat):
            warms.append(fleet.timed(f"flate changed-only {cluster}, warm", argv, dict(os.environ), ok=(0, 1)))
        for dest in (base, head):
            fleet.git(root, "worktree", "remove", "--force", str(dest))
    cold = fleet.median(f"flate changed-only {cluster}, cold", colds)
    warm = fleet.median(f"flate changed-only {cluster}, warm", warms)
    return cold[0], warm[0]


def make_heavy(root: Path, pruned: int, per: int = 1000) -> None:
    """One cluster; Kustomizations of `per` ConfigMap files each, 2 x `pruned` files in all; head
    stops listing every second file (the files stay): `pruned` configmap-pruned findings."""
    fleet = _fleet()
    fleet.git(root, "init", "-q", "-b", "main")
    fleet.git(root, "config", "gc.auto", "0")  # 10,000 files: no background gc racing the one below
    fleet.write(root, "clusters/one/flux-system/kustomization.yaml",
                "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - gotk-sync.yaml\n")
    fleet.write(root, "clusters/one/flux-system/gotk-sync.yaml",
                "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: flux-system\n"
                "  namespace: flux-system\nspec:\n  interval: 1m\n  url: ssh://git@example.invalid/fleet\n  ref:\n"
                "    branch: main\n---\n" + fleet.flux_ks("flux-system", "./clusters/one"))
    total = 2 * pruned
    listings: dict[str, list[str]] = {}
    for group, start in enumerate(range(0, total, per)):
        folder = f"apps/a{group:03d}"
        fleet.write(root, f"clusters/one/a{group:03d}.yaml", fleet.flux_ks(f"a{group:03d}", "./" + folder))
        names = [f"cm-{i:05d}.yaml" for i in range(start, min(start + per, total))]
        for name in names:
            fleet.write(root, f"{folder}/{name}", f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name[:-5]}\n"
                                                  "  namespace: apps\ndata:\n  k: v\n")
        listings[f"{folder}/kustomization.yaml"] = names
    for keep in (slice(None), slice(None, None, 2)):
        for kfile, names in listings.items():
            fleet.write(root, kfile, "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n"
                        + "".join(f"  - {n}\n" for n in names[keep]))
        fleet.git(root, "add", "-A")
        fleet.git(root, "commit", "-q", "-m", "base" if keep == slice(None) else "prune half")
        if keep == slice(None):
            fleet.git(root, "tag", "base")
    fleet.git(root, "gc", "-q")


def heavy(tmp: Path, env: dict[str, str]) -> None:
    """500 and 5,000 pruned files in one run; the time per finding of the second over the first."""
    fleet = _fleet()
    per_finding = []
    for pruned in (500, 5000):
        root = tmp / f"heavy-{pruned}"
        root.mkdir()
        make_heavy(root, pruned)
        t = fleet.timed(f"findings-heavy, {pruned:,} pruned, cold",
                        [sys.executable, "-m", "gen", "guard", "--repo", str(root), "--base", "base", "--no-cache"], env)
        found = sum(1 for line in t[3].splitlines() if ": error:" in line)
        per_finding.append(t[0] / max(found, 1))
        print(f"  {found:,} findings, {per_finding[-1] * 1000:.2f} ms per finding", flush=True)
        shutil.rmtree(root, ignore_errors=True)
    print(f"findings-heavy: per finding, 5,000 / 500 = {per_finding[1] / per_finding[0]:.2f} (target <= 2)", flush=True)
