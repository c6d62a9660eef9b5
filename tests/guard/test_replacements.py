"""Replacements that are not losses: a generator's new hash, or a generator switching from its hash
name to its stable name (`disableNameSuffixHash`), is the same generator writing the successor; a
stable name becoming a hash name is a prune of the stable name."""

from __future__ import annotations

from tests.guard.conftest import configmap, flux_ks, kustomization, summary

GEN = """
    apiVersion: kustomize.config.k8s.io/v1beta1
    kind: Kustomization
    configMapGenerator:
      - name: coredns-custom
        namespace: kube-system
        literals:
          - log.override=log{options}
"""
STABLE = "\n        options:\n          disableNameSuffixHash: true"
BASE = {"clusters/prod/dns.yaml": flux_ks("dns", "./dns")}


def _ids(result):
    return [f.details.get("object") for f in result.findings]


def test_hash_name_to_stable_name_passes(flux_repo, guard):
    root = flux_repo({**BASE, "dns/kustomization.yaml": GEN.format(options="")},
                     {"dns/kustomization.yaml": GEN.format(options=STABLE)})
    assert guard(root).findings == []


def test_stable_name_becoming_a_hash_name_is_a_prune_of_the_stable_name(flux_repo, guard):
    """AKS's CoreDNS mounts kube-system/coredns-custom by name: a generator losing
    disableNameSuffixHash writes coredns-custom-<hash>, and Flux prunes the name AKS mounts."""
    root = flux_repo({**BASE, "dns/kustomization.yaml": GEN.format(options=STABLE)},
                     {"dns/kustomization.yaml": GEN.format(options="")})
    result = guard(root)
    assert [(f.rule, f.severity.value) for f in result.findings] == [("configmap-pruned", "error")]
    assert _ids(result) == ["kube-system_coredns-custom__ConfigMap"]
    assert "its generator now names it coredns-custom-" in result.findings[0].message


def test_a_hash_rotation_stays_routine(flux_repo, guard):
    root = flux_repo({**BASE, "dns/kustomization.yaml": GEN.format(options="")},
                     {"dns/kustomization.yaml": GEN.format(options="").replace("log.override=log", "log.override=errors")})
    assert guard(root).findings == []


def test_generator_removed_is_still_refused(flux_repo, guard):
    root = flux_repo({**BASE, "dns/kustomization.yaml": GEN.format(options=""), "dns/other.yaml": configmap("other")},
                     {"dns/kustomization.yaml": kustomization("other.yaml")})
    result = guard(root)
    assert [(f.rule, f.severity.value) for f in result.findings] == [("configmap-pruned", "error")]
    assert _ids(result)[0].startswith("kube-system_coredns-custom-")


def test_hash_name_replaced_by_a_plain_manifest_of_the_stable_name_is_refused(flux_repo, guard):
    """Not the same generator: the generated object goes and a hand-written one takes its name."""
    root = flux_repo({**BASE, "dns/kustomization.yaml": GEN.format(options="")},
                     {"dns/kustomization.yaml": kustomization("custom.yaml"), "dns/custom.yaml": configmap("coredns-custom")})
    assert [r[0] for r in summary(guard(root).findings)] == ["configmap-pruned"]
