"""The release tables are what scripts/refresh-platform-data derives from the recorded inputs.

gen/platforms/releases.py and the release rows of gen/data/SOURCES.md are generated from
tests/data/platform-sources/*.tsv (each row: release, CoreDNS, Corefile layout, repository,
path, commit, and the upstream line it was read from). A table edited by hand, or an input
recorded without regenerating, fails here; so does a row whose evidence names another CoreDNS.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from gen.platforms import get, releases

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "scripts" / "refresh-platform-data"


def test_committed_tables_equal_what_the_recorded_inputs_give() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True, cwd=REPO, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_recorded_row_names_its_commit_and_evidence() -> None:
    for path in sorted((REPO / "tests" / "data" / "platform-sources").glob("*.tsv")):
        if path.name == "heads.tsv":
            continue  # test_every_branch_head_names_its_commit_and_evidence
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


def test_every_branch_head_names_its_commit_and_evidence() -> None:
    """heads.tsv: each head of main and of a release branch, with the line its CoreDNS (or chart) is read from."""
    lines = (REPO / "tests" / "data" / "platform-sources" / "heads.tsv").read_text(encoding="utf-8").splitlines()
    rows = [line.split("\t") for line in lines if line and not line.startswith("#")]
    assert {row[0] for row in rows} == {"talos", "k3s", "rke2"}
    for platform, branch, minor, coredns, layout, repository, source, commit, evidence in rows:
        said = layout.removeprefix("rke2-coredns-").removesuffix(".values.yaml") if platform == "rke2" else coredns
        assert branch and minor.count(".") == 1 and repository and source and len(commit) == 40 and said in evidence, (platform, branch)
    assert {h.branch for h in releases.HEADS["talos"]} >= {"main", "release-1.13", "release-1.14"}


def _git(cwd: Path, *args: str) -> None:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org", "GIT_AUTHOR_DATE": "2026-11-24T00:00:00Z",
           "GIT_COMMITTER_DATE": "2026-11-24T00:00:00Z", "HOME": str(cwd), "PATH": os.environ["PATH"]}
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


def _talos_repository(root: Path) -> Path:
    """A git repository built from tests/data/refresh-fixtures/talos.tsv: the stored answer of
    siderolabs/talos the refresh reads in place of the network."""
    repo = root / "talos"
    repo.mkdir()
    _git(repo, "init", "--quiet", "--initial-branch=release-1.14")
    corefile = (REPO / "gen" / "data" / "talos" / "talos-1.14.Corefile").read_text(encoding="utf-8")
    testdata = "apiVersion: v1\nkind: ConfigMap\ndata:\n  Corefile: |\n" + "".join(f"    {ln}\n" for ln in corefile.splitlines())
    fixture = (REPO / "tests" / "data" / "refresh-fixtures" / "talos.tsv").read_text(encoding="utf-8")
    for line in fixture.splitlines():
        if not line or line.startswith("#"):
            continue
        branch, tag, coredns = line.split("\t")
        if branch == "main":
            _git(repo, "checkout", "--quiet", "-b", "main")
        testdata_path = "internal/app/machined/pkg/controllers/k8s/internal/k8stemplates/testdata/coredns-configmap-cluster-domain.yaml"
        for path, text in (("pkg/machinery/constants/constants.go", f'const (\n\tDefaultCoreDNSVersion = "{coredns}"\n)\n'),
                           (testdata_path, testdata)):
            (repo / path).parent.mkdir(parents=True, exist_ok=True)
            (repo / path).write_text(text, encoding="utf-8")
        _git(repo, "add", "-A")
        _git(repo, "commit", "--quiet", "--allow-empty", "-m", f"{branch} {tag} {coredns}")
        if tag:
            _git(repo, "tag", tag)
    return repo


def test_the_weekly_refresh_dry_run_reads_a_stored_source_offline_and_names_what_it_could_not_read(tmp_path: Path) -> None:
    """The workflow's step (scripts/refresh-platform-data refresh) with the network replaced by a stored
    answer: the Talos rows it would write, the k3s source it could not read (exit 3), the sources it
    never reads, and nothing written."""
    committed = {p: p.read_bytes() for p in [*(REPO / "tests" / "data" / "platform-sources").glob("*"),
                                             REPO / "gen" / "platforms" / "releases.py", REPO / "gen" / "data" / "SOURCES.md"]}
    talos = _talos_repository(tmp_path)
    done = subprocess.run([sys.executable, str(SCRIPT), "refresh", "--dry-run", "--source", f"talos={talos}",
                           "--source", f"k3s={tmp_path / 'no-such-repository'}", "--report", str(tmp_path / "report.txt")],
                          capture_output=True, text=True, cwd=REPO, timeout=600, check=False)
    assert done.returncode == 3, done.stdout + done.stderr
    out = done.stdout
    assert f"read talos: {talos}" in out
    assert "+v1.14.7\t1.14.7\ttalos-1.14.Corefile corefile-sha256:" in out  # the new row, with its evidence
    assert '\tDefaultCoreDNSVersion = "v1.14.7"' in out
    assert "+talos\tmain\t1.15\t1.14.7\t" in out  # main carries the next minor
    assert "would change: heads.tsv, talos.tsv, gen/platforms/releases.py, gen/data/SOURCES.md" in out
    assert f"could not read k3s: git clone {tmp_path / 'no-such-repository'} exited 128: " in out
    assert "not read by this script: aks: " in out and "not read by this script: kubeadm: " in out
    assert (tmp_path / "report.txt").read_text(encoding="utf-8") == out
    assert {p: p.read_bytes() for p in committed} == committed


def test_the_refresh_refuses_a_source_it_does_not_read() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "refresh", "--dry-run", "--source", "aks=https://example.org"],
                          capture_output=True, text=True, cwd=REPO, check=False)
    assert done.returncode == 1 and "aks is not read by this script" in done.stderr
