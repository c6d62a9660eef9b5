"""`render` stays inside its repository and inside its own files.

Every case was measured broken before gen/boundary.py: a committed journal deleting files
outside the repository, symlinks read across the boundary, two spellings of one output, another
cluster's files overwritten, writes into `.git/`, YAML shapes and a broken CoreDNS exiting 4.
Each asserts the exit code, the message, and (with snapshot_tree) that nothing changed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gen.render.journal import journal_path
from tests.conftest import REPO_ROOT
from tests.helpers import git, snapshot_tree

ENV = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}


def _values(cluster: str, output: str | None = None) -> str:
    return (f"cluster: {cluster}\nplatform: k3s\nplatformVersion: v1.34.9+k3s1\n"
            f"upstream:\n  resolvers: [10.0.0.53]\n"
            f"flux:\n  output: {output or f'clusters/{cluster}/coredns.yaml'}\n")


def _cli(cwd: Path, *args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    """A real process, as a user runs it; never a traceback."""
    proc = subprocess.run([sys.executable, "-m", "gen", *args], cwd=cwd, capture_output=True, text=True, timeout=300,
                          env=env or ENV)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, proc.stderr


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder beside the repository, with a file nobody may touch."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "victim.txt").write_text("precious\n")
    (folder / "secret.yaml").write_text("cluster: 'token=hunter2'\nplatform: k3s\nplatformVersion: v1.34.9+k3s1\n")
    return folder


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A GitOps repository with one k3s cluster, rendered."""
    root = tmp_path / "repo"
    (root / "dns").mkdir(parents=True)
    git(root, "init", "-q")
    (root / "dns/a.yaml").write_text(_values("a"))
    code, stderr = _cli(root, "render", "dns/a.yaml")
    assert code == 0, stderr
    return root


def _unchanged(repo: Path, outside: Path, *args: str, cwd: Path | None = None) -> str:
    """Run render (or `args`): exit 2, nothing changed inside or outside; the message."""
    before, beside = snapshot_tree(repo), snapshot_tree(outside)
    code, stderr = _cli(cwd or repo, *args)
    assert code == 2, stderr
    assert snapshot_tree(repo) == before and snapshot_tree(outside) == beside
    return stderr


# --- the journal ------------------------------------------------------------------------------


def _enclosing(tmp_path: Path) -> tuple[Path, Path]:
    """A larger git repository whose folder gitops/ is the GitOps repo (the `--repo` case)."""
    top = tmp_path / "mono"
    repo = top / "gitops"
    (repo / "dns").mkdir(parents=True)
    git(top, "init", "-q")
    (repo / "dns/a.yaml").write_text(_values("a"))
    code, stderr = _cli(top, "render", "--repo", "gitops", "gitops/dns/a.yaml")
    assert code == 0, stderr
    return top, repo


def test_the_journal_of_a_repo_folder_lives_in_the_enclosing_git_directory(tmp_path: Path) -> None:
    """Before: gitops/.coredns-gen.lock (and the journal) lay in the folder, where a change commits them."""
    top, repo = _enclosing(tmp_path)
    assert not [p.name for p in repo.iterdir() if p.name.startswith(".coredns-gen")]
    assert (top / ".git/coredns-gen.lock").exists()
    assert journal_path(repo).parent == top / ".git" and journal_path(repo).name.startswith("coredns-gen.")
    assert "coredns-gen" not in git(top, "status", "--porcelain", "--untracked-files=all")


