"""`--shard K/N` + `guard-merge` give exactly the unsharded verdict, on a real multi-cluster repo."""

from __future__ import annotations

import json
import os
import random
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gen.cli import app
from gen.errors import UsageError
from gen.guard import GuardOptions, run_guard
from gen.guard.report.merge import dump_result, merge_results
from gen.guard.rules import SHARD_MERGES
from gen.guard.report.shard import Shard
from tests.guard.conftest import FLUX_SYSTEM, configmap, flux_ks, hpa, kustomization

CLUSTERS = [f"c{i}" for i in range(6)]


def _cluster(name: str) -> dict[str, str]:
    files = {path.replace("/prod/", f"/{name}/"): text.replace("./clusters/prod", f"./clusters/{name}")
             for path, text in FLUX_SYSTEM.items()}
    files[f"clusters/{name}/dns.yaml"] = flux_ks("dns", f"./dns/{name}")
    files[f"dns/{name}/kustomization.yaml"] = kustomization("custom.yaml", "extra.yaml")
    files[f"dns/{name}/custom.yaml"] = configmap("coredns-custom")
    files[f"dns/{name}/extra.yaml"] = configmap("extra", namespace="apps")
    return files


BASE = {k: v for name in CLUSTERS for k, v in _cluster(name).items()}
BASE["clusters/c5/other.yaml"] = flux_ks("other", "./elsewhere").replace("name: flux-system\n", "name: other-repo\n")
HEAD: dict[str, str | None] = {
    "dns/c0/kustomization.yaml": kustomization("extra.yaml"),  # refused: coredns-custom pruned
    "dns/c2/extra.yaml": None,  # an unlisted file deleted: build fails at head
    "dns/c3/kustomization.yaml": kustomization("custom.yaml", "hpa.yaml"),
    "dns/c3/hpa.yaml": hpa(1),  # refused: HPA floor; extra pruned (a ConfigMap)
    "dns/c4/custom.yaml": configmap("coredns-custom", data="bad: key"),  # refused: key suffix
    "archive/old.yaml": flux_ks("old", "./dns/c1"),  # unreached
}


def _comparable(result):
    """Everything but the build counts (they depend on the split) and the scratch folder that
    kustomize's own error text names (a new temp dir each run)."""
    stats = {k: v for k, v in result.stats.items() if k not in ("builds", "cache_hits")}
    return _scrub(json.dumps([f.as_dict() for f in result.findings])), stats, result.summary(), result.commits


def _scrub(text: str) -> str:
    return re.sub(r"coredns-gen-guard-[^/]+/", "TMP/", text)


@pytest.mark.parametrize("count", [2, 3, 8])
def test_every_shard_merged_is_the_unsharded_verdict(flux_repo, guard, tmp_path, count):
    root = flux_repo(BASE, HEAD, standard=False)
    whole = guard(root)
    assert {f.rule for f in whole.findings} >= {"configmap-pruned", "k3s-hpa-min-replicas", "build-failed",
                                               "coredns-custom-keys", "unreached"}
    files = []
    judged: list[int] = []
    builds: list[int] = []
    for k in range(1, count + 1):
        part = guard(root, shard=Shard(k, count), cache_dir=tmp_path / f"cache-{k}")  # a CI machine each
        judged.append(part.stats["clusters"])
        builds.append(part.stats["builds"])
        target = tmp_path / f"shard-{k}.json"
        target.write_text(dump_result(part))
        files.append(target)
    assert sum(judged) == len(CLUSTERS)
    # each shard builds its own clusters only (from their roots down), not the fleet's roots too
    assert sum(builds) == whole.stats["builds"], (builds, whole.stats["builds"])
    merged = merge_results(list(reversed(files)), SHARD_MERGES)  # any order
    assert _comparable(merged) == _comparable(whole)
    if count == 8:
        assert 0 in judged  # six clusters cannot fill eight shards


