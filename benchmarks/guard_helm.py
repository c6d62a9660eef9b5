#!/usr/bin/env python3
"""Benchmark the guard's Helm layer on a fleet with a HelmRelease per app, all figures from one run.

Generates a git repository of CLUSTERS clusters, each a Flux bootstrap and a Kustomization applying
ten HelmReleases (one per app) of chart `app` from an HTTP HelmRepository whose origin
is an HTTP chart repository this script serves on loopback: the chart at 1.0.0 and 1.1.0, packaged
and indexed by Helm's own library through coredns-gen-helper. Then times the real CLI
(`python -m gen guard`) on two one-file changes of cluster c042:

  values edit: its `web` HelmRelease drops a ConfigMap from its values (refused: exit 1);
  chart bump:  its `web` HelmRelease moves to chart 1.1.0 (which renders the same objects: exit 0);

each cold (empty cache: every Kustomization built, both charts fetched from the mirror, both
revisions rendered) and warm (the same run again: the fleet index, the kept chart and renders).
Medians of --repeat runs. The peer, in the same run when `flate` is on PATH or in ~/go/bin:
`flate diff hr` of the touched cluster (--path head --path-orig base, its own cache; cold then
warm), which renders the changed HelmReleases with Helm's SDK and judges nothing.
Targets: warm <= 1 s, cold <= 3 s at 200 clusters.

Usage: python3 benchmarks/guard_helm.py [--clusters 200] [--repeat 3]
"""

from __future__ import annotations

import argparse
import http.server
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO)]
from gen.tools import helper_binary  # noqa: E402  (this checkout, as the timed runs use)

APPS = ["dns", "ingress", "monitoring", "logging", "certs", "policy", "storage", "backup", "registry", "web"]
GIT_ENV = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@example.invalid",
           "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@example.invalid", "GIT_CONFIG_GLOBAL": "/dev/null",
           "GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "gc.auto", "GIT_CONFIG_VALUE_0": "0"}
CHART_TEMPLATE = """{{- range $name, $cm := .Values.configMaps }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ $.Release.Name }}-{{ $name }}
data: {{ toYaml $cm | nindent 2 }}
{{- end }}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}
spec:
  replicas: 2
  selector: {matchLabels: {app: {{ .Release.Name }}}}
  template:
    metadata: {labels: {app: {{ .Release.Name }}}}
    spec:
      containers:
        - name: app
          image: "{{ .Values.image }}"
---
apiVersion: v1
kind: Service
metadata:
  name: {{ .Release.Name }}
spec:
  selector: {app: {{ .Release.Name }}}
  ports: [{port: 80}]
"""


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, env=GIT_ENV, check=True, capture_output=True)


def helm(request: dict[str, object]) -> None:
    binary = helper_binary(build=True)
    assert binary is not None, "coredns-gen-helper is not built (scripts/setup-dev)"
    out = subprocess.run([str(binary), "helm"], input=json.dumps(request) + "\n", capture_output=True, text=True,
                         check=True)
    assert not json.loads(out.stdout).get("error"), out.stdout


def make_mirror(folder: Path, scratch: Path) -> None:
    folder.mkdir(parents=True)
    for version in ("1.0.0", "1.1.0"):
        chart = scratch / f"app-{version}"
        (chart / "templates").mkdir(parents=True)
        (chart / "Chart.yaml").write_text(f"apiVersion: v2\nname: app\nversion: {version}\n")
        (chart / "values.yaml").write_text("image: example.invalid/app:1\nconfigMaps: {}\n")
        (chart / "templates" / "all.yaml").write_text(CHART_TEMPLATE)
        helm({"op": "package", "chart": str(chart), "dest": str(folder)})
    helm({"op": "index", "dest": str(folder), "url": ""})


def release(app: str, cluster: str, version: str, with_config: bool = True) -> str:
    config = f"    configMaps:\n      settings: {{cluster: {cluster}}}\n" if with_config else "    configMaps: {}\n"
    return (f"apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: {app}\n  namespace: {app}\n"
            f"spec:\n  interval: 1h\n  chart:\n    spec:\n      chart: app\n      version: {version}\n"
            "      sourceRef: {kind: HelmRepository, name: charts, namespace: flux-system}\n"
            f"  values:\n    image: example.invalid/{app}:1\n" + config)