@pytest.mark.parametrize("entry", ["ABS", "../../outside/victim.txt", "../outside/victim.txt", "dns/../../outside/victim.txt"])
def test_a_committed_journal_naming_a_file_outside_deletes_nothing(tmp_path: Path, outside: Path, entry: str) -> None:
    """Before: `finished an interrupted render`, exit 0, and the outside file was gone."""
    top, repo = _enclosing(tmp_path)
    path = str(outside / "victim.txt") if entry == "ABS" else entry
    for journal in (repo / ".coredns-gen.journal", journal_path(repo)):  # the old place, and the new one
        for version, item in ((1, path), (2, {"path": path, "sha256": "0" * 64})):
            journal.write_text(json.dumps({"version": version, "state": "committed", "writes": [], "deletes": [item]}))
            before, beside = snapshot_tree(top), snapshot_tree(outside)
            code, stderr = _cli(top, "render", "--repo", "gitops", "gitops/dns/a.yaml")
            assert (outside / "victim.txt").read_text() == "precious\n"
            assert snapshot_tree(outside) == beside
            if journal.parent == repo:  # a journal in the folder is no journal of ours any more: ignored
                assert code == 0, stderr
                journal.unlink()
                continue
            assert code == 2, stderr
            assert "refusing the journal of an interrupted render" in stderr and "fix: delete it (`rm " in stderr
            assert snapshot_tree(top) == before
            journal.unlink()


@pytest.mark.parametrize("journal", [
    {"version": 2, "state": "committed", "writes": "overlays", "deletes": []},
    {"version": 2, "state": "committed", "writes": [], "deletes": {"a": 1}},
    {"version": 2, "state": "committed", "writes": [7], "deletes": []},
    {"version": 2, "state": "done", "writes": [], "deletes": []},
    [],
])
def test_a_journal_of_the_wrong_shape_is_refused_naming_it(repo: Path, outside: Path, journal: object) -> None:
    """Before: a non-list field crashed (exit 4) or was read loosely."""
    (repo / ".git/coredns-gen.journal").write_text(json.dumps(journal))
    stderr = _unchanged(repo, outside, "render", "dns/a.yaml")
    assert stderr.startswith(".git/coredns-gen.journal: refusing the journal of an interrupted render: "), stderr


def test_a_journal_may_only_remove_a_file_with_the_bytes_it_recorded(repo: Path, outside: Path) -> None:
    """A user's file inside the repository, named by a forged journal: kept."""
    (repo / "notes.txt").write_text("mine\n")
    (repo / ".git/coredns-gen.journal").write_text(json.dumps(
        {"version": 2, "state": "committed", "writes": [], "deletes": [{"path": "notes.txt", "sha256": "0" * 64}]}))
    stderr = _unchanged(repo, outside, "render", "dns/a.yaml")
    assert "notes.txt is not the file it recorded to remove" in stderr
    assert (repo / "notes.txt").read_text() == "mine\n"


@pytest.mark.parametrize("entry", [".git/config", ".GIT/config", "dns/../.git/config"])
def test_a_journal_entry_in_git_is_refused(repo: Path, outside: Path, entry: str) -> None:
    (repo / ".git/coredns-gen.journal").write_text(json.dumps(
        {"version": 2, "state": "committed", "writes": [], "deletes": [{"path": entry, "sha256": "0" * 64}]}))
    _unchanged(repo, outside, "render", "dns/a.yaml")
    assert (repo / ".git/config").exists()


def test_a_symlinked_temp_is_never_written_through(repo: Path, outside: Path) -> None:
    """A temp name of ours committed as a symlink to an outside file: the render replaces the
    link, never the file it points to."""
    (repo / "dns/a.yaml").write_text(_values("a").replace("10.0.0.53", "10.0.0.54"))
    temp = repo / "overlays/k3s/a/.coredns-custom-configmap.yaml.coredns-gen.tmp"
    temp.symlink_to(outside / "victim.txt")
    code, stderr = _cli(repo, "render", "dns/a.yaml")
    assert code == 0, stderr
    assert (outside / "victim.txt").read_text() == "precious\n" and not os.path.lexists(temp)


# --- symlinks across the boundary -------------------------------------------------------------


def test_a_values_file_that_is_a_symlink_out_is_refused_unread(repo: Path, outside: Path) -> None:
    """Before: read, its content quoted (`cluster: 'token=hunter2' is not a DNS-1123 label`)."""
    (repo / "dns/link.yaml").symlink_to(outside / "secret.yaml")
    stderr = _unchanged(repo, outside, "render", "dns/link.yaml")
    assert stderr.startswith(f"dns/link.yaml: VALUES_FILE: resolves outside the repository ({outside}/secret.yaml)"), stderr
    assert "hunter2" not in stderr