def test_a_shard_is_stable_and_an_empty_one_says_it_judged_nothing(flux_repo, guard):
    root = flux_repo(BASE, HEAD, standard=False)
    shards = [Shard(k, 8) for k in range(1, 9)]
    fleet = {f"clusters/{c}/flux-system/gotk-sync.yaml" for c in CLUSTERS}
    owner = {c: [s.index for s in shards if f"clusters/{c}/flux-system/gotk-sync.yaml" in s.mine(fleet)] for c in CLUSTERS}
    assert all(len(v) == 1 for v in owner.values())  # every cluster in exactly one shard
    empty = next(s for s in shards if s.index not in {v[0] for v in owner.values()})
    result = guard(root, shard=empty)
    assert result.findings == [] or all(f.rule == "unreached" for f in result.findings)
    assert f"shard {empty.index}/8 judged nothing: none of the fleet's 6 clusters falls in it" in result.summary()


def test_shards_share_a_fleet_evenly_and_an_added_cluster_moves_few():
    """Equal shares (a hash mod N gave 200 clusters in 4 shards 60/47/53/40: the slowest machine a
    fifth over), each cluster in one shard, and one cluster more moves at most N-1 others."""
    fleet = {f"clusters/c{i:03d}/flux-system/gotk-sync.yaml" for i in range(200)}
    for count in (3, 4, 8):
        parts = [Shard(k, count).mine(fleet) for k in range(1, count + 1)]
        assert sorted(len(p) for p in parts)[-1] - sorted(len(p) for p in parts)[0] <= 1
        assert frozenset().union(*parts) == fleet and sum(len(p) for p in parts) == len(fleet)
        grown = [Shard(k, count).mine(fleet | {"clusters/new/flux-system/gotk-sync.yaml"}) for k in range(1, count + 1)]
        moved = sum(len(old - new) for old, new in zip(parts, grown, strict=True))
        assert moved <= count - 1


def test_cli_shards_and_merge_exit_and_print_like_one_run(flux_repo, tmp_path):
    root = flux_repo(BASE, HEAD, standard=False)
    runner = CliRunner()
    whole = runner.invoke(app, ["guard", "--repo", str(root), "--base", "base", "--format", "text"])
    assert whole.exit_code == 1, whole.output
    names = []
    for k in (1, 2, 3):
        out = tmp_path / f"s{k}.json"
        runner.invoke(app, ["guard", "--repo", str(root), "--base", "base", "--shard", f"{k}/3", "--result", str(out), "--format", "json"])
        assert json.loads(out.read_text())["format"] == "coredns-gen/guard-result"
        names.append(str(out))
    merged = runner.invoke(app, ["guard-merge", *names, "--format", "text"])
    assert merged.exit_code == 1
    assert _scrub(merged.stdout) == _scrub(whole.stdout)
    md = runner.invoke(app, ["guard-merge", *names, "--format", "markdown"])
    assert md.exit_code == 1 and md.stdout.startswith("## coredns-gen guard: refused")
    missing = runner.invoke(app, ["guard-merge", *names[:2]])
    assert missing.exit_code == 2 and "shard 3 of 3 missing" in missing.stderr


def test_merge_refuses_what_is_not_every_shard_of_one_run(tmp_path, flux_repo, guard):
    root = flux_repo(BASE, HEAD, standard=False)
    one = tmp_path / "one.json"
    one.write_text(dump_result(guard(root, shard=Shard(1, 2))))
    with pytest.raises(UsageError, match="given twice"):
        merge_results([one, one], SHARD_MERGES)
    plain = tmp_path / "plain.json"
    plain.write_text("[]")
    with pytest.raises(UsageError, match="not a guard result"):
        merge_results([plain], SHARD_MERGES)
    newer = tmp_path / "newer.json"
    newer.write_text(one.read_text().replace('"version": 3', '"version": 4'))
    with pytest.raises(UsageError, match="version 4"):
        merge_results([newer], SHARD_MERGES)


