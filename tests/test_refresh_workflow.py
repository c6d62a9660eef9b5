"""This repository's weekly refresh of the platform data (.github/workflows/refresh-platform-data.yaml):
valid for GitHub Actions (actionlint, as the CI examples are), scheduled weekly, running the script and
the tests and opening a pull request with only the generated tables and their inputs."""

from __future__ import annotations

import subprocess

from tests.conftest import REPO_ROOT
from tests.test_ci_examples import _actionlint, _load

WORKFLOW = REPO_ROOT / ".github/workflows/refresh-platform-data.yaml"


def test_the_weekly_refresh_passes_actionlint(tmp_path):
    actionlint = _actionlint()
    proc = subprocess.run([actionlint, "-no-color", str(WORKFLOW)], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # the same actionlint refuses a broken copy: the pass above is a judgement, not a no-op
    broken = tmp_path / "broken.yaml"
    broken.write_text(WORKFLOW.read_text().replace("steps.refresh.outputs.status", "steps.nowhere.outputs.status"))
    refused = subprocess.run([actionlint, "-no-color", str(broken)], capture_output=True, text=True, check=False)
    assert refused.returncode == 1 and "nowhere" in refused.stdout


def test_the_weekly_refresh_runs_the_script_the_tests_and_opens_a_pull_request():
    """Every Monday: the script's refresh (its report kept even when a source could not be read),
    the tests as CI runs them, then one pull request carrying only the tables and their inputs."""
    data = _load(WORKFLOW)
    (cron,) = [entry["cron"] for entry in data[True]["schedule"]]
    assert cron.split()[2:] == ["*", "*", "1"]
    steps = data["jobs"]["refresh"]["steps"]
    runs = [s.get("run", "") for s in steps]
    assert any("scripts/refresh-platform-data refresh --report" in r and "|| status=$?" in r for r in runs)
    assert any(r.startswith(".ci/run") for r in runs)
    (pr,) = [s for s in steps if str(s.get("uses", "")).startswith("peter-evans/create-pull-request@")]
    assert set(pr["with"]["add-paths"].split()) == {"tests/data/platform-sources/*.tsv", "gen/platforms/releases.py",
                                                    "gen/data/SOURCES.md"}