def test_a_valid_values_file_behind_a_symlink_out_is_not_rendered(repo: Path, outside: Path) -> None:
    """Before: exit 0, the outside file rendered into the repository."""
    (outside / "b.yaml").write_text(_values("b"))
    (repo / "dns/b.yaml").symlink_to(outside / "b.yaml")
    _unchanged(repo, outside, "render", "dns/b.yaml")
    code, _ = _cli(repo, "verify", "dns/b.yaml")
    assert code == 2


def test_a_values_folder_that_is_a_symlink_out_is_refused(repo: Path, outside: Path) -> None:
    (outside / "b.yaml").write_text(_values("b"))
    (repo / "more").symlink_to(outside)
    stderr = _unchanged(repo, outside, "render", "more/b.yaml")
    assert "more/b.yaml: VALUES_FILE: resolves outside the repository" in stderr
    (repo / ".coredns-gen.yaml").write_text("values: [dns/*.yaml, more/*.yaml]\n")
    stderr = _unchanged(repo, outside, "render")
    assert "values[1]: 'more/*.yaml' matches more/b.yaml, which resolves outside the repository" in stderr
    assert "hunter2" not in stderr


def test_a_config_file_that_is_a_symlink_out_is_refused_unread(repo: Path, outside: Path) -> None:
    (outside / "config.yaml").write_text("values: [dns/*.yaml]\ntoken: hunter2\n")
    (repo / ".coredns-gen.yaml").symlink_to(outside / "config.yaml")
    stderr = _unchanged(repo, outside, "render")
    assert stderr.startswith(".coredns-gen.yaml: resolves outside the repository"), stderr
    assert "hunter2" not in stderr


def test_dot_dot_inside_a_symlink_target_is_resolved(repo: Path, outside: Path) -> None:
    """`dns/x.yaml -> ../dns/../../outside/b.yaml`: the target's own `..` leads out."""
    (outside / "b.yaml").write_text(_values("b"))
    (repo / "dns/x.yaml").symlink_to("../dns/../../outside/b.yaml")
    _unchanged(repo, outside, "render", "dns/x.yaml")


def test_a_repository_that_is_a_symlink_is_used_by_its_real_root(repo: Path, outside: Path, tmp_path: Path) -> None:
    """--repo through a symlink: everything works, and the boundary is the real root's."""
    alias = tmp_path / "alias"
    alias.symlink_to(repo)
    (repo / "dns/a.yaml").write_text(_values("a").replace("10.0.0.53", "10.0.0.54"))
    code, stderr = _cli(tmp_path, "render", "--repo", "alias", "alias/dns/a.yaml")
    assert code == 0, stderr
    code, stderr = _cli(alias, "render", "--check", "dns/a.yaml")
    assert code == 0, stderr
    (outside / "b.yaml").write_text(_values("b"))
    (repo / "dns/b.yaml").symlink_to(outside / "b.yaml")
    _unchanged(repo, outside, "render", "--repo", "alias", "alias/dns/b.yaml", cwd=tmp_path)


def test_a_hard_link_is_a_file_of_the_repository(repo: Path, outside: Path) -> None:
    """A hard link is a name inside the repository (its bytes are the repository's); writing
    replaces the name, never the other link's bytes."""
    os.link(repo / "clusters/a/coredns.yaml", outside / "hard.yaml")
    (repo / "dns/a.yaml").write_text(_values("a").replace("10.0.0.53", "10.0.0.54"))
    code, stderr = _cli(repo, "render", "dns/a.yaml")
    assert code == 0, stderr
    assert "10.0.0.54" not in (outside / "hard.yaml").read_text()


# --- collisions and ownership -----------------------------------------------------------------


def test_two_spellings_of_one_output_are_one_path(repo: Path, outside: Path) -> None:
    """Before: exit 3 with the render half applied, then each render flipped the file (exit 0)."""
    (repo / "alias").symlink_to("clusters")
    (repo / "dns/b.yaml").write_text(_values("b", "alias/a/coredns.yaml"))
    stderr = _unchanged(repo, outside, "render", "dns/a.yaml", "dns/b.yaml")
    assert "clusters/a/coredns.yaml and alias/a/coredns.yaml are one file (clusters/a/coredns.yaml) through a symlink" in stderr
    stderr = _unchanged(repo, outside, "render", "dns/b.yaml")
    assert "clusters/a/coredns.yaml was generated from dns/a.yaml, which still exists; dns/b.yaml would overwrite it" in stderr


