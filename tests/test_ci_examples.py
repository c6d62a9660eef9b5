"""The CI recipes users copy (examples/github-actions, examples/gitlab-ci, docs/ci.md): valid for
their CI (actionlint), installing the released package by this version, CoreDNS cached under the
version setup-dev builds, and no path filter that would let a change merge unjudged."""

from __future__ import annotations

import re
import shutil
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

from gen import tools
from tests.conftest import missing_tool, REPO_ROOT

GITHUB = sorted((REPO_ROOT / "examples/github-actions").glob("*.yaml"))
GITLAB = REPO_ROOT / "examples/gitlab-ci/coredns-gen.gitlab-ci.yml"
VERSION = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]["version"]
COREDNS_VERSION = re.search(r'COREDNS_VERSION="\$\{COREDNS_VERSION:-(v[0-9.]+)\}"',
                            (REPO_ROOT / "scripts/setup-dev").read_text()).group(1)  # type: ignore[union-attr]


def _load(path: Path) -> dict[Any, Any]:
    data = yaml.safe_load(path.read_text())
    assert isinstance(data, dict)
    return data


def _actionlint() -> str:
    """actionlint on PATH or in the cache bin, where scripts/setup-dev installs it (skipped at a
    desk without it, a failure under CI=true)."""
    found = shutil.which("actionlint") or shutil.which("actionlint", path=str(tools.cache_bin()))
    if not found:
        missing_tool("actionlint", RuntimeError("scripts/setup-dev installs it (go install github.com/rhysd/actionlint/cmd/actionlint@v1.7.12)"))
        raise AssertionError("unreachable")
    return found


