"""Messages that help: kustomize's own cause with repository paths, at most
~300 characters (the whole text in details.error), `--path` named as --path, and a removed
generator pointed at the line that dropped it."""

from __future__ import annotations

from pathlib import Path

import pytest

from gen.errors import UsageError
from gen.guard.errortext import cause, clean_error
from tests.guard.conftest import configmap, flux_ks, kustomization, summary

BASE = {"clusters/prod/dns.yaml": flux_ks("dns", "./dns"), "dns/kustomization.yaml": kustomization("custom.yaml"),
        "dns/custom.yaml": configmap("coredns-custom")}
REMOTE = "https://git.example.invalid/org/repo//base?ref=v1"  # .invalid never resolves (RFC 2606)


def _no_temp_paths(*texts: str) -> None:
    for text in texts:
        assert "coredns-gen-guard-" not in text and "/dev/shm" not in text, text


def test_unreachable_remote_base_names_the_url_and_the_resolver_error(flux_repo, guard):
    root = flux_repo(BASE, {"dns/kustomization.yaml": kustomization("custom.yaml", REMOTE)})
    [finding] = guard(root).findings
    assert finding.rule == "build-failed" and finding.severity.value == "error"
    assert "cannot fetch remote base: Could not resolve host: git.example.invalid (no network" in finding.message
    assert f"('{REMOTE}')" in finding.message
    assert "exit status 128" not in finding.message
    assert len(finding.message) <= 300
    assert "git fetch" in finding.details["error"]  # the whole text stays in json details
    _no_temp_paths(finding.message, finding.details["error"])


def test_a_long_url_is_cut_before_the_resolver_error(flux_repo, guard):
    """Two clusters add ` [cluster ...]` to the message; a long URL goes, the cause stays."""
    from tests.guard.conftest import FLUX_SYSTEM

    staging = {p.replace("prod", "staging"): t.replace("prod", "staging") for p, t in FLUX_SYSTEM.items()}
    url = "https://git.example.invalid/" + "a-rather-long-organisation-name/" * 4 + "repo//config/default?ref=v1.0.0"
    root = flux_repo({**BASE, **staging, "clusters/staging/dns.yaml": flux_ks("dns", "./dns")},
                     {"dns/kustomization.yaml": kustomization("custom.yaml", url)})
    findings = guard(root).findings
    assert len(findings) == 2
    for finding in findings:
        assert len(finding.message) <= 300 and finding.message.endswith("/flux-system/gotk-sync.yaml]")
        assert "Could not resolve host: git.example.invalid (no network" in finding.message
        assert url in finding.details["error"]


def test_missing_file_in_a_nested_base_is_named_by_its_repository_path(flux_repo, guard):
    base = {"clusters/prod/dns.yaml": flux_ks("dns", "./dns"), "dns/kustomization.yaml": kustomization("base"),
            "dns/base/kustomization.yaml": kustomization("custom.yaml"), "dns/base/custom.yaml": configmap("coredns-custom")}
    root = flux_repo(base, {"dns/base/kustomization.yaml": kustomization("custom.yaml", "missing.yaml")})
    [finding] = guard(root).findings
    assert "open dns/base/missing.yaml: no such file or directory" in finding.message
    assert len(finding.message) <= 300
    _no_temp_paths(finding.message, finding.details["error"])


def test_a_flux_spec_build_error_names_repository_paths(flux_repo, guard):
    """targetNamespace makes Flux's generator write a kustomization over spec.path."""
    base = {"clusters/prod/dns.yaml": flux_ks("dns", "./dns", extra="targetNamespace: kube-system"),
            "dns/kustomization.yaml": kustomization("custom.yaml"), "dns/custom.yaml": configmap("coredns-custom")}
    root = flux_repo(base, {"dns/kustomization.yaml": kustomization("custom.yaml", "gone.yaml")})
    [finding] = guard(root).findings
    assert "dns/gone.yaml" in finding.message
    _no_temp_paths(finding.message, finding.details["error"])


