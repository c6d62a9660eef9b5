"""The fleet index: a run that explores only the clusters a change reaches says what a run over
the whole fleet says, on random changes to random fleets (gen/guard/reach.py, build/index.py).

Each case is a real git repository: a few clusters, each a flux-system root and app
Kustomizations over shared bases, in the shapes that read across folders (a base, a file of
another cluster's folder, a PatchTransformer's patch file, a configMapGenerator file, a folder
Flux generates the kustomization of). Its base is judged once against another change (which
leaves the index of base), then the case's change is judged with that index and again with no
cache at all; both must give the same findings, the same Corefile views and the same summary.
The same holds with the cache put in an adversarial state first (bits flipped, files cut short
or swapped, another repository's cache laid over it, a lying list of recent commits, the folder
a symlink, a folder replaced by a file) and after guard processes fill one cache side by side.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from gen.guard import GuardOptions, GuardResult, reach, run_guard
from tests.guard.conftest import FLUX_SYSTEM, flux_ks, kustomization
from tests.helpers import build_tree, git

APPS = ("dns", "web", "cache")
SHAPES = ("ref", "generated", "cross", "transformer", "generator")


def _cm(name: str, value: str, namespace: str = "apps") -> str:
    return f"""
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: {name}
          namespace: {namespace}
        data:
          value: "{value}"
    """


def _root(cluster: str) -> dict[str, str]:
    """conftest's flux bootstrap of cluster `prod`, for `cluster`."""
    return {k.replace("/prod/", f"/{cluster}/"): v.replace("./clusters/prod", f"./clusters/{cluster}")
            for k, v in FLUX_SYSTEM.items()}


def _overlay(app: str, cluster: str, shape: str, clusters: list[str]) -> dict[str, str]:
    """One cluster's overlay of an app, in one of the shapes that read across folders."""
    top = f"apps/{app}/overlays/{cluster}"
    files = {f"{top}/cm.yaml": _cm(f"{app}-{cluster}", "1")}
    if shape == "generated":  # no kustomization file: Flux lists every manifest below the path
        files[f"{top}/extra/more.yaml"] = _cm(f"{app}-{cluster}-more", "1")
        return files
    resources = ["../../base", "cm.yaml"]
    extra = ""
    if shape == "cross":  # a file of another cluster's folder
        other = clusters[(clusters.index(cluster) + 1) % len(clusters)]
        resources.append(f"../../../../shared/{other}/shared.yaml")
    if shape == "transformer":  # a PatchTransformer whose patch is a file (the prune that once passed)
        files[f"{top}/xf.yaml"] = f"""
            apiVersion: builtin
            kind: PatchTransformer
            metadata:
              name: xf
            path: ../../base/patch.yaml
            target:
              kind: ConfigMap
              name: {app}-settings
        """
        extra = "transformers:\n  - xf.yaml"
    if shape == "generator":
        files[f"{top}/settings.conf"] = "mode=1\n"
        extra = f"configMapGenerator:\n  - name: {app}-{cluster}-gen\n    namespace: apps\n    files:\n      - settings.conf"
    files[f"{top}/kustomization.yaml"] = kustomization(*resources, extra=extra)
    return files


def _fleet(rng: random.Random) -> tuple[dict[str, str], dict[tuple[str, str], str], list[str]]:
    clusters = [f"c{i}" for i in range(rng.randint(2, 4))]
    files: dict[str, str] = {}
    shapes: dict[tuple[str, str], str] = {}
    for app in APPS:
        files[f"apps/{app}/base/kustomization.yaml"] = kustomization("settings.yaml")
        files[f"apps/{app}/base/settings.yaml"] = _cm(f"{app}-settings", "1")
        files[f"apps/{app}/base/patch.yaml"] = f"""
            apiVersion: v1
            kind: ConfigMap
            metadata:
              name: {app}-settings
            data:
              patched: "1"
        """
    for cluster in clusters:
        files.update(_root(cluster))
        files[f"shared/{cluster}/shared.yaml"] = _cm(f"shared-{cluster}", "1")
        for app in rng.sample(APPS, rng.randint(1, len(APPS))):
            shape = rng.choice(SHAPES)
            shapes[(app, cluster)] = shape
            files[f"clusters/{cluster}/{app}.yaml"] = flux_ks(app, f"./apps/{app}/overlays/{cluster}")
            files.update(_overlay(app, cluster, shape, clusters))
    files["README.md"] = "fleet\n"
    return files, shapes, clusters


