"""The guard on coredns-gen's own committed render (overlays/ + examples/clusters/): every DNS
invariant holds on it, and dropping the k3s HPA from it is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT
from tests.guard.conftest import FLUX_SYSTEM


def _own_render() -> dict[str, str]:
    files: dict[str, str] = {}
    clusters = sorted(p.name for p in (REPO_ROOT / "examples" / "clusters").iterdir() if p.is_dir())
    if not clusters:
        pytest.skip("no rendered examples/clusters yet")
    for cluster in clusters:
        for key, text in FLUX_SYSTEM.items():
            files[key.replace("prod", cluster)] = text.replace("prod", cluster)
        for flux_file in (REPO_ROOT / "examples" / "clusters" / cluster).glob("*.yaml"):
            files[f"clusters/{cluster}/{flux_file.name}"] = flux_file.read_text()
    for path in sorted((REPO_ROOT / "overlays").rglob("*")):
        if path.is_file():
            files[str(path.relative_to(REPO_ROOT))] = path.read_text()
    # The values files too, as in a repository coredns-gen renders: they say each cluster's platform.
    files[".coredns-gen.yaml"] = "values: [values/*.yaml]\n"
    for values in (REPO_ROOT / "examples").glob("*.yaml"):
        files[f"values/{values.name}"] = values.read_text().replace("output: examples/clusters/", "output: clusters/")
    return files


def _touch(files: dict[str, str]) -> dict[str, str]:
    """A harmless change to every overlay, so every cluster is judged."""
    return {k: v + "# touched\n" for k, v in files.items() if k.startswith("overlays/") and k.endswith("kustomization.yaml")}


def test_own_render_satisfies_every_invariant(flux_repo, guard):
    files = _own_render()
    root = flux_repo(files, _touch(files), standard=False)
    result = guard(root)
    # The AKS example reads its overlay from another GitRepository (dns-config): not built here,
    # so touching that overlay is refused (the guard cannot tell that repository is not this one) ...
    assert result.stats["clusters"] >= 3 and result.stats["clusters_judged"] >= 2
    assert [(f.rule, f.file) for f in result.findings if f.severity.value != "info"] == [
        ("not-judged-touched", "overlays/aks/aks-westeu/kustomization.yaml")]
    # ... until the change says it is deliberate
    result = guard(root, allow=("ks:flux-system/coredns",))
    assert [f for f in result.findings if f.severity.value not in ("info", "allowed")] == []
    # ... and the summary says so instead of passing it silently.
    assert [(f.rule, f.details["reason"]) for f in result.findings if f.severity.value == "info"] == [
        ("not-judged", "source GitRepository flux-system/dns-config is not this repository "
                       "(https://git.example.com/platform/dns-config.git)")]


def test_dropping_the_rendered_k3s_hpa_is_refused(flux_repo, guard):
    files = _own_render()
    kfile = next((k for k in files if k.startswith("overlays/k3s/") and k.endswith("kustomization.yaml")), None)
    if kfile is None or "coredns-hpa.yaml" not in files[kfile]:
        pytest.skip("no rendered k3s overlay with an HPA")
    head = {kfile: "\n".join(line for line in files[kfile].splitlines() if "coredns-hpa.yaml" not in line) + "\n"}
    findings = [f for f in guard(flux_repo(files, head, standard=False)).findings if f.severity.value != "info"]
    assert ("k3s-hpa-min-replicas", "error") in [(f.rule, f.severity.value) for f in findings]
    assert Path(kfile).parent.name in findings[0].file or findings[0].file.startswith("overlays/k3s/")