def test_clean_error_maps_every_temporary_form_back(tmp_path):
    work = tmp_path / "coredns-gen-guard-x1"
    head = work / "head" / "repo"
    text = (f"error: accumulating resources: accumulation err='accumulating resources from 'a': "
            f"read {head}/a: is a directory': recursed accumulation of path '{head}/a': accumulating resources: "
            f"accumulation err='accumulating resources from 'b.yaml': open {head}/a/b.yaml: no such file or directory': "
            f"must build at directory: not a valid directory: evalsymlink failure on '{head}/a/b.yaml' : lstat "
            f"{head}/a/b.yaml: no such file or directory\nin {head}/kustomization.yaml")
    cleaned = clean_error(text, [work / "base" / "repo", head], work)
    assert str(tmp_path) not in cleaned and "\n" not in cleaned
    assert cause(cleaned) == "accumulating resources from 'b.yaml': open a/b.yaml: no such file or directory"


def test_long_errors_are_cut_to_300_characters_with_the_rest_in_details(flux_repo, guard):
    many = [f"missing-{i:02d}-{'x' * 30}.yaml" for i in range(12)]
    root = flux_repo(BASE, {"dns/kustomization.yaml": kustomization("custom.yaml", *many), "dns/zz.yaml": "x: ["})
    [finding] = guard(root).findings
    assert len(finding.message) <= 300
    assert "missing-00" in finding.message


def test_decommissioned_root_hint_says_how_to_allow_it(flux_repo, guard):
    root = flux_repo(BASE, {"clusters/prod": None})
    findings = [f for f in guard(root).findings if f.rule == "build-failed"]
    assert findings and "--allow cluster:clusters/prod/flux-system/gotk-sync.yaml" in findings[0].hint


def test_a_missing_kustomization_hint_says_how_to_allow_it(flux_repo, guard):
    root = flux_repo(BASE, {"dns": None})
    [finding] = guard(root).findings
    assert "--allow ks:flux-system/dns" in finding.hint


def test_path_that_is_not_in_the_repository_names_path(flux_repo, guard):
    root = flux_repo(BASE, {})
    with pytest.raises(UsageError) as err:
        guard(root, paths=("clusters/nowhere",))
    assert str(err.value).startswith("--path: clusters/nowhere is not in the repository")


def test_path_without_flux_objects_names_path(flux_repo, guard):
    root = flux_repo({**BASE, "docs/readme.yaml": "a: 1\n"}, {})
    with pytest.raises(UsageError) as err:
        guard(root, paths=("docs",))
    assert str(err.value).startswith("--path: no Flux Kustomization")


GEN = """
    apiVersion: kustomize.config.k8s.io/v1beta1
    kind: Kustomization
    resources:
      - custom.yaml
    configMapGenerator:
      - name: extra
        namespace: default
        literals:
          - a=1
"""


def test_removed_generator_is_pointed_at_the_kustomization_that_dropped_it(flux_repo, guard):
    root = flux_repo({**BASE, "dns/kustomization.yaml": GEN}, {"dns/kustomization.yaml": kustomization("custom.yaml")})
    [finding] = guard(root).findings
    assert summary([finding])[0][:4] == ("configmap-pruned", "error", "dns/kustomization.yaml", 4)  # where it was (the file is shorter now)
    assert "no longer has the configMapGenerator entry 'extra'" in finding.message
    assert "put the configMapGenerator entry '- name: extra' back in dns/kustomization.yaml" in finding.hint


def test_removed_generator_among_others_points_at_the_generator_list(flux_repo, guard):
    two = GEN + "      - name: other\n        namespace: default\n        literals:\n          - b=2\n"
    one = GEN.replace("name: extra", "name: other").replace("a=1", "b=2")
    root = flux_repo({**BASE, "dns/kustomization.yaml": two}, {"dns/kustomization.yaml": one})
    [finding] = guard(root).findings
    assert (finding.file, finding.line) == ("dns/kustomization.yaml", 5)  # its configMapGenerator: line
    assert "'extra'" in finding.message


def test_generator_in_a_base_the_overlay_stops_using_points_at_resources(flux_repo, guard, tmp_path: Path):
    base = {"clusters/prod/dns.yaml": flux_ks("dns", "./dns"), "dns/kustomization.yaml": kustomization("custom.yaml", "gen"),
            "dns/custom.yaml": configmap("coredns-custom"), "dns/gen/kustomization.yaml": GEN.replace("  - custom.yaml\n", "  []\n").replace("resources:\n      []", "resources: []")}
    root = flux_repo(base, {"dns/kustomization.yaml": kustomization("custom.yaml")})
    [finding] = guard(root).findings
    assert (finding.file, finding.line) == ("dns/kustomization.yaml", 3)
    assert "no longer lists 'gen'" in finding.message