def _change(rng: random.Random, files: dict[str, str], shapes: dict[tuple[str, str], str],
            clusters: list[str]) -> dict[str, str | None]:
    """One or two random edits of the kinds a pull request makes."""
    out: dict[str, str | None] = {}
    for _ in range(rng.randint(1, 2)):
        app, cluster = rng.choice(sorted(shapes))
        top = f"apps/{app}/overlays/{cluster}"
        kind = rng.choice(["base", "overlay-cm", "drop-cm", "shared", "patch", "conf", "new-file", "drop-ks",
                           "ks-path", "readme", "new-cluster", "root", "sourceignore", "nothing"])
        if kind == "base":
            out[f"apps/{app}/base/settings.yaml"] = _cm(f"{app}-settings", str(rng.randint(2, 9)))
        elif kind == "overlay-cm":
            out[f"{top}/cm.yaml"] = _cm(f"{app}-{cluster}", str(rng.randint(2, 9)))
        elif kind == "drop-cm":  # a prune: the guard must refuse it either way
            out[f"{top}/cm.yaml"] = None
            if shapes[(app, cluster)] != "generated":
                text = files[f"{top}/kustomization.yaml"].replace("\n          - cm.yaml", "")
                out[f"{top}/kustomization.yaml"] = text
        elif kind == "shared":
            victim = rng.choice(clusters)
            out[f"shared/{victim}/shared.yaml"] = rng.choice([None, _cm(f"shared-{victim}", "2")])
        elif kind == "patch":
            out[f"apps/{app}/base/patch.yaml"] = f"""
                apiVersion: v1
                kind: ConfigMap
                metadata:
                  name: {app}-settings
                  annotations:
                    edited: "yes"
                $patch: delete
            """ if rng.random() < 0.5 else None
        elif kind == "conf":
            out[f"{top}/settings.conf"] = "mode=2\n"
        elif kind == "new-file":
            out[f"{top}/extra/new.yaml"] = _cm(f"{app}-{cluster}-new", "1")
        elif kind == "drop-ks":
            out[f"clusters/{cluster}/{app}.yaml"] = None
        elif kind == "ks-path":
            out[f"clusters/{cluster}/{app}.yaml"] = flux_ks(app, f"./apps/{app}/base")
        elif kind == "readme":
            out["README.md"] = "fleet, edited\n"
        elif kind == "new-cluster":
            out.update(_root("c9"))
            out["clusters/c9/dns.yaml"] = flux_ks("dns", "./apps/dns/base")
        elif kind == "root":
            out[f"clusters/{cluster}/flux-system/gotk-sync.yaml"] = None
        elif kind == "sourceignore":
            out[".sourceignore"] = "shared/\n"
    return out


def _commit(root: Path, edits: dict[str, str | None], name: str) -> None:
    """Apply `edits` (None deletes) and commit them as `name`."""
    for rel, text in edits.items():
        if text is None:
            if (root / rel).exists():
                git(root, "rm", "-r", "-q", rel)
        else:
            build_tree(root, {rel: text})
    git(root, "add", "-A")
    git(root, "commit", "-q", "--allow-empty", "-m", name)


def _start(root: Path, files: dict[str, str], tag: str) -> None:
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    _commit(root, dict(files), tag)
    git(root, "tag", tag)


def _repo(root: Path, files: dict[str, str], change: dict[str, str | None], other: dict[str, str | None]) -> None:
    """base, then the branches `other` and `head` from it."""
    _start(root, files, "base")
    for name, edits in (("other", other), ("head", change)):
        git(root, "checkout", "-q", "-b", name, "base")
        _commit(root, edits, name)


