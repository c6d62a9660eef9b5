"""A Kustomization whose `substituteFrom` inputs the guard cannot read is judged as Flux builds it
with placeholders, and fails closed only where a placeholder reaches what a verdict depends on;
each case in a real git repository built by Flux's own code.

kustomize-controller fails a build whose substituteFrom object is missing and not optional, and
substitutes a SOPS Secret's real values. A build that uses none of such a source's variables is
judged exactly. One that uses some is built twice with two placeholders for them: where the builds
agree on every identity and every field a verdict reads, it is judged (the variable only feeds
values: issue case gavinmcfall/home-ops e53617821cd1, `calibre.${SECRET_DOMAIN}`), and findings
and the Corefile view show `${NAME}`; where they do not, it is not judged, and a change to what it
reads is refused (not-judged-touched) naming the variable, the field, the source and the fix.
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


def test_a_variable_that_only_feeds_a_value_decides_nothing(flux_repo, guard):
    """Before: refused as not judged (not-judged-touched), as every ordinary bump under a
    Kustomization substituting from a SOPS Secret was (gavinmcfall/home-ops e53617821cd1,
    `calibre.${SECRET_DOMAIN}`). Built twice with two placeholders, the builds agree on every
    identity and field a verdict reads: judged, and the note says with which variable."""
    result = guard(flux_repo(_files(FROM_BOTH, "calibre.${SECRET_DOMAIN}"), _edit("calibre.${SECRET_DOMAIN}")))
    assert [f.rule for f in result.findings if f.severity.value == "error"] == []
    assert any("flux-system/platform" in n and "${SECRET_DOMAIN}" in n and "judged with the variable as a placeholder"
               in n for n in result.notes), result.notes


def test_a_prune_under_a_kustomization_judged_with_placeholders_is_refused(flux_repo, guard):
    """Judged, not passed: dropping the ConfigMap whose data holds the variable is a prune."""
    result = guard(flux_repo(_files(FROM_BOTH, "${SECRET_DOMAIN}"), {"platform/kustomization.yaml": kustomization()}))
    assert [(f.rule, f.details.get("object")) for f in result.findings if f.severity.value == "error"] == \
        [("configmap-pruned", "kube-system_coredns-custom__ConfigMap")]
    assert "zz-cgvar" not in repr([f.as_dict() for f in [*result.findings, *result.views]])


def _namespaced_app() -> dict[str, str]:
    files = _files(FROM_BOTH, "${SECRET_DOMAIN}")
    files["platform/kustomization.yaml"] = kustomization("coredns-custom.yaml", "app.yaml")
    files["platform/app.yaml"] = configmap("app", namespace="apps-${SECRET_DOMAIN}")
    return files


REENCRYPTED = {"clusters/prod/vars.yaml": "---\n".join((
    configmap("cluster-settings", namespace="flux-system", data="CLUSTER_NAME: prod"),
    SOPS_SECRET.replace("data:abc", "data:xyz")))}


def test_a_variable_of_an_unchanged_secret_in_a_namespace_is_one_value_at_both_revisions(flux_repo, guard):
    """dcplaya/home-ops e85e6ac016: a chart bump beside Certificate `${SECRET_DOMAIN}-production`,
    whose SOPS Secret the change does not touch, was refused. The variable has the same value at base
    and head: the ConfigMap in `apps-${SECRET_DOMAIN}` is the same object at both, kept: judged."""
    result = guard(flux_repo(_namespaced_app(), _edit("${SECRET_DOMAIN}")))
    assert [f.rule for f in result.findings if f.severity.value == "error"] == []


def test_an_object_named_by_an_unchanged_secret_that_leaves_the_build_is_deleted(flux_repo, guard):
    """Judged, not passed: whatever the value, the object leaves the build and Flux deletes it."""
    head = {"platform/kustomization.yaml": kustomization("coredns-custom.yaml")}
    result = guard(flux_repo(_namespaced_app(), head))
    errors = [(f.rule, f.message) for f in result.findings if f.severity.value == "error"]
    assert [rule for rule, _ in errors] == ["configmap-pruned"], errors
    assert "apps-${SECRET_DOMAIN}/app" in errors[0][1] and "zz-cgvar" not in errors[0][1]


def test_a_variable_that_reaches_a_namespace_is_not_judged_when_its_secret_changes(flux_repo, guard):
    """The SOPS Secret is re-encrypted in the same change: its value may differ at head, and the
    namespace with it."""
    result = guard(flux_repo(_namespaced_app(), {**_edit("${SECRET_DOMAIN}"), **REENCRYPTED}))
    [finding] = [f for f in result.findings if f.severity.value == "error"]
    assert finding.rule == "not-judged-touched" and finding.file == "platform/coredns-custom.yaml"
    assert finding.details["kustomization"] == "flux-system/platform"
    assert ("its postBuild substitutes from Secret flux-system/cluster-secrets (SOPS-encrypted), which cannot be "
            "read here, and a variable it may set decides what Flux applies: ${SECRET_DOMAIN} reaches the identity "
            "(apiVersion, kind, namespace, name) of ConfigMap apps-${SECRET_DOMAIN}/app") in finding.message
    assert "in a ConfigMap of the repository instead of SOPS Secret flux-system/cluster-secrets" in finding.hint
    assert "--allow ks:flux-system/platform" in finding.hint


CHILD = flux_ks("child", "./apps/${SECRET_DOMAIN}/dns")
HELMRELEASE = """
    apiVersion: helm.toolkit.fluxcd.io/v2
    kind: HelmRelease
    metadata: {name: dns, namespace: default}
    spec:
      releaseName: %s
      chart:
        spec: {chart: dns, version: "1.0.0", sourceRef: {kind: HelmRepository, name: charts}}
