"""What a cluster's bootstrap GitRepository delivers: the revision it names (a change that moves it
makes the cluster sync another revision) and the files its artifact holds (`spec.sparseCheckout`
leaves files out as `spec.ignore` does; `spec.include` copies other artifacts in)."""

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
    assert "branch release is not in this checkout" in finding.message
    assert finding.hint.startswith("fetch it (`git fetch origin release:refs/remotes/origin/release`) and run the guard")


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


SPARSE = "  sparseCheckout:\n            - clusters/\n            - platform/a/\n        "


def test_sparse_checkout_leaves_a_folder_out_of_the_artifact_and_flux_prunes_its_configmap(flux_repo, guard):
    """`sparseCheckout: [clusters/, platform/a/]`: platform/b is never checked out, so the
    Kustomization reading it loses its ConfigMap, as the same cut by spec.ignore does."""
    base = {"clusters/prod/platform.yaml": flux_ks("platform", "./platform"),
            "platform/kustomization.yaml": kustomization("a/cm.yaml", "b/cm.yaml"),
            "platform/a/cm.yaml": configmap("a", namespace="default"),
            "platform/b/cm.yaml": configmap("coredns-custom")}
    root = flux_repo(base, {SYNC: _sync(extra=SPARSE)})
    rules = _rules(guard(root))
    assert ("configmap-pruned", "error") in rules or ("build-failed", "error") in rules, rules


def test_sparse_checkout_of_the_built_folders_passes(flux_repo, guard):
    base = {"clusters/prod/dns.yaml": flux_ks("dns", "./platform/a"),
            "platform/a/kustomization.yaml": kustomization("cm.yaml"),
            "platform/a/cm.yaml": configmap("coredns-custom"),
            "platform/b/cm.yaml": configmap("unused", namespace="default")}
    root = flux_repo(base, {SYNC: _sync(extra=SPARSE)})
    assert _rules(guard(root)) == []


def test_an_include_copied_into_the_bootstrap_artifact_is_not_judged(flux_repo, guard):
    include = "  include:\n            - repository: {name: shared}\n              toPath: dns\n        "
    root = flux_repo(DNS, {SYNC: _sync(extra=include), "dns/coredns-custom.yaml": configmap("coredns-custom", data="x: y")})
    result = guard(root)
    assert [r for r in summary(result.findings) if r[1] == "error"], summary(result.findings)
    assert any("spec.include" in f.message for f in result.findings)