def _said(result: GuardResult) -> tuple[Any, ...]:
    """Everything a run says but how much it built or took from a cache."""
    shown = [(f.rule, f.severity.value, f.file, f.line, f.message, f.hint, sorted(f.details.items()))
             for f in result.shown()]
    stats = {k: v for k, v in result.stats.items() if k not in ("builds", "cache_hits")}
    return tuple(shown), result.summary(), sorted(stats.items())


def _case(seed: int, tmp: Path, plans: list[reach.Reach], monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(seed)
    files, shapes, clusters = _fleet(rng)
    change = _change(rng, files, shapes, clusters)
    other = {"README.md": "another change\n"} if rng.random() < 0.3 else _change(rng, files, shapes, clusters)
    root = tmp / f"repo-{seed}"
    _repo(root, files, change, other)
    cache = tmp / f"cache-{seed}"
    first = run_guard(GuardOptions(repo=root, base="base", head="other", cache_dir=cache))  # leaves base's index
    if other == {"README.md": "another change\n"}:
        assert not [f for f in first.findings if f.rule == "build-failed"], "the random fleet builds at base"
    _both_ways(root, cache, plans, monkeypatch, f"seed {seed}: change {sorted(change)}")


def _both_ways(root: Path, cache: Path, plans: list[reach.Reach], monkeypatch: pytest.MonkeyPatch, what: str) -> None:
    """base..head judged with the cache (its plan recorded in `plans`) and with none: the same."""
    planned = reach.plan

    def recorded(*args: Any, **kwargs: Any) -> reach.Reach:
        found = planned(*args, **kwargs)
        plans.append(found)
        return found

    monkeypatch.setattr(reach, "plan", recorded)
    with_index = run_guard(GuardOptions(repo=root, base="base", head="head", cache_dir=cache))
    monkeypatch.setattr(reach, "plan", planned)
    whole = run_guard(GuardOptions(repo=root, base="base", head="head", cache_dir=None))
    assert _said(with_index) == _said(whole), what


@pytest.mark.parametrize("seed", range(6))
def test_index_run_says_what_the_whole_fleet_run_says(seed: int, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch, batch_bin: Path) -> None:
    _case(seed, tmp_path, [], monkeypatch)


@pytest.mark.slow
def test_index_runs_agree_on_many_random_changes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 batch_bin: Path) -> None:
    plans: list[reach.Reach] = []
    for seed in range(6, 46):
        _case(seed, tmp_path, plans, monkeypatch)
    used = [p for p in plans if p.only is not None]
    # the comparison proves something only where the index was used and left clusters out
    assert len(used) >= len(plans) // 3, [p.why_whole for p in plans]
    assert any(p.carried for p in used)


def test_a_change_explores_only_the_clusters_it_reaches(flux_repo: Any, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch, batch_bin: Path) -> None:
    """A change to one cluster's overlay explores that cluster only, and still refuses its prune;
    a shared base reaches every cluster built on it."""
    rng = random.Random(1)
    files, shapes, clusters = _fleet(rng)
    (app, cluster), shape = sorted(shapes.items())[0][0], sorted(shapes.items())[0][1]
    top = f"apps/{app}/overlays/{cluster}"
    change: dict[str, str | None] = {f"{top}/cm.yaml": None}
    if shape != "generated":
        change[f"{top}/kustomization.yaml"] = files[f"{top}/kustomization.yaml"].replace("\n          - cm.yaml", "")
    root = tmp_path / "repo"
    _repo(root, files, change, {"README.md": "x\n"})
    cache = tmp_path / "cache"
    run_guard(GuardOptions(repo=root, base="base", head="other", cache_dir=cache))
    plans: list[reach.Reach] = []
    planned = reach.plan
    monkeypatch.setattr(reach, "plan", lambda *a, **k: plans.append(planned(*a, **k)) or plans[-1])
    result = run_guard(GuardOptions(repo=root, base="base", head="head", cache_dir=cache))
    assert plans[0].only is not None
    reached_clusters = {c for c in plans[0].only}
    assert len(reached_clusters) < len(clusters), reached_clusters
    assert any(f.rule == "configmap-pruned" for f in result.findings), [f.rule for f in result.findings]
    assert result.stats["clusters"] == len(clusters)


