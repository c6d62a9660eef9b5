"""The release tables are what scripts/refresh-platform-data derives from the recorded inputs.

gen/platforms/releases.py and the release rows of gen/data/SOURCES.md are generated from
tests/data/platform-sources/*.tsv (each row: release, CoreDNS, Corefile layout, repository,
path, commit, and the upstream line it was read from). A table edited by hand, or an input
recorded without regenerating, fails here; so does a row whose evidence names another CoreDNS.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from gen.platforms import get, releases

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "scripts" / "refresh-platform-data"


def test_committed_tables_equal_what_the_recorded_inputs_give() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True, cwd=REPO)
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_recorded_row_names_its_commit_and_evidence() -> None:
    for path in sorted((REPO / "tests" / "data" / "platform-sources").glob("*.tsv")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line and not line.startswith("#"):
                release, coredns, layout, repository, source, commit, evidence = line.split("\t")
                said = layout.removeprefix("rke2-coredns-").removesuffix(".values.yaml") if path.stem == "rke2" else coredns
                assert repository and source and len(commit) == 40 and said in evidence, (path.name, release)


def test_the_platforms_answer_from_the_tables() -> None:
    """One place: each platform's default CoreDNS is the generated row's."""
    assert get("talos").coredns_for("v1.13.9") == releases.TALOS["v1.13.9"][0]
    assert get("k3s").coredns_for("v1.33.1+k3s1") == releases.K3S["v1.33.1+k3s1"][0]
    assert str(get("kubeadm").coredns_for("v1.31.0")) == "1.11.1"  # the patch row wins over its minor's
    assert str(get("kubeadm").coredns_for("v1.31.5")) == "1.11.3"
    assert get("aks").coredns_for("1.36") == releases.AKS["1.36"][0]
    assert str(get("rke2").coredns_for("v1.34.10+rke2r1")) == "1.14.6" and releases.RKE2["v1.34.10+rke2r1"] == "1.46.201"


def test_a_talos_minor_without_a_release_yet_stands_on_its_release_candidate() -> None:
    """v1.14.0 was not tagged in the snapshot read: its rc.1 stands in (the render says so)."""
    talos = get("talos")
    assert talos.stand_in("v1.14.0") == "v1.14.0-rc.1" and str(talos.coredns_for("v1.14.0")) == "1.14.6"
    assert get("k3s").known_releases().startswith("v1.32.0+k3s1 … v1.32.13+k3s1, v1.33.0+k3s1 … v1.33.12+k3s1, ")