@pytest.mark.parametrize("output", ["ov/k3s/a/kustomization.yaml", "clusters/a/coredns.yaml", "./clusters//a/coredns.yaml"])
def test_another_clusters_file_rendered_alone_is_not_overwritten(repo: Path, outside: Path, output: str) -> None:
    """Before: exit 0, cluster a's file overwritten (collisions were checked within one run only).
    `ov` is a symlink to overlays/ (a flux.output under overlays/ itself is refused by the values checks)."""
    (repo / "ov").symlink_to("overlays")
    (repo / "dns/b.yaml").write_text(_values("b", output))
    stderr = _unchanged(repo, outside, "render", "dns/b.yaml")
    assert "was generated from dns/a.yaml, which still exists; dns/b.yaml would overwrite it" in stderr
    _unchanged(repo, outside, "render", "dns/a.yaml", "dns/b.yaml")


def test_a_flux_output_over_another_overlay_in_one_run(repo: Path, outside: Path) -> None:
    (repo / "ov").symlink_to("overlays")
    (repo / "dns/b.yaml").write_text(_values("b", "ov/k3s/a/kustomization.yaml"))
    stderr = _unchanged(repo, outside, "render", "dns/a.yaml", "dns/b.yaml")
    assert "overlays/k3s/a/kustomization.yaml and ov/k3s/a/kustomization.yaml are one file" in stderr


def test_a_renamed_values_file_takes_its_clusters_files_over(repo: Path) -> None:
    """The values file that owned them is gone: its files are the next render's (git mv)."""
    os.replace(repo / "dns/a.yaml", repo / "dns/prod.yaml")
    code, stderr = _cli(repo, "render", "dns/prod.yaml")
    assert code == 0, stderr
    assert (repo / "clusters/a/coredns.yaml").read_text().startswith("# Generated by coredns-gen from dns/prod.yaml.")


def test_an_overlay_folder_that_is_a_symlink_to_another_clusters_is_refused(repo: Path, outside: Path) -> None:
    (repo / "overlays/k3s/b").symlink_to("a")
    (repo / "dns/b.yaml").write_text(_values("b"))
    stderr = _unchanged(repo, outside, "render", "dns/b.yaml")
    assert "was generated from dns/a.yaml, which still exists; dns/b.yaml would overwrite it" in stderr


# --- .git ------------------------------------------------------------------------------------


@pytest.mark.parametrize("output", [".git/coredns.yaml", ".GIT/coredns.yaml", "clusters/../.git/hooks/x.yaml", "sub/.Git/x.yaml"])
def test_a_flux_output_into_git_is_refused(repo: Path, outside: Path, output: str) -> None:
    """Before: `.git/coredns.yaml` written, exit 0."""
    (repo / "dns/b.yaml").write_text(_values("b", output))
    stderr = _unchanged(repo, outside, "render", "dns/b.yaml")
    assert "resolves into a .git folder" in stderr or "clusters/../.git/hooks/x.yaml is outside the repository" in stderr, stderr
    assert not (repo / ".git/coredns.yaml").exists()


def test_a_flux_output_through_a_symlink_into_git_is_refused(repo: Path, outside: Path) -> None:
    (repo / "meta").symlink_to(".git")
    (repo / "dns/b.yaml").write_text(_values("b", "meta/coredns.yaml"))
    stderr = _unchanged(repo, outside, "render", "dns/b.yaml")
    assert "meta/coredns.yaml resolves into a .git folder" in stderr


