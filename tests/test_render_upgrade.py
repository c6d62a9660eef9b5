"""`render --check` on a platform upgrade: a values file whose platformVersion
moved since a git revision shows what the platform's own stock Corefile changes between the two
releases, or says it is not known; the review alone never fails the check.

Before it, `render --check` after bumping Talos v1.8.0 -> v1.13.9 said only "ok"."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from gen.cli import app
from tests.conftest import REPO_ROOT
from tests.helpers import git

runner = CliRunner()


def _values(release: str) -> str:
    text = (REPO_ROOT / "examples/talos.yaml").read_text().replace("output: examples/clusters/", "output: clusters/")
    return text.replace("platformVersion: v1.13.9", f"platformVersion: {release}")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository holding a Talos values file at v1.8.0 (with the render of v1.13.9: the
    example's `fallbackOn` needs a CoreDNS newer than Talos 1.8's), committed."""
    (tmp_path / "dns").mkdir()
    (tmp_path / "dns/talos.yaml").write_text(_values("v1.13.9"))
    assert _render(tmp_path).exit_code == 0
    (tmp_path / "dns/talos.yaml").write_text(_values("v1.8.0"))
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "base")
    return tmp_path


def _render(repo: Path, *extra: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["render", "--repo", str(repo), *extra, str(repo / "dns/talos.yaml")])


def test_a_rendered_upgrade_passes_and_shows_the_stock_corefile_diff(repo: Path) -> None:
    (repo / "dns/talos.yaml").write_text(_values("v1.13.9"))
    assert _render(repo).exit_code == 0
    result = _render(repo, "--check")
    assert result.exit_code == 0, result.output
    assert ("upgrade: dns/talos.yaml: platformVersion v1.8.0 -> v1.13.9 (since HEAD): "
            "the talos stock Corefile changes from v1.8.0 to v1.13.9") in result.stderr
    assert "--- talos v1.8.0 stock Corefile\n+++ talos v1.13.9 stock Corefile\n" in result.stderr
    assert "+        ttl 30\n" in result.stderr
    assert result.stdout == ""  # stdout stays the diff of the generated files


def test_drift_and_the_upgrade_are_both_shown(repo: Path) -> None:
    (repo / "dns/talos.yaml").write_text(_values("v1.13.9"))
    target = repo / "overlays/talos/prod-talos/coredns-configmap.yaml"
    target.write_text(target.read_text().replace("errors", "errors\n        log"))
    result = _render(repo, "--check")
    assert result.exit_code == 1
    assert "the talos stock Corefile changes from v1.8.0 to v1.13.9" in result.stderr


def test_since_names_the_revision_and_a_committed_upgrade_is_shown_against_it(repo: Path) -> None:
    (repo / "dns/talos.yaml").write_text(_values("v1.13.9"))
    assert _render(repo).exit_code == 0
    git(repo, "commit", "-q", "-am", "upgrade")
    assert "upgrade:" not in _render(repo, "--check").stderr  # nothing moved since HEAD
    result = _render(repo, "--check", "--since", "HEAD~1")
    assert result.exit_code == 0 and "platformVersion v1.8.0 -> v1.13.9 (since HEAD~1)" in result.stderr


def test_an_old_release_the_tables_do_not_hold_is_said_not_known(repo: Path) -> None:
    (repo / "dns/talos.yaml").write_text(_values("v1.2.0"))
    git(repo, "commit", "-q", "-am", "an old release nobody holds the Corefile of")
    (repo / "dns/talos.yaml").write_text(_values("v1.13.9"))
    result = _render(repo, "--check")
    assert result.exit_code == 0, result.output
    assert ("the talos stock Corefile change for talos v1.2.0 -> v1.13.9 is not known: "
            "v1.2.0: coredns-gen's tables hold no talos release of that minor") in result.stderr


def test_a_since_git_cannot_resolve_is_bad_input(repo: Path) -> None:
    (repo / "dns/talos.yaml").write_text(_values("v1.13.9"))
    result = _render(repo, "--check", "--since", "no-such-ref")
    assert result.exit_code == 2 and "--since" in result.stderr and "no-such-ref" in result.stderr
    assert _render(repo, "--since", "HEAD").exit_code == 2  # without --check