"""


@pytest.mark.parametrize(("text", "field"), [
    (CHILD, "spec.path of Kustomization flux-system/child"),
    (HELMRELEASE % "dns-${SECRET_DOMAIN}", "spec.releaseName of HelmRelease default/dns"),
    (configmap("marked", annotations="kustomize.toolkit.fluxcd.io/prune: ${SECRET_DOMAIN}"),
     "metadata.annotations.kustomize.toolkit.fluxcd.io/prune of ConfigMap kube-system/marked"),
    (configmap("shouted", data="x: ${SECRET_DOMAIN^^}", namespace="${SECRET_DOMAIN^^}"),
     "the identity (apiVersion, kind, namespace, name) of ConfigMap"),
], ids=["child-path", "release-name", "prune-marker", "transformed"])
def test_a_variable_that_reaches_a_field_a_verdict_reads_is_not_judged(flux_repo, guard, text, field):
    files = _files(FROM_BOTH, "${SECRET_DOMAIN}")
    files["platform/kustomization.yaml"] = kustomization("coredns-custom.yaml", "more.yaml")
    files["platform/more.yaml"] = text
    result = guard(flux_repo(files, _edit("${SECRET_DOMAIN}")))
    [finding] = by_rule(result.findings, "not-judged-touched")
    assert f"${{SECRET_DOMAIN}} reaches {field}" in finding.message


def test_a_child_path_a_variable_decides_counts_the_folder_before_it(flux_repo, guard):
    """Where the child reads is unknown below `apps/`: a change there is refused, though no build
    here read it (the parent changes too: one whose build is the same at both revisions is not
    built again)."""
    files = _files(FROM_BOTH, "${SECRET_DOMAIN}")
    files["platform/kustomization.yaml"] = kustomization("coredns-custom.yaml", "child.yaml")
    files["platform/child.yaml"] = CHILD
    files["apps/prod/dns/kustomization.yaml"] = kustomization("cm.yaml")
    files["apps/prod/dns/cm.yaml"] = configmap("coredns-custom", namespace="dns")
    result = guard(flux_repo(files, {"apps/prod/dns/kustomization.yaml": kustomization(), **_edit("${SECRET_DOMAIN}")}))
    [finding] = by_rule(result.findings, "not-judged-touched")
    assert finding.details["files"] == "apps/prod/dns/kustomization.yaml, platform/coredns-custom.yaml"


def test_a_parent_whose_build_is_unchanged_is_rebuilt_with_placeholders_for_its_child(flux_repo, guard):
    """Only the child's folder changes: the parent's build is the same at both revisions, but the
    child's spec.path is what the parent's build says. Before, the parent was not built again with
    placeholders, so the child was explored from the build with the variable empty
    (`./apps//dns`, a folder that does not exist at either revision: nothing applied, nothing
    pruned) and the ConfigMap dropped from apps/prod/dns passed. Now the parent's placeholders reach
    the child's spec.path, and the change under `apps/` is refused."""
    files = _files(FROM_BOTH, "${SECRET_DOMAIN}")
    files["platform/kustomization.yaml"] = kustomization("coredns-custom.yaml", "child.yaml")
    files["platform/child.yaml"] = CHILD
    files["apps/prod/dns/kustomization.yaml"] = kustomization("cm.yaml")
    files["apps/prod/dns/cm.yaml"] = configmap("coredns-custom", namespace="dns")
    result = guard(flux_repo(files, {"apps/prod/dns/kustomization.yaml": kustomization()}))
    [finding] = by_rule(result.findings, "not-judged-touched")
    assert finding.details["files"] == "apps/prod/dns/kustomization.yaml"
    assert "${SECRET_DOMAIN} reaches spec.path of Kustomization flux-system/child" in finding.message