def test_change_keys_name_every_look_a_changed_path_can_alter() -> None:
    """A changed file alters a read or check of itself, a listing of its folder, and a walk or a
    check of any folder above it, up to the root (the folder may vanish with its last file)."""
    from gen.guard.build.index import change_keys

    walks = {"p:apps/dns/cm.yaml", "l:apps/dns", "t:apps/dns", "t:apps", "t:"}
    assert change_keys(["apps/dns/cm.yaml"], lambda folder: False) == frozenset(walks)
    assert change_keys(["apps/dns/cm.yaml"], lambda folder: folder == "apps/dns") == frozenset(
        {*walks, "p:apps/dns", "l:apps"})
    assert change_keys(["README.md"], lambda folder: False) == frozenset({"p:README.md", "l:", "t:"})


@pytest.mark.parametrize("folder", ["index-2", "artifacts-1"])
def test_a_damaged_index_or_artifact_answer_is_a_miss_said_once(folder: str, tmp_path: Path, batch_bin: Path) -> None:
    """Each kept index and each kept answer of which files an artifact holds is sealed: one byte
    flipped and the run explores and asks again, says so, and gives the verdict of no cache."""
    rng = random.Random(3)
    files, shapes, clusters = _fleet(rng)
    (app, cluster) = sorted(shapes)[0]
    root = tmp_path / "repo"
    _repo(root, files, {f"apps/{app}/overlays/{cluster}/cm.yaml": _cm(f"{app}-{cluster}", "7")}, {"README.md": "x\n"})
    cache = tmp_path / "cache"
    run_guard(GuardOptions(repo=root, base="base", head="other", cache_dir=cache))
    kept = sorted((cache / folder).iterdir())
    assert kept, f"the first run keeps {folder}"
    for path in kept:
        data = bytearray(path.read_bytes())
        data[len(data) // 2] ^= 0x01
        path.write_bytes(bytes(data))
    damaged = run_guard(GuardOptions(repo=root, base="base", head="head", cache_dir=cache))
    whole = run_guard(GuardOptions(repo=root, base="base", head="head", cache_dir=None))
    assert _said(damaged) == _said(whole)
    assert any("did not verify" in note for note in damaged.notes), damaged.notes


def _chain(seed: int, tmp: Path, plans: list[reach.Reach], monkeypatch: pytest.MonkeyPatch) -> None:
    """Main moved on since the index was kept: the index of an older commit, plus what changed
    between it and base, must give the verdict of the whole fleet."""
    rng = random.Random(seed)
    files, shapes, clusters = _fleet(rng)
    root = tmp / f"chain-{seed}"
    _start(root, files, "older")
    for name, edits in (("base", _change(rng, files, shapes, clusters)), ("head", _change(rng, files, shapes, clusters))):
        _commit(root, edits, name)
        git(root, "tag", name)
    cache = tmp / f"chain-cache-{seed}"
    run_guard(GuardOptions(repo=root, base="older", head="older", cache_dir=cache))  # indexes `older` only
    _both_ways(root, cache, plans, monkeypatch, f"seed {seed}")


@pytest.mark.parametrize("seed", range(3))
def test_an_index_of_an_older_main_serves_with_what_changed_since(seed: int, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch, batch_bin: Path) -> None:
    _chain(seed, tmp_path, [], monkeypatch)


@pytest.mark.slow
def test_older_indexes_agree_on_many_random_changes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    batch_bin: Path) -> None:
    plans: list[reach.Reach] = []
    for seed in range(3, 33):
        _chain(seed, tmp_path, plans, monkeypatch)
    used = [p for p in plans if p.only is not None]
    assert len(used) >= len(plans) // 3, [p.why_whole for p in plans]
    assert any(p.carried for p in used)


