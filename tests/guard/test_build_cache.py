"""The guard's build cache: packs a run writes whole, the next run reads, merged when many."""

from __future__ import annotations

from pathlib import Path

import pytest

from gen.guard.build import cache as cachemod
from gen.guard.build.cache import BuildCache

OBJECTS = [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "namespace": "kube-system"}}]


def packs(directory: Path) -> list[Path]:
    return sorted((directory / cachemod.PACKS).glob("*.pack"))


def one_run(directory: Path, entries: dict[str, list[dict[str, object]]]) -> BuildCache:
    cache = BuildCache(directory)
    for fp, objects in entries.items():
        if cache.get(fp) is None:
            cache.put(fp, objects)  # type: ignore[arg-type]
    cache.save()
    return cache


def test_a_saved_build_is_found_by_the_next_run(tmp_path: Path) -> None:
    one_run(tmp_path, {"f1": OBJECTS, "f2": []})
    later = BuildCache(tmp_path)
    assert later.get("f1") == OBJECTS and later.get("f2") == [] and later.get("f3") is None
    assert later.hits == 2
    assert len(packs(tmp_path)) == 1


def test_a_run_that_builds_nothing_new_writes_nothing(tmp_path: Path) -> None:
    one_run(tmp_path, {"f1": OBJECTS})
    before = packs(tmp_path)
    again = one_run(tmp_path, {"f1": OBJECTS})
    assert again.hits == 1 and packs(tmp_path) == before


def test_entries_are_kept_only_when_saved(tmp_path: Path) -> None:
    """A run that fails before its end leaves no pack; the entries it added are still its own."""
    cache = BuildCache(tmp_path)
    cache.put("f1", OBJECTS)
    assert cache.get("f1") == OBJECTS
    assert BuildCache(tmp_path).get("f1") is None and not packs(tmp_path)


def test_many_packs_merge_into_one_holding_every_entry(tmp_path: Path) -> None:
    for run in range(cachemod.MAX_PACKS + 1):
        one_run(tmp_path, {f"f{run}": [{"n": run}]})
    (merged,) = packs(tmp_path)
    assert merged.name.endswith("-merged.pack")
    later = BuildCache(tmp_path)
    assert [later.get(f"f{run}") for run in range(cachemod.MAX_PACKS + 1)] == [[{"n": r}] for r in range(cachemod.MAX_PACKS + 1)]


def test_a_merge_keeps_the_newest_entries_within_its_size(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cachemod, "MAX_BYTES", 3 * len(b'[{"n":0}]'))
    for run in range(cachemod.MAX_PACKS + 1):
        one_run(tmp_path, {f"f{run}": [{"n": run}]})
    later = BuildCache(tmp_path)
    kept = [run for run in range(cachemod.MAX_PACKS + 1) if later.get(f"f{run}") is not None]
    assert kept == [cachemod.MAX_PACKS - 2, cachemod.MAX_PACKS - 1, cachemod.MAX_PACKS]


def test_a_pack_another_run_wrote_meanwhile_survives_a_merge(tmp_path: Path) -> None:
    for run in range(cachemod.MAX_PACKS):
        one_run(tmp_path, {f"f{run}": [{"n": run}]})
    merging = BuildCache(tmp_path)
    assert merging.get("f0") is not None  # it has read the packs there were
    one_run(tmp_path, {"racer": OBJECTS})  # a second job on the same cache, between its read and its merge
    merging.put("mine", OBJECTS)
    merging.save()
    later = BuildCache(tmp_path)
    assert later.get("racer") == OBJECTS and later.get("mine") == OBJECTS and later.get("f0") is not None


@pytest.mark.parametrize("damage", [b"", b"\x00garbage", b"not marshal at all", None])
def test_a_torn_or_foreign_pack_is_a_miss_never_an_error(tmp_path: Path, damage: bytes | None) -> None:
    one_run(tmp_path, {"f1": OBJECTS})
    (pack,) = packs(tmp_path)
    if damage is None:
        pack.write_bytes(pack.read_bytes()[: len(pack.read_bytes()) // 2])
    else:
        pack.write_bytes(damage)
    later = BuildCache(tmp_path)
    assert later.get("f1") is None
    later.put("f1", OBJECTS)
    later.save()
    assert BuildCache(tmp_path).get("f1") == OBJECTS


def test_an_unwritable_cache_costs_only_time(tmp_path: Path) -> None:
    blocked = tmp_path / "cache"
    blocked.write_text("a file where the cache folder should be (root ignores modes, not this)")
    one_run(blocked, {"f1": OBJECTS})
    assert BuildCache(blocked).get("f1") is None and blocked.read_text().startswith("a file")


def test_no_directory_caches_nothing(tmp_path: Path) -> None:
    cache = BuildCache(None)
    cache.put("f1", OBJECTS)
    cache.save()
    assert cache.get("f1") is None and not list(tmp_path.iterdir())


def test_a_packs_folder_that_is_a_symlink_is_not_followed(tmp_path: Path) -> None:
    """builds-2 linked to another folder: a run found that folder's *.pack files damaged (they are
    not sealed packs) and its merge deleted them. The link is not followed: nothing there is read,
    written or deleted, and the run says so once."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "backup.pack").write_bytes(b"someone else's file")
    cache_dir = tmp_path / "cache"
    cache_dir.mkdir()
    (cache_dir / cachemod.PACKS).symlink_to(elsewhere)
    for run in range(cachemod.MAX_PACKS + 2):
        cache = one_run(cache_dir, {f"f{run}": OBJECTS})
    assert sorted(p.name for p in elsewhere.iterdir()) == ["backup.pack"]
    assert (elsewhere / "backup.pack").read_bytes() == b"someone else's file"
    assert cache.note() is not None and "symlink" in cache.note()  # type: ignore[operator]