def test_a_parent_whose_build_is_unchanged_and_whose_child_path_holds_no_variable_is_judged(flux_repo, guard):
    """The parent is built again with placeholders, which reach nothing of its child: the child is
    judged, and the prune under it refused as a prune (not as not judged)."""
    files = _files(FROM_BOTH, "${SECRET_DOMAIN}")
    files["platform/kustomization.yaml"] = kustomization("coredns-custom.yaml", "child.yaml")
    files["platform/child.yaml"] = flux_ks("child", "./apps/prod/dns")
    files["apps/prod/dns/kustomization.yaml"] = kustomization("cm.yaml")
    files["apps/prod/dns/cm.yaml"] = configmap("coredns-custom", namespace="dns")
    result = guard(flux_repo(files, {"apps/prod/dns/kustomization.yaml": kustomization()}))
    assert [f.rule for f in result.findings if f.severity.value == "error"] == ["configmap-pruned"]


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


def test_a_missing_configmap_that_is_not_optional_fails_closed_where_its_variable_reaches_a_name(flux_repo, guard):
    platform = _platform("{kind: ConfigMap, name: made-by-hand}")
    files = _files(platform, "${ANYTHING:=x}")
    files["platform/kustomization.yaml"] = kustomization("coredns-custom.yaml", "app.yaml")
    files["platform/app.yaml"] = configmap("app-${ANYTHING:=x}", namespace="default")
    # the change also edits what makes it (an ExternalSecret no build here applies): its value may change
    made = {"secrets/made-by-hand.yaml": "kind: ExternalSecret\nmetadata: {name: made-by-hand}\nspec: {refreshInterval: %s}\n"}
    files["secrets/made-by-hand.yaml"] = made["secrets/made-by-hand.yaml"] % "1h"
    result = guard(flux_repo(files, {**_edit("${ANYTHING:=x}"), "secrets/made-by-hand.yaml": made["secrets/made-by-hand.yaml"] % "2h"}))
    [finding] = by_rule(result.findings, "not-judged-touched")
    assert "ConfigMap flux-system/made-by-hand (not in this repository)" in finding.message
    assert "${ANYTHING} reaches the identity" in finding.message  # a variable with a default may still be set by it
    assert "mark its substituteFrom entry `optional: true` if the cluster may lack it" in finding.hint


def test_a_key_name_holding_a_variable_of_an_absent_secret_is_judged(flux_repo, guard):
    """A `coredns-custom` key named after `${DOMAIN}` of a Secret the repository does not hold:
    adding a key was refused; the key's name decides no identity."""
    platform = _platform("{kind: Secret, name: made-by-external-secrets}")
    base = _files(platform, "log")
    base["platform/coredns-custom.yaml"] = configmap("coredns-custom", data="${DOMAIN}.server: |\n  ${DOMAIN}:53 {\n    log\n  }")
    head = {"platform/coredns-custom.yaml": configmap(
        "coredns-custom", data="${DOMAIN}.server: |\n  ${DOMAIN}:53 {\n    log\n  }\nlog.override: log")}
    result = guard(flux_repo(base, head))
    assert [f.rule for f in result.findings if f.severity.value == "error"] == []


COREFILE = "Corefile: |\n  .:53 {\n    errors\n    forward . ${UPSTREAM}\n  }"


def test_a_corefile_edit_under_an_absent_secret_is_judged_and_shown_with_the_variable(flux_repo, guard):
    """The Corefile view shows `${UPSTREAM}`, never a guessed value (nor the placeholder)."""
    base = {"clusters/prod/dns.yaml": flux_ks("dns", "./dns", extra=(
                "postBuild:\n  substituteFrom:\n    - {kind: Secret, name: upstreams}")),
            "dns/kustomization.yaml": kustomization("cm.yaml"),
            "dns/cm.yaml": configmap("coredns", data=COREFILE)}
    head = {"dns/cm.yaml": configmap("coredns", data=COREFILE.replace("errors", "errors\n    cache 30"))}
    result = guard(flux_repo(base, head))
    assert [f.rule for f in result.findings if f.severity.value == "error"] == []
    (view,) = result.views
    assert "    forward . ${UPSTREAM}" in view.details["head"].splitlines()
    assert [line for line in view.details["diff"].splitlines()[2:] if line[:1] in "+-"] == ["+    cache 30"]


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
