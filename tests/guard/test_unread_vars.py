"""A Kustomization whose `substituteFrom` inputs the guard cannot read fails closed, each case in a
real git repository built by Flux's own code.

kustomize-controller fails a build whose substituteFrom object is missing and not optional, and
substitutes a SOPS Secret's real values; the guard built such a Kustomization with those variables
empty and judged the result. Now one whose build uses a variable such a source may set is not
judged, and a change to its files is refused (not-judged-touched) naming the source, why, and
the fix; one whose build uses none is judged exactly, and a note says so.
"""

from __future__ import annotations

import pytest

from tests.guard.conftest import by_rule, configmap, flux_ks, kustomization

SOPS_SECRET = """
    apiVersion: v1
    kind: Secret
    metadata: {name: cluster-secrets, namespace: flux-system}
    stringData:
      SECRET_DOMAIN: ENC[AES256_GCM,data:abc,iv:def,tag:ghi,type:str]
    sops:
      version: 3.8.1
"""


def _platform(*refs: str, substitute: str = "") -> str:
    lines = "postBuild:\n"
    if substitute:
        lines += f"  substitute:\n    {substitute}\n"
    lines += "  substituteFrom:\n" + "".join(f"    - {r}\n" for r in refs)
    return flux_ks("platform", "./platform", extra=lines)


def _files(platform: str, uses: str, settings: str = "CLUSTER_NAME: prod") -> dict[str, str]:
    return {
        "clusters/prod/platform.yaml": platform,
        "clusters/prod/vars.yaml": "---\n".join((configmap("cluster-settings", namespace="flux-system", data=settings),
                                                 SOPS_SECRET)),
        "platform/kustomization.yaml": kustomization("coredns-custom.yaml"),
        "platform/coredns-custom.yaml": configmap("coredns-custom", data=f"log.override: log\nzone.server: {uses}"),
    }


def _edit(uses: str) -> dict[str, str]:
    return {"platform/coredns-custom.yaml": configmap("coredns-custom", data=f"log.override: log # x\nzone.server: {uses}")}


FROM_BOTH = _platform("{kind: ConfigMap, name: cluster-settings}", "{kind: Secret, name: cluster-secrets}")


def test_a_build_using_a_sops_secrets_variable_is_not_judged_and_a_change_to_it_refused(flux_repo, guard):
    """Before: judged with ${SECRET_DOMAIN} empty, 0 errors (an info that the source was unreadable)."""
    result = guard(flux_repo(_files(FROM_BOTH, "${SECRET_DOMAIN}"), _edit("${SECRET_DOMAIN}")))
    [finding] = [f for f in result.findings if f.severity.value == "error"]
    assert finding.rule == "not-judged-touched" and finding.file == "platform/coredns-custom.yaml"
    assert finding.details["kustomization"] == "flux-system/platform"
    assert ("its postBuild substitutes from Secret flux-system/cluster-secrets (SOPS-encrypted), which cannot be "
            "read here, and its build uses ${SECRET_DOMAIN} that it may set") in finding.message
    assert "in a ConfigMap of the repository instead of SOPS Secret flux-system/cluster-secrets" in finding.hint
    assert "--allow ks:flux-system/platform" in finding.hint


@pytest.mark.parametrize(("platform", "uses", "settings"), [
    (FROM_BOTH, "${CLUSTER_NAME}", "CLUSTER_NAME: prod"),  # only the readable ConfigMap's variable
    (_platform("{kind: Secret, name: cluster-secrets}", "{kind: ConfigMap, name: cluster-settings}"),
     "${SECRET_DOMAIN}", "SECRET_DOMAIN: example.org"),  # a later readable source sets it: it wins
    (_platform("{kind: Secret, name: cluster-secrets}", substitute="SECRET_DOMAIN: example.org"),
     "${SECRET_DOMAIN}", "CLUSTER_NAME: prod"),  # inline substitute wins over every source
], ids=["uses-only-readable-vars", "later-source-sets-it", "inline-substitute-sets-it"])
def test_a_build_using_none_of_the_unread_variables_is_judged_exactly(flux_repo, guard, platform, uses, settings):
    result = guard(flux_repo(_files(platform, uses, settings), _edit(uses)))
    assert [f.rule for f in result.findings if f.severity.value == "error"] == []
    assert any("cannot be read here, but the build of Kustomization flux-system/platform" in n and
               "judged exactly" in n for n in result.notes), result.notes


def test_a_missing_configmap_that_is_not_optional_fails_closed(flux_repo, guard):
    platform = _platform("{kind: ConfigMap, name: made-by-hand}")
    result = guard(flux_repo(_files(platform, "${ANYTHING:=x}"), _edit("${ANYTHING:=x}")))
    [finding] = by_rule(result.findings, "not-judged-touched")
    assert "ConfigMap flux-system/made-by-hand (not in this repository)" in finding.message
    assert "${ANYTHING}" in finding.message  # a variable with a default may still be set by it
    assert "mark its substituteFrom entry `optional: true` if the cluster may lack it" in finding.hint


def test_a_missing_optional_configmap_is_taken_as_absent(flux_repo, guard):
    platform = _platform("{kind: ConfigMap, name: made-by-hand, optional: true}")
    result = guard(flux_repo(_files(platform, "${ANYTHING:=x}"), _edit("${ANYTHING:=x}")))
    assert by_rule(result.findings, "not-judged-touched") == []


@pytest.mark.parametrize("path", ["docs/notes.md", "platform/notes.md"], ids=["elsewhere", "in-its-folder-unread"])
def test_a_change_to_no_file_the_build_reads_refuses_nothing(flux_repo, guard, path):
    """Which files a build reads does not depend on its variables: a build that is the same at base
    and head is not asked about them, and a file under its folder it does not read is no input."""
    result = guard(flux_repo({**_files(FROM_BOTH, "${SECRET_DOMAIN}"), path: "a\n"}, {path: "b\n"}))
    assert [f.rule for f in result.findings if f.severity.value == "error"] == []