def test_merge_refuses_shards_judged_otherwise_or_edited_by_hand(tmp_path, flux_repo, guard):
    """A shard run with another --allow or --path, or its file edited after it was written: the
    merge would judge what no shard judged (or judged otherwise) and pass where one run refuses."""
    root = flux_repo(BASE, HEAD, standard=False)
    gotk = {c: f"clusters/{c}/flux-system/gotk-sync.yaml" for c in CLUSTERS}
    k = Shard(1, 2) if Shard(1, 2).holds(gotk["c0"]) else Shard(2, 2)  # the shard of c0, refused
    other = Shard(3 - k.index, 2)
    plain = {s.index: tmp_path / f"plain-{s.index}.json" for s in (k, other)}
    for s, path in ((k, plain[k.index]), (other, plain[other.index])):
        path.write_text(dump_result(guard(root, shard=s, cache_dir=tmp_path / f"c{s.index}")))
    assert any(f.rule == "configmap-pruned" and "c0" in f.message + json.dumps(f.details)
               for f in merge_results(list(plain.values()), SHARD_MERGES).findings)
    allowed = tmp_path / "allowed.json"
    allowed.write_text(dump_result(guard(root, shard=k, cache_dir=tmp_path / f"c{k.index}", allow=(f"cluster:{gotk['c0']}",))))
    with pytest.raises(UsageError, match="judged with another allow"):
        merge_results([allowed, plain[other.index]], SHARD_MERGES)
    narrow = tmp_path / "narrow.json"
    narrow.write_text(dump_result(guard(root, shard=k, cache_dir=tmp_path / f"c{k.index}", paths=("clusters/c1",))))
    with pytest.raises(UsageError, match="judged with another paths"):
        merge_results([narrow, plain[other.index]], SHARD_MERGES)
    edited = json.loads(plain[k.index].read_text())
    edited["findings"] = [f for f in edited["findings"] if f["severity"] != "error"]  # a refusal deleted by hand
    hand = tmp_path / "hand.json"
    hand.write_text(json.dumps(edited, indent=2))
    with pytest.raises(UsageError, match="changed after the guard wrote it"):
        merge_results([hand, plain[other.index]], SHARD_MERGES)


def test_merge_refuses_shards_that_found_another_fleet(tmp_path, flux_repo, guard, monkeypatch):
    """Each shard cuts the fleet it finds: one that finds a cluster more or less (a guessed root's
    parent whose build failed on that machine only) cuts it elsewhere, and a cluster is judged by
    no shard (its refusal lost) or by two. The merge passed such shards."""
    import dataclasses

    from gen.guard.discovery import Discovery

    root = flux_repo(BASE, HEAD, standard=False)
    gotk = f"clusters/{CLUSTERS[0]}/flux-system/gotk-sync.yaml"  # refused: coredns-custom pruned
    plain = {k: tmp_path / f"plain-{k}.json" for k in (1, 2)}
    for k, path in plain.items():
        path.write_text(dump_result(guard(root, shard=Shard(k, 2))))
    find_roots = Discovery.find_roots

    def without_c0(self, refs, under=()):  # this machine does not find cluster c0
        fleet = find_roots(self, refs, under)
        return dataclasses.replace(fleet, roots={label: tuple(c for c in cands if c.ks.ref.cluster != gotk)
                                                 for label, cands in fleet.roots.items()})

    monkeypatch.setattr(Discovery, "find_roots", without_c0)
    other = tmp_path / "other.json"
    owner = next(k for k in (1, 2) if gotk in Shard(k, 2).mine({f"clusters/{c}/flux-system/gotk-sync.yaml" for c in CLUSTERS}))
    other.write_text(dump_result(guard(root, shard=Shard(3 - owner, 2))))
    with pytest.raises(UsageError, match="judged with another roots"):
        merge_results([plain[owner], other], SHARD_MERGES)
    assert merge_results(list(plain.values()), SHARD_MERGES).findings  # the shards of one fleet merge


@pytest.mark.parametrize("text", ["0/4", "5/4", "2", "a/b", "1/0"])
def test_bad_shard_is_bad_input(text):
    with pytest.raises(UsageError, match="K/N"):
        Shard.parse(text)


def _apart(clusters: list[str]) -> int:
    """A shard count that puts each of these clusters (root files, the whole fleet) in a shard of its own."""
    def owner(cluster: str, n: int) -> int:
        return next(k for k in range(1, n + 1) if cluster in Shard(k, n).mine(set(clusters)))

    return next(n for n in range(2, 64) if len({owner(c, n) for c in clusters}) == len(clusters))