def test_what_decides_the_topology_is_an_object_not_a_string() -> None:
    """A Flux upgrade rewrites gotk-components.yaml, whose CRDs name the source groups: no source
    object, so it does not send the run to the whole fleet; a GitRepository, an ArtifactGenerator
    or a Flux Operator object does, and so does a manifest that cannot be read (it may be one)."""
    from gen.guard.reach import _holds_topology

    crd = (b"apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n"
           b"  name: gitrepositories.source.toolkit.fluxcd.io\nspec:\n  group: source.toolkit.fluxcd.io\n")
    source = b"apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {name: x}\n"
    operator = b"apiVersion: fluxcd.controlplane.io/v1\nkind: ResourceSet\nmetadata: {name: x}\n"
    assert not _holds_topology("clusters/a/flux-system/gotk-components.yaml", crd)
    assert _holds_topology("infra/sources.yaml", source)
    assert _holds_topology("infra/tenants.yaml", operator)
    assert not _holds_topology("README.md", source)  # not a manifest any reader of the guard opens
    assert _holds_topology("broken.yaml", b"source.toolkit.fluxcd.io: [\n")


def test_a_chart_kept_here_keeps_its_cluster_out_of_the_index(tmp_path: Path, batch_bin: Path) -> None:
    """A HelmRelease whose chartRef renders a chart of this repository is judged from the change's
    files, not from its Kustomization's reads (the Helm layer renders the chart): with the index of
    base, a change to the chart is still refused, as a run over the whole fleet refuses it."""
    rng = random.Random(5)
    files, shapes, clusters = _fleet(rng)
    files["apps/dns/base/release.yaml"] = """
        apiVersion: source.toolkit.fluxcd.io/v1
        kind: HelmChart
        metadata:
          name: dns-chart
          namespace: flux-system
        spec:
          interval: 10m
          chart: ./charts/dns
          sourceRef:
            kind: GitRepository
            name: flux-system
        ---
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata:
          name: dns
          namespace: kube-system
        spec:
          interval: 10m
          chartRef:
            kind: HelmChart
            name: dns-chart
            namespace: flux-system
    """
    files["apps/dns/base/kustomization.yaml"] = kustomization("settings.yaml", "release.yaml")
    files["charts/dns/Chart.yaml"] = "apiVersion: v2\nname: dns\nversion: 0.1.0\n"
    files["charts/dns/templates/cm.yaml"] = _cm("chart-made", "1")
    root = tmp_path / "repo"
    _repo(root, files, {"charts/dns/templates/cm.yaml": None}, {"README.md": "x\n"})
    cache = tmp_path / "cache"
    run_guard(GuardOptions(repo=root, base="base", head="other", cache_dir=cache))
    with_index = run_guard(GuardOptions(repo=root, base="base", head="head", cache_dir=cache))
    whole = run_guard(GuardOptions(repo=root, base="base", head="head", cache_dir=None))
    assert _said(with_index) == _said(whole)
    assert any(f.rule == "helm-upgrade-deletes" for f in whole.findings) == any(
        (app == "dns") for app, _ in shapes), [f.rule for f in whole.findings]


# -- adversarial cache states: whatever the cache holds, the verdict is the one of no cache ----------

def _files(cache: Path) -> list[Path]:
    return sorted(p for p in cache.rglob("*") if p.is_file() and not p.is_symlink())