def make_fleet(root: Path, clusters: int, origin: str) -> None:
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    files: dict[str, str] = {}
    for i in range(clusters):
        c = f"c{i:03d}"
        files[f"clusters/{c}/flux-system/kustomization.yaml"] = (
            "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - gotk-sync.yaml\n")
        files[f"clusters/{c}/flux-system/gotk-sync.yaml"] = (
            "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: flux-system\n"
            "  namespace: flux-system\nspec:\n  interval: 1m\n  url: ssh://git@example.invalid/fleet\n  ref:\n"
            "    branch: main\n---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n"
            f"  name: flux-system\n  namespace: flux-system\nspec:\n  interval: 10m\n  path: ./clusters/{c}\n"
            "  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n")
        files[f"clusters/{c}/apps.yaml"] = (
            "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: apps\n"
            f"  namespace: flux-system\nspec:\n  interval: 10m\n  path: ./apps/{c}\n  prune: true\n"
            "  sourceRef:\n    kind: GitRepository\n    name: flux-system\n")
        files[f"apps/{c}/kustomization.yaml"] = (
            "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - repository.yaml\n"
            + "".join(f"  - {app}.yaml\n" for app in APPS))
        files[f"apps/{c}/repository.yaml"] = (
            "apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata:\n  name: charts\n"
            f"  namespace: flux-system\nspec:\n  interval: 1h\n  url: {origin}\n")
        for app in APPS:
            files[f"apps/{c}/{app}.yaml"] = release(app, c, "1.0.0")
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "fleet")
    git(root, "tag", "base")
    target = f"c{min(42, clusters - 1):03d}"
    for branch, text in (("values-edit", release("web", target, "1.0.0", with_config=False)),
                         ("chart-bump", release("web", target, "1.1.0"))):
        git(root, "checkout", "-q", "-b", branch, "base")
        (root / f"apps/{target}/web.yaml").write_text(text)
        git(root, "commit", "-q", "-am", branch)
    git(root, "checkout", "-q", "main")


def timed(root: Path, head: str, cache: Path) -> tuple[float, int]:
    env = {**os.environ, "COREDNS_GEN_CACHE_DIR": str(cache)}
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "gen", "guard", "--repo", str(root), "--base", "base", "--head", head,
                           "--format", "json"],
                          check=False, env=env, capture_output=True, text=True, cwd=REPO)
    took = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"guard exited {proc.returncode}: {proc.stderr[-2000:]}")
    return took, proc.returncode


def serve(folder: Path) -> http.server.ThreadingHTTPServer:
    """The chart repository on 127.0.0.1 (a thread of this process)."""
    def handler(*a: object, **kw: object) -> http.server.SimpleHTTPRequestHandler:
        class Quiet(http.server.SimpleHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
                pass
        return Quiet(*a, directory=str(folder), **kw)  # type: ignore[arg-type]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def flate_times(root: Path, head: str, cluster: str, repeat: int) -> tuple[list[float], list[float]] | None:
    """flate's `diff hr` of one cluster, base -> head, cold then warm; None without flate."""
    exe = shutil.which("flate") or (str(Path.home() / "go/bin/flate") if (Path.home() / "go/bin/flate").is_file() else None)
    if exe is None:
        return None
    with tempfile.TemporaryDirectory(prefix="flate-") as work:
        trees = {rev: Path(work) / rev for rev in ("base", head)}
        for rev, dest in trees.items():
            git(root, "worktree", "add", "-q", "--detach", str(dest), rev)
        cache = Path(work) / "cache"
        argv = [exe, "diff", "hr", "--no-progress", "--path", str(trees[head] / "clusters" / cluster),
                "--path-orig", str(trees["base"] / "clusters" / cluster), "--cache-dir", str(cache)]
        cold, warm = [], []
        for _ in range(repeat):
            shutil.rmtree(cache, ignore_errors=True)
            for out in (cold, warm):
                start = time.perf_counter()
                proc = subprocess.run(argv, check=False, capture_output=True, text=True)
                out.append(time.perf_counter() - start)
                if proc.returncode not in (0, 1) or "error" in proc.stderr.lower():
                    raise SystemExit(f"flate exited {proc.returncode}: {proc.stderr[-1500:]}")
        for dest in trees.values():
            git(root, "worktree", "remove", "--force", str(dest))
    return cold, warm


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--clusters", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="guard-helm-") as tmp:
        work = Path(tmp)
        make_mirror(work / "mirror", work / "charts")
        server = serve(work / "mirror")
        make_fleet(work / "fleet", args.clusters, f"http://127.0.0.1:{server.server_address[1]}")
        print(f"{args.clusters} clusters x {len(APPS)} HelmReleases; load average {os.getloadavg()[0]:.2f}")
        for head, expect in (("values-edit", 1), ("chart-bump", 0)):
            cold, warm = [], []
            for _ in range(args.repeat):
                cache = work / "cache"
                shutil.rmtree(cache, ignore_errors=True)
                took, code = timed(work / "fleet", head, cache)
                assert code == expect, (head, code)
                cold.append(took)
                took, code = timed(work / "fleet", head, cache)
                assert code == expect, (head, code)
                warm.append(took)
            print(f"{head:12s} guard cold median {statistics.median(cold):.2f} s (min {min(cold):.2f}, max {max(cold):.2f}); "
                  f"warm median {statistics.median(warm):.2f} s (min {min(warm):.2f}, max {max(warm):.2f}); exit {expect}")
            peer = flate_times(work / "fleet", head, f"c{min(42, args.clusters - 1):03d}", args.repeat)
            if peer is None:
                print("  flate: not installed (go install github.com/home-operations/flate/cmd/flate@latest): no peer")
            else:
                print(f"  flate diff hr (one cluster) cold median {statistics.median(peer[0]):.2f} s; "
                      f"warm median {statistics.median(peer[1]):.2f} s; guard/flate warm "
                      f"{statistics.median(warm) / statistics.median(peer[1]):.2f}, cold "
                      f"{statistics.median(cold) / statistics.median(peer[0]):.2f}")
        server.shutdown()


if __name__ == "__main__":
    main()