@pytest.mark.parametrize("target", [".git/hooks/pre-commit", ".GIT/hooks/pre-commit", "dns/../.git/hooks/post-checkout"])
def test_new_into_git_is_refused(repo: Path, outside: Path, target: str) -> None:
    """Before: `new -o .git/hooks/pre-commit` wrote the hook git then runs, exit 0."""
    stderr = _unchanged(repo, outside, "new", "--platform", "k3s", "--cluster", "x", "-o", target)
    assert "--output: resolves into a .git folder" in stderr
    assert not (repo / ".git/hooks/pre-commit").exists()


def test_a_values_file_inside_git_is_refused(repo: Path, outside: Path) -> None:
    (repo / ".git/v.yaml").write_text(_values("b"))
    stderr = _unchanged(repo, outside, "render", ".git/v.yaml")
    assert stderr.startswith(".git/v.yaml: VALUES_FILE: resolves into a .git folder"), stderr


# --- exit codes by class ---------------------------------------------------------------------


@pytest.mark.parametrize(("yaml", "where", "what"), [
    ("? [a, b]\n: 1\n", "dns/bad.yaml:8:3", "the key ['a', 'b'] is a list, not a string"),
    ("~: 1\n", "dns/bad.yaml:8:1", "the key None is null, not a string"),
    ("1: 2\n", "dns/bad.yaml:8:1", "the key 1 is an integer, not a string"),
    ("upstream2:\n  - {1.5: x}\n", "dns/bad.yaml:9:6", "the key 1.5 is a number, not a string"),
    ("x: " + "9" * 100_000 + "\n", "dns/bad.yaml:8:4", "a value YAML reads as a number or date Python cannot hold"),
    ("x: 2001-13-45\n", "dns/bad.yaml:8:4", "a value YAML reads as a number or date Python cannot hold"),
])
def test_every_yaml_shape_error_is_bad_input_with_its_line(repo: Path, outside: Path, yaml: str, where: str, what: str) -> None:
    """Before: exit 4 (TypeError, ValueError) for each."""
    (repo / "dns/bad.yaml").write_text(_values("b") + yaml)
    stderr = _unchanged(repo, outside, "render", "dns/bad.yaml")
    assert stderr.startswith(f"{where}: {what}"), stderr[:300]
    (repo / ".coredns-gen.yaml").write_text("values: [dns/a.yaml]\n" + yaml)
    stderr = _unchanged(repo, outside, "render")
    assert stderr.startswith(f".coredns-gen.yaml:{int(where.split(':')[1]) - 6}:"), stderr[:300]


def _fake(tmp_path: Path, name: str, body: str) -> Path:
    script = tmp_path / name
    script.write_text("#!/bin/sh\n" + body)
    script.chmod(0o755)
    return script


FAKES = {
    "hangs": 'exec sleep 600\n',
    "prints garbage": 'printf "\\377\\376\\001garbage\\n"\n',
    "hangs serving": 'case "$1" in -version) echo CoreDNS-1.13.1;; *) exec sleep 600;; esac\n',
    "dies serving": 'case "$1" in -version) echo CoreDNS-1.13.1;; *) kill -9 $$;; esac\n',
}


@pytest.mark.parametrize("fake", sorted(FAKES))
@pytest.mark.parametrize("command", ["verify", "lint"])
def test_a_coredns_that_hangs_dies_or_prints_garbage_is_a_tool_failure(repo: Path, tmp_path: Path, fake: str, command: str) -> None:
    """Before: exit 4 (TimeoutExpired, UnicodeDecodeError) for `-version`; a CoreDNS that never
    listened or was killed was reported as the Corefile's fault (exit 1)."""
    binary = _fake(tmp_path, "coredns", FAKES[fake])
    args = ["verify", "--coredns", str(binary), "dns/a.yaml"] if command == "verify" else \
        ["lint", "--load", "--coredns", str(binary), "overlays/k3s/a"]
    # unconfined: the stand-ins are shell scripts, and the confined run's jail holds no shell
    code, stderr = _cli(repo, *args, env={**ENV, "COREDNS_GEN_TOOL_TIMEOUT": "2", "COREDNS_GEN_VERIFY_UNCONFINED": "1"})
    assert code == 3, stderr
    assert f"CoreDNS binary {binary}" in stderr or f"{binary} -version" in stderr, stderr
    assert "\x01" not in stderr