def _flip(rng: random.Random, cache: Path, foreign: Path | None) -> None:
    path = rng.choice(_files(cache))
    data = bytearray(path.read_bytes())
    if data:
        bit = rng.randrange(len(data) * 8)
        data[bit // 8] ^= 1 << (bit % 8)
    path.write_bytes(bytes(data))


def _truncate(rng: random.Random, cache: Path, foreign: Path | None) -> None:
    path = rng.choice(_files(cache))
    data = path.read_bytes()
    path.write_bytes(data[:rng.randrange(len(data) + 1)])


def _swap(rng: random.Random, cache: Path, foreign: Path | None) -> None:
    """Two entries' files swapped: the same folder's when it has two (base's and other's index)."""
    files = _files(cache)
    folders = [f for f in {p.parent for p in files} if len([p for p in files if p.parent == f]) >= 2]
    pool = [p for p in files if p.parent == rng.choice(sorted(folders))] if folders else files
    a, b = rng.sample(pool, 2) if len(pool) >= 2 else (pool[0], pool[0])
    data_a, data_b = a.read_bytes(), b.read_bytes()
    a.write_bytes(data_b)
    b.write_bytes(data_a)


def _foreign(rng: random.Random, cache: Path, foreign: Path | None) -> None:
    """Another repository's cache laid over this one's: its packs, parsed manifests and answers
    beside ours, its indexes under our indexes' names, its recent commits first."""
    assert foreign is not None
    import shutil

    ours = sorted((cache / "index-2").glob("*.idx"))
    theirs = sorted((foreign / "index-2").glob("*.idx"))
    for path in _files(foreign):
        rel = path.relative_to(foreign)
        target = cache / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if rel.parts[0] == "index-2" and path.suffix == ".idx" and ours:
            continue
        if rel.name == "recent.json" and target.exists():
            import json

            merged = json.loads(path.read_bytes()) + json.loads(target.read_bytes())
            target.write_text(json.dumps(merged))
            continue
        shutil.copyfile(path, target)  # theirs replaces ours where the names meet (parsed manifests)
    for i, mine in enumerate(ours if theirs else []):
        shutil.copyfile(theirs[i % len(theirs)], mine)


def _recent_lies(rng: random.Random, cache: Path, foreign: Path | None) -> None:
    """recent.json (a hint, not sealed) naming commits that are not in this clone, or base twice."""
    import json

    path = cache / "index-2" / "recent.json"
    found = json.loads(path.read_bytes()) if path.exists() else []
    scope = found[0][0] if found else "0" * 64
    lies = [[scope, "f" * 40], [scope, "0" * 40], *found, *found, [scope, "not a commit"]]
    rng.shuffle(lies)
    path.write_text(json.dumps(lies))


def _elsewhere(rng: random.Random, cache: Path, foreign: Path | None) -> None:
    """The cache folder a symlink to where the cache really is."""
    real = cache.with_name(cache.name + "-real")
    cache.rename(real)
    cache.symlink_to(real)


def _folder_is_file(rng: random.Random, cache: Path, foreign: Path | None) -> None:
    """One of the cache's folders replaced by a file: nothing can be read or written there."""
    import shutil

    folder = rng.choice(sorted(p for p in cache.iterdir() if p.is_dir()))
    shutil.rmtree(folder)
    folder.write_text("not a folder\n")


SPOILS = {"flip": _flip, "truncate": _truncate, "swap": _swap, "recent-lies": _recent_lies,
          "elsewhere": _elsewhere, "folder-is-file": _folder_is_file}


def _spoiled(seed: int, tmp: Path, monkeypatch: pytest.MonkeyPatch, how: str, foreign: Path | None = None) -> Path:
    """A random case whose cache is then put in an adversarial state `how`; judged with it (twice:
    what the first run repairs must serve too) and with none: the same. Returns the cache."""
    rng = random.Random(seed)
    files, shapes, clusters = _fleet(rng)
    change = _change(rng, files, shapes, clusters)
    root = tmp / f"repo-{how}-{seed}"
    _repo(root, files, change, {"README.md": "another change\n"})
    cache = tmp / f"cache-{how}-{seed}"
    run_guard(GuardOptions(repo=root, base="base", head="other", cache_dir=cache))
    if how != "none":
        (SPOILS | {"foreign": _foreign})[how](rng, cache, foreign)
    what = f"seed {seed}, cache {how}: change {sorted(change)}"
    _both_ways(root, cache, [], monkeypatch, what)
    again = run_guard(GuardOptions(repo=root, base="base", head="head", cache_dir=cache))
    whole = run_guard(GuardOptions(repo=root, base="base", head="head", cache_dir=None))
    assert _said(again) == _said(whole), what
    return cache


@pytest.mark.parametrize("how", sorted(SPOILS))
def test_an_adversarial_cache_gives_the_verdict_of_no_cache(how: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            batch_bin: Path) -> None:
    _spoiled(sorted(SPOILS).index(how), tmp_path, monkeypatch, how)


def test_another_repositorys_cache_gives_the_verdict_of_no_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 batch_bin: Path) -> None:
    foreign = _spoiled(11, tmp_path, monkeypatch, "none")
    _spoiled(12, tmp_path, monkeypatch, "foreign", foreign)


