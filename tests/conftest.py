"""Shared pytest wiring: the golden-refresh flag and real-tool fixtures.

A test that needs kustomize, CoreDNS or git and cannot find it is skipped at a desk but
*fails* under CI=true, so a CI run can never pass by quietly skipping the real checks.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gen.errors import ToolError
from gen.tools import coredns_binary, git_binary, kustomize_command

REPO_ROOT = Path(__file__).resolve().parent.parent


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite golden files (overlays/, examples/clusters/, tests/cases/*/expected) from the current code",
    )


# A test that asks for one of these runs a real part end to end (a git repository, the guard's
# build helper, real kustomize or CoreDNS): it is a pipeline test, left out of the fast loop
# `python3 -m pytest -n auto -m "not pipeline and not slow"` (README.md, Development). A test that
# reaches a real part otherwise (its own `git` calls, the CLI in a subprocess) says so itself
# with `pytestmark = pytest.mark.pipeline`.
PIPELINE_FIXTURES = frozenset({"flux_repo", "guard", "git_bin", "batch_bin", "kustomize_argv", "coredns_bin"})


REAL_PART_MARKS = frozenset({"coredns", "kustomize"})


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if PIPELINE_FIXTURES & set(getattr(item, "fixturenames", ())) or \
                any(mark.name in REAL_PART_MARKS for mark in item.iter_markers()):
            item.add_marker(pytest.mark.pipeline)
    # The `slow` tests first, each group in its own order (the sort is stable): under pytest-xdist
    # (README.md's `-n auto`, `--dist worksteal` in pyproject.toml) a long test that starts last
    # keeps the whole run waiting on one worker; started first, the other workers take the
    # short tests around it. Every test is independent of the others, so order proves nothing.
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))


def missing_tool(what: str, err: Exception) -> None:
    """Skip at a desk, fail in CI: a real-parts test must never pass without its part."""
    message = f"{what} is required for this test: {err}"
    if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


@pytest.fixture(scope="session")
def kustomize_argv() -> list[str]:
    try:
        return kustomize_command()
    except ToolError as err:
        missing_tool("kustomize", err)
        raise


@pytest.fixture(scope="session")
def coredns_bin() -> Path:
    try:
        return coredns_binary(os.environ.get("COREDNS_BIN") or None)
    except ToolError as err:
        missing_tool("the CoreDNS binary", err)
        raise


@pytest.fixture(scope="session")
def git_bin() -> str:
    try:
        return git_binary()
    except ToolError as err:
        missing_tool("git", err)
        raise