def test_a_shard_whose_clusters_judge_nothing_leaves_the_verdict_to_the_merge(flux_repo, guard, tmp_path):
    """One cluster syncs an OCI artifact no config maps (nothing of it can be judged), another is
    judged: the unsharded run judges, so the shard holding only the first must not exit 2."""
    from tests.guard.test_layouts import FLUX_INSTANCE, PLATFORM

    files = {k: v for k, v in FLUX_INSTANCE.items() if k != ".coredns-gen.yaml"}
    root = flux_repo({**files, **PLATFORM}, {"platform/extra.yaml": configmap("extra", namespace="default"),
                                             "platform/kustomization.yaml": kustomization("coredns-custom.yaml", "extra.yaml")})
    whole = guard(root)
    count = _apart(["clusters/prod/flux-instance.yaml", "clusters/prod/flux-system/gotk-sync.yaml"])
    paths = []
    for k in range(1, count + 1):
        target = tmp_path / f"nothing-{k}.json"
        target.write_text(dump_result(guard(root, shard=Shard(k, count), cache_dir=tmp_path / f"c{k}")))
        paths.append(target)
    assert _comparable(merge_results(paths, SHARD_MERGES)) == _comparable(whole)


def test_shards_that_all_judge_nothing_merge_into_the_unsharded_bad_input(flux_repo, guard, tmp_path):
    from tests.guard.test_layouts import FLUX_INSTANCE

    files = {k: v for k, v in FLUX_INSTANCE.items() if k != ".coredns-gen.yaml"}
    root = flux_repo(files, {"kubernetes/clusters/prod/kustomization.yaml": kustomization()}, standard=False)
    with pytest.raises(UsageError) as whole:
        guard(root)
    paths = []
    for k in (1, 2):
        target = tmp_path / f"all-{k}.json"
        target.write_text(dump_result(guard(root, shard=Shard(k, 2), cache_dir=tmp_path / f"c{k}")))
        paths.append(target)
    with pytest.raises(UsageError) as merged:
        merge_results(paths, SHARD_MERGES)
    assert str(merged.value) == str(whole.value)


def _sharded_case(seed: int, tmp: Path) -> None:
    """A random change to a random fleet (tests/guard/test_reach.py's), judged whole with no cache
    and as 2 and 3 shards, each on its own cache (left by judging another change: the index of
    base serves) or none, merged through the envelopes: the same findings, views and summary."""
    from tests.guard.test_reach import _change, _fleet, _repo

    rng = random.Random(seed)
    files, shapes, clusters = _fleet(rng)
    change = _change(rng, files, shapes, clusters)
    other = _change(rng, files, shapes, clusters)
    root = tmp / f"repo-{seed}"
    _repo(root, files, change, other)
    _shards_agree(root, tmp, seed, change, caches=True)


def _shards_agree(root: Path, tmp: Path, seed: int, change: dict[str, str | None], *, caches: bool) -> None:
    """One run with no cache against 2 and 3 shards merged through their envelopes; with
    `caches`, every other shard on its own cache left by judging `other` (the index of base serves)."""
    from tests.guard.test_reach import _said

    whole = run_guard(GuardOptions(repo=root, base="base", head="head", cache_dir=None))
    for count in (2, 3):
        paths = []
        for k in range(1, count + 1):
            cache = tmp / f"cache-{seed}-{count}-{k}" if caches and (seed + k) % 2 else None
            if cache is not None:
                run_guard(GuardOptions(repo=root, base="base", head="other", cache_dir=cache, shard=Shard(k, count)))
            part = run_guard(GuardOptions(repo=root, base="base", head="head", cache_dir=cache, shard=Shard(k, count)))
            target = tmp / f"r-{seed}-{count}-{k}.json"
            target.write_text(dump_result(part))
            paths.append(target)
        merged = merge_results(paths, SHARD_MERGES)
        assert _said(merged) == _said(whole), f"seed {seed}, {count} shards: change {sorted(change)}"


@pytest.mark.parametrize("seed", range(4))
def test_shards_merged_say_what_one_run_says_on_random_changes(seed: int, tmp_path: Path, batch_bin: Path) -> None:
    _sharded_case(seed, tmp_path)