@pytest.mark.slow
def test_adversarial_caches_agree_on_many_random_changes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         batch_bin: Path) -> None:
    foreign = None
    for seed in range(50, 74):
        how = [*sorted(SPOILS), "foreign"][seed % (len(SPOILS) + 1)]
        foreign = _spoiled(seed, tmp_path, monkeypatch, how, foreign if how == "foreign" else None) \
            if how != "foreign" or foreign is not None else _spoiled(seed, tmp_path, monkeypatch, "none")


def test_runs_writing_one_cache_at_once_leave_one_that_gives_the_verdict_of_no_cache(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, batch_bin: Path) -> None:
    """Two guard processes fill one cold cache side by side (each writes its packs, both write
    base's index and the parsed manifests): what they leave serves a third run as no cache would."""
    import os
    import subprocess
    import sys

    rng = random.Random(5)
    files, shapes, clusters = _fleet(rng)
    change = _change(rng, files, shapes, clusters)
    root = tmp_path / "repo"
    _repo(root, files, change, _change(rng, files, shapes, clusters))
    cache = tmp_path / "cache"
    env = {**os.environ, "COREDNS_GEN_CACHE_DIR": str(cache), "GITHUB_ACTIONS": ""}
    for _ in range(2):
        procs = [subprocess.Popen([sys.executable, "-m", "gen", "guard", "--repo", str(root), "--base", "base",
                                   "--head", head, "--format", "json"], env=env, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE) for head in ("other", "head", "other")]
        for proc in procs:
            _, err = proc.communicate(timeout=600)
            assert proc.returncode in (0, 1), err.decode()
    _both_ways(root, cache, [], monkeypatch, "after runs side by side")


def test_an_index_made_by_other_code_outside_the_guard_is_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    """How the config is read (gen/config.py) decides what is explored: a change there, with the
    same version number (a dev install), keys another index."""
    before = reach._code()
    real = Path.read_bytes
    config = Path(reach.__file__).resolve().parent.parent / "config.py"

    def edited(path: Path) -> bytes:
        return real(path) + (b"\n# changed\n" if path == config else b"")

    monkeypatch.setattr(Path, "read_bytes", edited)
    monkeypatch.setattr(reach, "_code_digest", None)
    assert reach._code() != before


def test_a_recent_list_naming_an_option_is_never_passed_to_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               batch_bin: Path) -> None:
    """recent.json is a hint, unsealed, restored with the cache: a "commit" there that git would
    read as an option (`--output=FILE` writes a file anywhere) is no commit, and never asked about."""
    import json

    rng = random.Random(2)
    files, shapes, clusters = _fleet(rng)
    root = tmp_path / "repo"
    _repo(root, files, _change(rng, files, shapes, clusters), {"README.md": "x\n"})
    cache = tmp_path / "cache"
    run_guard(GuardOptions(repo=root, base="base", head="other", cache_dir=cache))
    for idx in (cache / "index-2").glob("*.idx"):
        idx.unlink()  # no index of base: the recent commits are tried
    recent = cache / "index-2" / "recent.json"
    scope = json.loads(recent.read_bytes())[0][0]
    written = tmp_path / "written-by-git"
    recent.write_text(json.dumps([[scope, f"--output={written}"], [scope, "--no-index"]]))
    _both_ways(root, cache, [], monkeypatch, "a lying recent list")
    assert not written.exists()


