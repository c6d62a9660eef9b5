"""What a run takes from base's answers (or a fast test before a slow one) equals what asking gives.

Root discovery asks every file of a revision a few questions (is it a script, does it mention a
Flux group, which Kustomizations does it write); head takes base's answer for a file whose blob
is the same, and a cheap test rules out most paths before a regular expression. Each shortcut is
held here equal to the plain question on random paths and trees.
"""

from __future__ import annotations

import random
from pathlib import Path

from gen.guard.flux import bootstraps, roots
from gen.guard.repo.marks import Marks
from gen.guard.repo.revision import Tree, index_entries

_PARTS = ["clusters", "c1", "flux-system", ".github", "workflows", ".gitlab-ci", "Taskfile", ".taskfiles", "helmfile",
          "azure-pipelines", ".azure-pipelines", "apps", "vendor", "deploy", "x"]
_ENDINGS = [".yaml", ".yml", ".sh", ".bash", ".mk", "Makefile", "justfile", "Justfile", ".justfile", ".just",
            ".yaml.gotmpl", ".tf", ".ps1", ".bicep", ".json", ".txt", "", "/gotk-sync.yaml", ".yml.bak"]


def _random_path(rng: random.Random) -> str:
    parts = [rng.choice(_PARTS) for _ in range(rng.randint(0, 4))]
    name = rng.choice(["", "a", "Taskfile", "helmfile", "azure-pipelines", "gotk-sync", "x.gitlab-ci"]) + rng.choice(_ENDINGS)
    return "/".join([*parts, name or "f"])


def test_the_script_test_agrees_with_the_pattern() -> None:
    rng = random.Random(38)
    paths = [_random_path(rng) for _ in range(20_000)] + [
        ".github/workflows/ci.yaml", ".gitlab-ci.yml", "Taskfile.yml", "x/taskfile.yaml", ".taskfiles/a/b.yml",
        "Makefile", "Justfile", "justfile", ".justfile", "a.just", "helmfile.yaml.gotmpl", "azure-pipelines.yml",
        ".azure-pipelines/x.yaml", "main.tf", "a.ps1", "a.bicep", "a.json", "a.yaml", "deploy.sh"]
    wrong = [p for p in paths if bootstraps.is_script(p) != (bootstraps.SCRIPTS.search(p) is not None)]
    assert wrong == []
    assert sum(bootstraps.is_script(p) for p in paths) > 1000  # the random paths hold scripts too


def _tree(files: dict[str, str], root: Path) -> Tree:
    blobs = {path: f"{abs(hash(text)):040x}"[:40] for path, text in files.items()}
    tree = Tree(commit="0" * 40, root=root, blobs=blobs, entries=index_entries(blobs))
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return tree


def _ks(name: str, path: str) -> str:
    return (f"apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: {name}\n"
            f"  namespace: flux-system\nspec:\n  path: {path}\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n")


def test_base_answers_serve_head_as_asking_would(tmp_path: Path) -> None:
    """flux_files with base's answer, and find_candidates with base's memo, give head what
    asking head alone gives, for random edits of a random fleet."""
    rng = random.Random(380)
    for trial in range(12):
        files = {}
        for c in range(rng.randint(1, 8)):
            files[f"clusters/c{c}/flux-system/gotk-sync.yaml"] = _ks("flux-system", f"./clusters/c{c}")
            files[f"clusters/c{c}/apps.yaml"] = _ks("apps", f"./apps/c{c}")
            files[f"apps/c{c}/cm.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"
            if rng.random() < 0.3:
                files[f"clusters/p{c}/flux-system/gotk-sync.yaml"] = "# flux bootstrap writes this file\n"
        edited = dict(files)
        for path in rng.sample(sorted(files), k=rng.randint(1, 3)):
            edited[path] = rng.choice([_ks("other", "./x"), "apiVersion: v1\nkind: ConfigMap\n", "# placeholder\n",
                                       files[path] + "\n# edited\n"])
        base = _tree(files, tmp_path / f"{trial}-base")
        head = _tree(edited, tmp_path / f"{trial}-head")
        marks = Marks()
        base_files = roots.flux_files(base, marks)
        assert base_files == [p for p in sorted(files) if p.endswith(".yaml") and
                              ("kustomize.toolkit.fluxcd.io" in files[p] or roots.bootstrap_placeholder(p))]
        assert roots.flux_files(head, marks, (base, base_files)) == roots.flux_files(head, Marks())
        memo: roots.CandidateMemo = {}
        for tree, listed in ((base, base_files), (head, roots.flux_files(head, Marks()))):
            with_memo = roots.find_candidates(tree, listed, set(), memo)
            alone = roots.find_candidates(tree, listed, set())
            assert [(c.file, c.ks, c.namespace_given) for c in with_memo[0]] == \
                [(c.file, c.ks, c.namespace_given) for c in alone[0]]


def test_the_ci_file_test_agrees_with_the_pattern() -> None:
    from gen.guard.flux import sources

    rng = random.Random(3800)
    paths = [_random_path(rng) for _ in range(20_000)] + [".github/workflows/a.yml", "x/.gitlab-ci.yaml",
                                                          "Taskfile.yml", ".taskfiles/x/y.yaml", "Makefile", "a.sh"]
    assert [p for p in paths if sources.is_ci_file(p) != (sources._CI_FILES.search(p) is not None)] == []
    assert sum(sources.is_ci_file(p) for p in paths) > 1000


def test_likely_roots_as_the_plain_reading(tmp_path: Path) -> None:
    files = {"clusters/a/flux-system/gotk-sync.yaml": _ks("flux-system", "./clusters/a"),
             "clusters/b/gotk-sync.yml": _ks("flux-system", "./clusters/b"),
             "clusters/c/instance.yaml": "apiVersion: fluxcd.controlplane.io/v1\nkind: FluxInstance\n",
             "clusters/d/hr.yaml": "kind: HelmRelease\nspec:\n  chart: {spec: {chart: flux-instance}}\n",
             "clusters/e/apps.yaml": _ks("apps", "./apps"), "x-flux-system/apps.yaml": _ks("apps", "./apps")}
    tree = _tree(files, tmp_path)
    listed = sorted(files)
    assert roots.likely_roots(listed, tree, Marks(), (), ()) == [
        "clusters/a/flux-system/gotk-sync.yaml", "clusters/b/gotk-sync.yml", "clusters/c/instance.yaml",
        "clusters/d/hr.yaml"]
