"""A `.sourceignore` edit that hides an overlay is refused at its own line.

Before, a two-line `.sourceignore` change produced errors and warnings all blaming files the
change never touched, and the fix told the user to make `kubectl kustomize ./overlays/…`
succeed, which it already did."""

from __future__ import annotations

from tests.guard.conftest import by_rule, configmap, flux_ks, kustomization

BASE = {
    "clusters/prod/dns.yaml": flux_ks("dns", "./overlays/k3s/prod"),
    "overlays/k3s/prod/kustomization.yaml": kustomization("custom.yaml"),
    "overlays/k3s/prod/custom.yaml": configmap("coredns-custom"),
    "docs/notes.yaml": "a: b\n",
}


def test_hiding_the_overlay_names_the_sourceignore_line(flux_repo, guard):
    root = flux_repo(BASE, {".sourceignore": "# keep the render out of the artifact\noverlays/\n"})
    result = guard(root)
    (f,) = by_rule(result.findings, "sourceignore-hides")
    assert (f.severity.value, f.file, f.line) == ("error", ".sourceignore", 2)
    assert f.message.startswith(".sourceignore pattern `overlays/` hides 2 file(s) Flux builds from: "
                                "overlays/k3s/prod/custom.yaml, overlays/k3s/prod/kustomization.yaml")
    (failed,) = by_rule(result.findings, "build-failed")
    assert "is in the repository but not in the Flux artifact" in failed.hint  # not "make kubectl kustomize succeed"


def test_a_nested_sourceignore_is_named_at_its_own_path(flux_repo, guard):
    root = flux_repo(BASE, {"overlays/.sourceignore": "*.md\nk3s/\n"})
    (f,) = by_rule(guard(root).findings, "sourceignore-hides")
    assert (f.file, f.line) == ("overlays/.sourceignore", 2)


def test_hiding_files_no_build_reads_passes(flux_repo, guard):
    root = flux_repo(BASE, {".sourceignore": "docs/\n"})
    result = guard(root)
    assert by_rule(result.findings, "sourceignore-hides") == [] and not [f for f in result.findings if f.severity.value == "error"]