def test_cache_files_that_are_no_files_are_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    batch_bin: Path) -> None:
    """A restored cache whose entries are a FIFO or a symlink to /dev/zero (reading either never
    ends) or to a file of the user's: each is a miss, said, and the verdict is the one of no cache."""
    import os
    import signal

    rng = random.Random(4)
    files, shapes, clusters = _fleet(rng)
    root = tmp_path / "repo"
    _repo(root, files, _change(rng, files, shapes, clusters), {"README.md": "x\n"})
    cache = tmp_path / "cache"
    run_guard(GuardOptions(repo=root, base="base", head="other", cache_dir=cache))
    mine = tmp_path / "users-file"
    mine.write_text("the user's own\n")
    for i, path in enumerate(_files(cache)):
        path.unlink()
        if i % 3 == 0:
            os.mkfifo(path)
        else:
            path.symlink_to("/dev/zero" if i % 3 == 1 else mine)

    def hung(*_: Any) -> None:
        raise TimeoutError("a cache file was read that never ends")

    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(300)
    try:
        _both_ways(root, cache, [], monkeypatch, "cache files that are no files")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    assert mine.read_text() == "the user's own\n"


_FULL_DISK = """
import json, os, subprocess, sys
mnt, repo, mode, warm = sys.argv[1:5]
subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", mnt], check=True)
subprocess.run(["cp", "-a", warm + "/.", mnt], check=False)  # as much of a warm cache as fits
if mode == "full":
    try:
        with open(os.path.join(mnt, "fill"), "wb") as f:
            while True:
                f.write(b"x" * 4096)
                f.flush()
    except OSError:
        pass
else:
    subprocess.run(["mount", "-o", "remount,ro", mnt], check=True)
def run(cache):
    env = {**os.environ, "GITHUB_ACTIONS": "", "COREDNS_GEN_CACHE_DIR": cache}
    proc = subprocess.run([sys.executable, "-m", "gen", "guard", "--repo", repo, "--base", "base", "--head", "head",
                           "--format", "json"] + ([] if cache else ["--no-cache"]), capture_output=True, text=True, env=env)
    return proc.returncode, proc.stdout
cached, plain = run(mnt), run("")
left = sorted(n for _, _, names in os.walk(mnt) for n in names if n.startswith(".tmp-"))
print(json.dumps({"same": cached == plain, "code": cached[0], "left": left}))
"""


@pytest.mark.parametrize("mode", ["full", "ro"])
def test_a_cache_on_a_full_or_read_only_disk_gives_the_verdict_of_no_cache(mode: str, tmp_path: Path,
                                                                          batch_bin: Path) -> None:
    """A real tiny tmpfs in a private mount namespace (`unshare -m`, root), holding part of a warm
    cache: the kernel refuses every write (ENOSPC / EROFS); the run says what a run with no cache says."""
    import json
    import os
    import subprocess
    import sys

    from tests.conftest import REPO_ROOT, missing_tool

    rng = random.Random(6)
    files, shapes, clusters = _fleet(rng)
    root = tmp_path / "repo"
    _repo(root, files, _change(rng, files, shapes, clusters), {"README.md": "x\n"})
    warm = tmp_path / "warm"
    run_guard(GuardOptions(repo=root, base="base", head="other", cache_dir=warm))
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    proc = subprocess.run(["unshare", "-m", sys.executable, "-c", _FULL_DISK, str(mnt), str(root), mode, str(warm)],
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})
    if proc.returncode != 0:
        missing_tool("a private mount namespace (unshare -m, mount -t tmpfs)", RuntimeError(proc.stderr.strip()))
    result = json.loads(proc.stdout)
    assert result == {"same": True, "code": result["code"], "left": []}, result
    assert result["code"] in (0, 1)
