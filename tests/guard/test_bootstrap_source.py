"""What a cluster's bootstrap GitRepository delivers: the revision it names (a change that moves it
makes the cluster sync another revision)."""

from __future__ import annotations

from pathlib import Path

from tests.guard.conftest import FLUX_SYSTEM, configmap, flux_ks, kustomization, summary
from tests.helpers import build_tree, git

SYNC = "clusters/prod/flux-system/gotk-sync.yaml"
DNS = {"clusters/prod/dns.yaml": flux_ks("dns", "./dns"),
       "dns/kustomization.yaml": kustomization("coredns-custom.yaml"),
       "dns/coredns-custom.yaml": configmap("coredns-custom")}


def _sync(ref: str = "branch: main", url: str = "ssh://git@example.invalid/fleet", extra: str = "") -> str:
    return FLUX_SYSTEM[SYNC].replace("branch: main", ref).replace("ssh://git@example.invalid/fleet", url) \
        .replace("  ref:\n", extra + "  ref:\n" if extra else "  ref:\n")


def _branch_from_base(root: Path, name: str, files: dict[str, str | None]) -> str:
    """A branch `name` made from base with `files` written (None: deleted); its commit id."""
    git(root, "checkout", "-q", "-b", name, "base")
    for rel, text in files.items():
        if text is None:
            git(root, "rm", "-q", rel)
        else:
            build_tree(root, {rel: text})
    git(root, "add", "-A")
    git(root, "commit", "-q", "--allow-empty", "-m", name)
    commit = git(root, "rev-parse", "HEAD").strip()
    git(root, "checkout", "-q", "main")
    return commit


def _rules(result):
    return [(f.rule, f.severity.value) for f in result.findings if f.severity.value in ("error", "warning")]


def test_a_bootstrap_moved_to_a_branch_this_checkout_lacks_is_refused(flux_repo, guard):
    root = flux_repo(DNS, {SYNC: _sync("branch: release")})
    result = guard(root)
    assert _rules(result) == [("bootstrap-source-moved", "error")]
    finding = result.findings[0]
    assert finding.file == SYNC
    assert "from branch main of example.invalid/fleet to branch release" in finding.message
    assert "git fetch origin release" in finding.message


def test_a_bootstrap_moved_to_a_branch_that_drops_a_configmap_is_judged_there(flux_repo, guard):
    """The cluster syncs branch release after the merge, and release no longer lists the ConfigMap."""
    root = flux_repo(DNS, {SYNC: _sync("branch: release")})
    commit = _branch_from_base(root, "release", {"dns/kustomization.yaml": kustomization(),
                                                 "dns/coredns-custom.yaml": None})
    result = guard(root)
    assert _rules(result) == [("configmap-pruned", "error")]
    assert f"syncs branch release of example.invalid/fleet, commit {commit[:12]}: judged there" in result.findings[0].message
    assert result.findings[0].details["synced"] == commit


def test_a_bootstrap_moved_to_a_branch_that_keeps_everything_passes(flux_repo, guard):
    root = flux_repo(DNS, {SYNC: _sync("branch: release")})
    _branch_from_base(root, "release", {})
    assert _rules(guard(root)) == []


def test_a_bootstrap_moved_to_a_tag_is_judged_at_the_tag(flux_repo, guard):
    root = flux_repo(DNS, {SYNC: _sync("tag: v2")})
    _branch_from_base(root, "v2-work", {"dns/kustomization.yaml": kustomization(), "dns/coredns-custom.yaml": None})
    git(root, "tag", "v2", "v2-work")
    assert _rules(guard(root)) == [("configmap-pruned", "error")]


def test_a_bootstrap_moved_to_another_repository_is_refused(flux_repo, guard):
    root = flux_repo(DNS, {SYNC: _sync(url="ssh://git@example.invalid/someone-else")})
    result = guard(root)
    assert _rules(result) == [("bootstrap-source-moved", "error")]
    assert "another repository" in result.findings[0].message


def test_a_bootstrap_move_can_be_allowed_by_its_kustomization(flux_repo, guard):
    root = flux_repo(DNS, {SYNC: _sync("branch: release")})
    result = guard(root, allow=("ks:flux-system/flux-system",))
    assert [(f.rule, f.severity.value) for f in result.findings if f.rule == "bootstrap-source-moved"] == \
        [("bootstrap-source-moved", "allowed")]