@pytest.mark.slow
def test_shards_merged_agree_on_many_random_changes(tmp_path: Path, batch_bin: Path) -> None:
    for seed in range(4, 24):
        _sharded_case(seed, tmp_path)


def _fleet_change(rng: random.Random, files: dict[str, str], clusters: list[str]) -> dict[str, str | None]:
    """Clusters that exist at one revision only, or whose bootstrap is written another way at head:
    a cluster gone whole, one added, one whose gotk-sync.yaml is renamed (the same cluster, named by
    its new file), one whose folder moves (gone at its old root, new at its new one)."""
    from tests.guard.test_reach import _root

    out: dict[str, str | None] = {}
    for kind in rng.sample(["gone", "added", "renamed", "moved"], rng.randint(1, 3)):
        cluster = rng.choice(clusters)
        mine = [p for p in files if f"/{cluster}/" in p and not p.startswith("shared/")]
        if kind == "gone":
            out.update({p: None for p in mine})
        elif kind == "added":
            new = f"n{rng.randint(0, 99)}"
            out.update(_root(new))
            out[f"clusters/{new}/dns.yaml"] = flux_ks("dns", f"./dns/{new}")
            out[f"dns/{new}/kustomization.yaml"] = kustomization("custom.yaml")
            out[f"dns/{new}/custom.yaml"] = configmap("coredns-custom")
        elif kind == "renamed":
            folder = f"clusters/{cluster}/flux-system"
            out[f"{folder}/gotk-sync.yaml"] = None
            out[f"{folder}/sync.yaml"] = files[f"{folder}/gotk-sync.yaml"]
            out[f"{folder}/kustomization.yaml"] = files[f"{folder}/kustomization.yaml"].replace("gotk-sync", "sync")
        else:
            moved = f"{cluster}-moved"
            for p in (p for p in mine if p.startswith(f"clusters/{cluster}/")):
                out[p] = None
                out[p.replace(f"clusters/{cluster}/", f"clusters/{moved}/")] = \
                    files[p].replace(f"./clusters/{cluster}", f"./clusters/{moved}")
    return out


def _fleet_change_case(seed: int, tmp: Path) -> None:
    """A random fleet whose clusters differ between base and head (gone, added, renamed, moved),
    with or without another edit: every cluster is judged by exactly one shard, so the shards
    merged say what one run says."""
    from tests.guard.test_reach import _change, _fleet, _repo

    rng = random.Random(1000 + seed)
    files, shapes, clusters = _fleet(rng)
    change = {**_fleet_change(rng, files, clusters), **(_change(rng, files, shapes, clusters) if rng.random() < 0.5 else {})}
    root = tmp / f"repo-{seed}"
    _repo(root, files, change, {"README.md": "another change\n"})
    _shards_agree(root, tmp, seed, change, caches=False)


@pytest.mark.parametrize("seed", range(4))
def test_shards_merged_say_what_one_run_says_when_clusters_come_and_go(seed: int, tmp_path: Path, batch_bin: Path) -> None:
    _fleet_change_case(seed, tmp_path)


@pytest.mark.slow
def test_shards_merged_agree_on_many_fleets_that_change(tmp_path: Path, batch_bin: Path) -> None:
    for seed in range(4, 20):
        _fleet_change_case(seed, tmp_path)


@pytest.mark.parametrize("kind", ["deep", "fifo", "zero"])
def test_a_result_file_guard_merge_cannot_read_is_bad_input(tmp_path, kind):
    """JSON nested 100,000 deep raised RecursionError (exit 4); a FIFO hung the merge; /dev/zero was
    read until memory ran out. Each is a clear refusal, exit 2, without reading past what it needs."""
    if kind == "deep":
        path = tmp_path / "deep.json"
        path.write_text("[" * 100_000 + "]" * 100_000)
    elif kind == "fifo":
        path = tmp_path / "fifo.json"
        os.mkfifo(path)
    else:
        path = Path("/dev/zero")
    with pytest.raises(UsageError) as err:
        merge_results([path], SHARD_MERGES)
    assert str(path) in str(err.value)