def test_github_examples_pass_actionlint(tmp_path):
    actionlint = _actionlint()
    proc = subprocess.run([actionlint, "-no-color", *map(str, GITHUB)], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # the same actionlint refuses a broken workflow: the pass above is a judgement, not a no-op
    broken = tmp_path / "broken.yaml"
    broken.write_text(GITHUB[0].read_text().replace("steps.coredns.outputs.cache-hit", "steps.nowhere.outputs.hit"))
    refused = subprocess.run([actionlint, "-no-color", str(broken)], capture_output=True, text=True, check=False)
    assert refused.returncode == 1 and "nowhere" in refused.stdout


@pytest.mark.parametrize("path", GITHUB, ids=lambda p: p.name)
def test_github_examples_judge_every_pull_request(path):
    """A `paths:` filter on YAML skipped pull requests that change only a .sourceignore or an
    .env file, which change what Flux builds: the guard decides what a change reaches."""
    trigger = _load(path)[True]["pull_request"]  # YAML 1.1 reads the key `on` as true
    assert not (trigger or {}).get("paths") and not (trigger or {}).get("paths-ignore")


def test_gitlab_example_judges_every_merge_request():
    jobs = {name: job for name, job in _load(GITLAB).items() if isinstance(job, dict) and "script" in job}
    assert set(jobs) == {"coredns-binary", "coredns-gen"}
    for job in jobs.values():
        assert all("changes" not in rule for rule in job["rules"])


@pytest.mark.parametrize("path", [*GITHUB, GITLAB], ids=lambda p: p.name)
def test_examples_install_the_released_wheel_of_this_version(path):
    data = _load(path)
    assert str(data["variables" if path == GITLAB else "env"]["COREDNS_GEN_VERSION"]) == VERSION
    text = path.read_text()
    installs = re.findall(r"pip install [^\n]*", text)
    assert installs and all('--only-binary coredns-gen "coredns-gen==' in line for line in installs), installs
    assert "git+" not in text


@pytest.mark.parametrize("path", [GITHUB[0], GITLAB], ids=lambda p: p.name)
def test_examples_cache_coredns_under_the_version_setup_dev_builds(path):
    data = _load(path)
    assert data["variables" if path == GITLAB else "env"]["COREDNS_VERSION"] == COREDNS_VERSION
    text = path.read_text()
    assert 'go install "github.com/coredns/coredns@$COREDNS_VERSION"' in text
    if path == GITLAB:
        assert data["coredns-binary"]["cache"]["key"] == "coredns-$COREDNS_VERSION"
    else:
        (restore,) = [s for s in data["jobs"]["dns-gate"]["steps"] if s.get("id") == "coredns"]
        assert restore["uses"].startswith("actions/cache@")
        assert "${{ env.COREDNS_VERSION }}" in restore["with"]["key"]
        assert "${{ env.COREDNS_VERSION }}" in restore["with"]["path"]


def test_shell_recipe_in_the_docs_is_valid_bash_with_these_versions():
    text = (REPO_ROOT / "docs/ci.md").read_text()
    (script,) = re.findall(r"```sh\n(#!/usr/bin/env bash\n.*?)```", text, flags=re.S)
    assert f"COREDNS_GEN_VERSION={VERSION}\n" in script and f"COREDNS_VERSION={COREDNS_VERSION}\n" in script
    proc = subprocess.run(["bash", "-n"], input=script, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr


def test_precommit_guard_hook_does_not_hard_code_a_branch():
    hooks = {h["id"]: h for h in yaml.safe_load((REPO_ROOT / ".pre-commit-hooks.yaml").read_text())}
    guard = hooks["coredns-gen-guard"]
    assert "--base" not in guard["entry"], "users can only override what is in args"
    assert guard["args"] == ["--base", "origin/HEAD"]
    assert "files" not in guard



def _steps() -> list[dict[str, Any]]:
    steps = _load(REPO_ROOT / "examples/github-actions/coredns-gen.yaml")["jobs"]["dns-gate"]["steps"]
    assert isinstance(steps, list)
    return steps


def _step(name: str) -> dict[str, Any]:
    (found,) = [s for s in _steps() if name in str(s.get("name", ""))]
    return found


def test_the_github_example_gives_the_reviewer_the_verdict_on_every_run():
    """the guard ran with `--format github` only (no Corefile diff, nothing on a pass).
    Now one guard run keeps its result; the markdown page (Corefile diffs) goes to the job summary
    whatever the verdict, one PR comment is edited in place, SARIF goes to code scanning, and the
    verdict fails the job only after all of that."""
    data = _load(REPO_ROOT / "examples/github-actions/coredns-gen.yaml")
    assert data["permissions"] == {"contents": "read", "pull-requests": "write", "security-events": "write"}
    guard = _step("No ConfigMap in place would be pruned")
    assert "--result guard-result.json" in guard["run"] and "|| status=$?" in guard["run"]
    verdict = _step("Verdict as the job summary")
    assert verdict["if"].startswith("${{ !cancelled()")  # a refusal and a pass alike
    assert 'guard-merge guard-result.json --format markdown > guard.md' in verdict["run"]
    assert 'cat guard.md >> "$GITHUB_STEP_SUMMARY"' in verdict["run"]
    comment = _step("Comment on the pull request")
    assert "<!-- coredns-gen guard -->" in comment["run"] and "-X PATCH" in comment["run"]
    assert "github.event_name == 'pull_request'" in comment["if"]
    sarif = _step("Findings in code scanning")
    assert sarif["uses"].startswith("github/codeql-action/upload-sarif@") and sarif["with"]["sarif_file"] == "guard.sarif"
    names = [s.get("name", "") for s in _steps()]
    assert names[-1] == "The guard's verdict" and "steps.guard.outputs.status != '0'" in _steps()[-1]["if"]


def test_the_github_example_restores_the_cache_of_mains_runs():
    """A pull request may restore only its own and its base branch's caches: the cache was saved
    only by pull requests, so none reused main's. Pushes to main now save it, and pull requests
    restore by the base branch's prefix."""
    data = _load(REPO_ROOT / "examples/github-actions/coredns-gen.yaml")
    assert data[True]["push"] == {"branches": ["main"]}
    (cache,) = [s for s in _steps() if s.get("uses", "").startswith("actions/cache@") and "coredns-gen" in s["with"]["path"]]
    assert "coredns-gen-${{ github.base_ref || 'main' }}-" in cache["with"]["restore-keys"]
    assert "github.event.before" in _step("No ConfigMap in place would be pruned")["env"]["BASE"]  # a push: judged too


def test_lint_in_the_examples_follows_overlay_instead_of_a_glob():
    """`overlays/*/*/` exits 2 when `overlay:` puts the overlays elsewhere: the examples call lint
    with no PATH, which lints each configured values file's overlay (tests/test_cli.py)."""
    for path in [*GITHUB, GITLAB, REPO_ROOT / "docs/ci.md"]:
        assert not re.search(r"coredns-gen lint [^\n]*overlays/\*", path.read_text()), path
    assert _step("Rendered Corefiles load in CoreDNS")["run"] == "coredns-gen lint --load --format github"


WORKFLOWS = sorted((REPO_ROOT / ".github/workflows").glob("*.yaml"))


def test_this_repositorys_workflows_pass_actionlint():
    """ci.yaml, release.yaml and the weekly platform data refresh: the jobs that run .ci/run, .ci/wheel,
    publish the release and refresh the release tables."""
    assert [p.name for p in WORKFLOWS] == ["ci.yaml", "refresh-platform-data.yaml", "release.yaml"]
    proc = subprocess.run([_actionlint(), "-no-color", *map(str, WORKFLOWS)], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_release_publishes_every_platform_wheel_with_trusted_publishing():
    """On a version tag: the sdist, a wheel per platform built natively from it and installed with
    --no-index (.ci/wheel) before anything is published, then PyPI trusted publishing (an OIDC
    token: no password or API token stored anywhere)."""
    data = _load(REPO_ROOT / ".github/workflows/release.yaml")
    assert data[True]["push"]["tags"] == ["v*"]
    jobs = data["jobs"]
    targets = {row["target"] for row in jobs["wheels"]["strategy"]["matrix"]["include"]}
    assert targets == {"linux-amd64", "linux-arm64", "darwin-arm64"}
    wheel_steps = " ".join(str(step.get("run", "")) for step in jobs["wheels"]["steps"])
    assert "tar -xzf sdist/" in wheel_steps and ".ci/wheel dist/*.whl" in wheel_steps
    publish = jobs["publish"]
    assert set(publish["needs"]) == {"sdist", "wheels"} and publish["if"] == "startsWith(github.ref, 'refs/tags/v')"
    assert publish["permissions"] == {"id-token": "write"} and data["permissions"] == {"contents": "read"}
    (step,) = [s for s in publish["steps"] if str(s.get("uses", "")).startswith("pypa/gh-action-pypi-publish@")]
    assert "with" not in step  # no password, no repository override: trusted publishing to PyPI
    assert publish["environment"]["url"] == "https://pypi.org/project/coredns-gen/"
    assert tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]["name"] == "coredns-gen"


def test_ci_runs_the_checks_and_the_wheel_job():
    jobs = _load(REPO_ROOT / ".github/workflows/ci.yaml")["jobs"]
    runs = [s.get("run") for s in jobs["test"]["steps"] if "run" in s]
    assert runs[-1] == ".ci/run"
    # before it only: lifting Ubuntu 24.04's restriction on the user namespaces verify confines CoreDNS in
    assert all("apparmor_restrict_unprivileged_userns=0" in r for r in runs[:-1])
    assert [s.get("run") for s in jobs["wheel"]["steps"] if "run" in s] == [".ci/wheel"]


def test_no_placeholder_url_remains():
    """Install commands name the real package (`coredns-gen` on PyPI) or a checkout, never a
    placeholder organisation."""
    listed = subprocess.run(["git", "ls-files"], cwd=REPO_ROOT, capture_output=True, text=True, check=True).stdout
    found = []
    for name in listed.splitlines():
        path = REPO_ROOT / name
        if path.suffix in (".md", ".yaml", ".yml", ".toml", ".py", ".cfg") and path.is_file() and path != Path(__file__):
            if "your-org" in path.read_text(encoding="utf-8", errors="replace"):
                found.append(name)
    assert found == []
