"""A build sent with only the files it is expected to read gives what the whole revision gives.

A build whose reads an earlier build of the same Kustomization recorded is sent with only those
files (and its spec.path) on disk (gen/guard/build/placement.py). Each case here makes head's build
read a file base's did not (so it is not on disk at first), through every way kustomize and Flux's
generator reach a file, and asserts the build placed in part gives the same objects and the same
looks with the same states as the build on the whole revision, with fewer files on disk. Without
the check that every look agrees with the whole revision (and the build sent again), the first,
partial build would be taken: a wrong result (a missing base, component or file fails the build)
or a wrong read set.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gen.guard.build import placement, seen as seenmod
from gen.guard.build.engine import Engine, Job, Outcome
from gen.guard.repo.checkout import Checkout, load_tree
from gen.guard.repo.revision import Tree
from tests.helpers import build_tree, git

OVERLAY = "app/overlays/c1"


def kustomization(*resources: str, extra: str = "") -> str:
    listed = "".join(f"  - {r}\n" for r in resources)
    return f"apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n{listed}{extra}"


def configmap(name: str, data: str = "a: b") -> str:
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: kube-system\ndata:\n  {data}\n"


BASE = {
    "app/base/kustomization.yaml": kustomization("deployment.yaml"),
    "app/base/deployment.yaml": configmap("from-base"),
    f"{OVERLAY}/kustomization.yaml": kustomization("cm.yaml"),
    f"{OVERLAY}/cm.yaml": configmap("coredns-custom"),
    "clusters/c1/ns.yaml": configmap("plain"),
    "shared/base/kustomization.yaml": kustomization("shared.yaml"),
    "shared/base/shared.yaml": configmap("shared"),
    "components/extra/kustomization.yaml": (
        "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n"
        "resources:\n  - extra.yaml\n"),
    "components/extra/extra.yaml": configmap("from-component"),
    "files/Corefile": ".:53 {\n    forward . 10.0.0.1\n}\n",
    "patches/label.yaml": (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: coredns-custom\n  namespace: kube-system\n"
        "  labels:\n    patched: \"yes\"\n"),
    **{f"unrelated/c{i:03d}/cm.yaml": configmap(f"other-{i}") for i in range(40)},
}

# case -> (spec.path, head's changes): each makes head's build read files base's build did not
CASES: dict[str, tuple[str, dict[str, str]]] = {
    "a ../../base added at head": (OVERLAY, {
        f"{OVERLAY}/kustomization.yaml": kustomization("cm.yaml", "../../base")}),
    "a new resources: entry in a base read before": (OVERLAY, {
        f"{OVERLAY}/kustomization.yaml": kustomization("cm.yaml", "../../base"),
        "app/base/kustomization.yaml": kustomization("deployment.yaml", "../../shared/base"),
    }),
    "a folder listed by Flux's generated kustomization": ("clusters/c1", {
        "clusters/c1/infra/kustomization.yaml": kustomization("../../../shared/base"),
    }),
    "a component": (OVERLAY, {
        f"{OVERLAY}/kustomization.yaml": kustomization("cm.yaml", extra="components:\n  - ../../../components/extra\n"),
    }),
    "a configMapGenerator files: entry": (OVERLAY, {
        f"{OVERLAY}/kustomization.yaml": kustomization("cm.yaml", extra=(
            "configMapGenerator:\n  - name: corefile\n    namespace: kube-system\n"
            "    files:\n      - Corefile=../../../files/Corefile\n")),
    }),
    "a patch file": (OVERLAY, {
        f"{OVERLAY}/kustomization.yaml": kustomization("cm.yaml", extra="patches:\n  - path: ../../../patches/label.yaml\n"),
    }),
}


def _commit(root: Path, files: dict[str, str], message: str) -> str:
    build_tree(root, files)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)
    return git(root, "rev-parse", "HEAD").strip()


def _flux_ks(path: str) -> dict[str, object]:
    return {"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
            "metadata": {"name": "app", "namespace": "flux-system"},
            "spec": {"interval": "10m", "path": f"./{path}", "prune": True,
                     "sourceRef": {"kind": "GitRepository", "name": "flux-system"}}}


def _build(engine: Engine, tree: Tree, path: str, expect: tuple[tuple[str, str], ...] | None) -> Outcome:
    outcomes = dict(engine.run([Job("k", tree, path, _flux_ks(path), expect=expect)]))
    return outcomes["k"]


def _files_on_disk(folder: Path) -> set[str]:
    return {str(Path(d, f).relative_to(folder)) for d, _, files in os.walk(folder) for f in files}


@pytest.fixture
def repo(tmp_path: Path, git_bin: str) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    return root


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_a_build_placed_in_part_gives_what_the_whole_revision_gives(case: str, repo: Path, tmp_path: Path,
                                                                     batch_bin: Path) -> None:
    path, changes = CASES[case]
    base = _commit(repo, BASE, "base")
    head = _commit(repo, changes, "head")
    engine = Engine(parallel=1)
    at_base = load_tree(repo, base, tmp_path / "base")
    earlier = _build(engine, at_base, path, None)  # what the build read at base: the expected set
    assert earlier.error is None, earlier.error

    whole_tree = load_tree(repo, head, tmp_path / "whole")
    whole = _build(engine, whole_tree, path, None)
    assert whole.error is None, whole.error

    part_tree = load_tree(repo, head, tmp_path / "part")
    engine.resent = 0
    part = _build(engine, part_tree, path, tuple(earlier.looks))

    assert (part.objects, part.error) == (whole.objects, whole.error)
    assert seenmod.seen(seenmod.Reader(part_tree), part.looks) == seenmod.seen(seenmod.Reader(whole_tree), whole.looks)
    assert engine.resent >= 1, "head's build reads a file base's did not: it is sent again with it on disk"
    assert isinstance(part_tree.checkout, Checkout) and not part_tree.checkout.unpacked
    on_disk = _files_on_disk(tmp_path / "part")
    assert set(seenmod.files_read(seenmod.seen(seenmod.Reader(part_tree), part.looks))) <= on_disk
    assert not any(p.startswith("unrelated/") for p in on_disk), "only what the build reads is on disk"


def test_a_build_that_reads_what_it_read_before_is_sent_once(repo: Path, tmp_path: Path, batch_bin: Path) -> None:
    base = _commit(repo, BASE, "base")
    head = _commit(repo, {f"{OVERLAY}/cm.yaml": configmap("coredns-custom", "a: c")}, "head")
    engine = Engine(parallel=1)
    earlier = _build(engine, load_tree(repo, base, tmp_path / "base"), OVERLAY, None)
    part_tree = load_tree(repo, head, tmp_path / "part")
    engine.resent = 0
    part = _build(engine, part_tree, OVERLAY, tuple(earlier.looks))
    assert part.error is None and engine.resent == 0
    assert part.objects == [dict(yaml_doc, data={"a": "c"}) for yaml_doc in earlier.objects or []]
    assert _files_on_disk(tmp_path / "part") == {f"{OVERLAY}/kustomization.yaml", f"{OVERLAY}/cm.yaml"}


def test_a_revision_with_a_symlink_is_built_whole(repo: Path, tmp_path: Path, batch_bin: Path) -> None:
    base = _commit(repo, BASE, "base")
    (repo / "app/overlays/c1/link.yaml").symlink_to("cm.yaml")
    head = _commit(repo, {}, "head")
    engine = Engine(parallel=1)
    earlier = _build(engine, load_tree(repo, base, tmp_path / "base"), OVERLAY, None)
    tree = load_tree(repo, head, tmp_path / "head")
    part = _build(engine, tree, OVERLAY, tuple(earlier.looks))
    assert part.error is None
    assert isinstance(tree.checkout, Checkout) and tree.checkout.unpacked


def test_a_restored_cache_judges_a_new_base_as_the_whole_revision_does(flux_repo: object, tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The pipeline: a cache left by judging another change of the same base (as CI restores it)
    gives head's build of ./platform the files base's read; head moves the ConfigMap into a
    `../shared` base it adds, so the build reads files nobody recorded. The verdict (nothing pruned)
    is the one of a run that puts every revision on disk whole; the first, partial build failed
    (../shared not on disk)."""
    from gen.guard import GuardOptions, run_guard
    from tests.guard.conftest import configmap as flux_configmap, flux_ks, kustomization as flux_kustomization, summary

    base = {
        "clusters/prod/platform.yaml": flux_ks("platform", "./platform"),
        "platform/kustomization.yaml": flux_kustomization("coredns-custom.yaml"),
        "platform/coredns-custom.yaml": flux_configmap("coredns-custom"),
        "docs/readme.yaml": flux_configmap("unrelated"),
    }
    head: dict[str, str | None] = {
        "platform/kustomization.yaml": flux_kustomization("../shared"),
        "platform/coredns-custom.yaml": None,
        "shared/kustomization.yaml": flux_kustomization("coredns-custom.yaml"),
        "shared/coredns-custom.yaml": flux_configmap("coredns-custom"),
    }
    root = flux_repo(base, head)  # type: ignore[operator]
    git(root, "checkout", "-q", "-b", "other", "base")
    build_tree(root, {"platform/coredns-custom.yaml": flux_configmap("coredns-custom", data="errors.override: errors")})
    git(root, "commit", "-q", "-am", "another change")
    git(root, "checkout", "-q", "main")
    restored = tmp_path / "restored"
    run_guard(GuardOptions(repo=root, base="base", head="other", cache_dir=restored))
    with_cache = run_guard(GuardOptions(repo=root, base="base", head="HEAD", cache_dir=restored))
    monkeypatch.setattr(placement, "partial_checkout", lambda tree: None)  # every revision whole, as before
    whole = run_guard(GuardOptions(repo=root, base="base", head="HEAD", cache_dir=None))
    assert summary(with_cache.findings) == summary(whole.findings)
    assert not [f for f in whole.findings if f.rule == "configmap-pruned"]
