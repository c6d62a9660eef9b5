"""The locked development install: what CI runs is what the README says, and the lock covers
every dependency pyproject.toml names, at a version its range allows."""

from __future__ import annotations

import re
import tomllib

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.conftest import REPO_ROOT


def _pins() -> dict[str, tuple[str, bool]]:
    """name -> (pinned version, every pin carries a hash) from requirements/dev.lock."""
    text = (REPO_ROOT / "requirements/dev.lock").read_text(encoding="utf-8")
    pins: dict[str, tuple[str, bool]] = {}
    for entry in re.split(r"\n(?=\S)", text):
        match = re.match(r"([A-Za-z0-9_.-]+)==(\S+)", entry)
        if match:
            pins[canonicalize_name(match.group(1))] = (match.group(2), "--hash=sha256:" in entry)
    return pins


def test_the_lock_pins_every_dependency_within_its_range_with_hashes() -> None:
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    wanted = [*project["project"]["dependencies"], *project["project"]["optional-dependencies"]["test"],
              *project["build-system"]["requires"]]
    pins = _pins()
    problems = []
    for spec in map(Requirement, wanted):
        name = canonicalize_name(spec.name)
        if name not in pins:
            problems.append(f"{spec}: not in requirements/dev.lock")
        elif not spec.specifier.contains(pins[name][0], prereleases=True):
            problems.append(f"{spec}: the lock pins {pins[name][0]}")
    unhashed = sorted(name for name, (_, hashed) in pins.items() if not hashed)
    assert (problems, unhashed) == ([], []), "run scripts/lock-deps and commit requirements/dev.lock"


def _readme_test_command() -> str:
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    first_block = readme.split("```sh\n", 1)[1].split("```", 1)[0]
    (line,) = [line for line in first_block.splitlines() if "pytest" in line]
    return line.split("#", 1)[0].strip()


def test_ci_runs_the_readme_test_command_verbatim_in_a_new_virtual_environment() -> None:
    command = _readme_test_command()
    assert command == "scripts/setup-dev && python3 -m pytest -n auto"
    ci = (REPO_ROOT / ".ci/run").read_text(encoding="utf-8")
    lines = [line.strip() for line in ci.splitlines() if not line.lstrip().startswith("#")]
    run = next(i for i, line in enumerate(lines) if command in line)
    made = next(i for i, line in enumerate(lines) if line.startswith("python3 -m venv "))
    activated = next(i for i, line in enumerate(lines) if re.match(r'\. "\$\w+/venv/bin/activate"$', line))
    assert made < activated < run
    assert "set -euo pipefail" in lines



def test_ci_checks_what_the_dev_loop_checks() -> None:
    """ruff, mypy --strict (with the stubs it needs) and the Go tests run in CI, from the lock."""
    pins = _pins()
    assert {"ruff", "mypy", "types-pyyaml"} <= set(pins), "scripts/lock-deps with requirements/check.in"
    ci = [line.strip() for line in (REPO_ROOT / ".ci/run").read_text(encoding="utf-8").splitlines()
          if not line.lstrip().startswith("#")]
    assert "scripts/check || checked=$?" in ci
    check = (REPO_ROOT / "scripts/check").read_text(encoding="utf-8")
    for command in ("python3 -m ruff check gen tests", "python3 -m mypy --strict gen", "go vet ./...", "go test ./..."):
        assert command in check, command
