"""Values that say what real Flux repositories say: an overlay folder of the
user's choosing (refused, naming the rule, when the Flux artifact leaves it out), an existing
source by kind and name, the Kustomization fields people set, a zone's extra plugin lines,
Flux `${VAR}` substitutions, and Talos keeping /etc/resolv.conf as its primary.

Each test fails on the code before it: every key below was refused by the schema then.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from gen.render.artifact import Rule, left_out
from gen.cli import app
from gen.yamlio import load_all_safe
from tests.helpers import build_tree, snapshot_tree

TALOS = """\
cluster: home
platform: talos
platformVersion: v1.13.9
upstream:
  resolvers: [10.0.0.53]
"""
K3S = """\
cluster: lab
platform: k3s
platformVersion: v1.34.9+k3s1
"""


def _render(repo: Path, text: str, *args: str) -> tuple[int, str]:
    (repo / "v.yaml").write_text(text)
    result = CliRunner().invoke(app, ["render", "--repo", str(repo), *args, str(repo / "v.yaml")])
    return result.exit_code, result.stderr


def _refused(repo: Path, text: str) -> str:
    """Render must exit 2 and change nothing; the stderr."""
    (repo / "v.yaml").write_text(text)
    before = snapshot_tree(repo)
    result = CliRunner().invoke(app, ["render", "--repo", str(repo), str(repo / "v.yaml")])
    assert result.exit_code == 2, result.output
    assert snapshot_tree(repo) == before
    return result.stderr


def _docs(path: Path) -> list[dict]:  # type: ignore[type-arg]
    return [d for d in load_all_safe(path.read_text()) if d]


def _corefile(repo: Path, folder: str = "overlays/talos/home") -> str:
    return str(_docs(repo / folder / "coredns-configmap.yaml")[0]["data"]["Corefile"])


# 1. the overlay folder

def test_the_overlay_goes_where_the_values_say_and_flux_path_follows(tmp_path: Path) -> None:
    code, err = _render(tmp_path, TALOS + "overlay: kubernetes/apps/kube-system/coredns/app\n")
    assert code == 0, err
    assert (tmp_path / "kubernetes/apps/kube-system/coredns/app/kustomization.yaml").is_file()
    assert not (tmp_path / "overlays").exists()
    (kustomization,) = _docs(tmp_path / "clusters/home/coredns.yaml")
    assert kustomization["spec"]["path"] == "./kubernetes/apps/kube-system/coredns/app"


def test_an_overlay_a_sourceignore_rule_leaves_out_is_refused_naming_the_rule(tmp_path: Path) -> None:
    build_tree(tmp_path, {".sourceignore": "# only what Flux needs\n/*\n!/clusters\n"})
    err = _refused(tmp_path, TALOS + "overlay: kubernetes/coredns\n")
    assert "v.yaml:6:10: overlay: kubernetes/coredns/ would not be in the artifact of GitRepository flux-system/flux-system" in err
    assert "the rule .sourceignore:2 `/*` leaves it out" in err
    assert "`!/kubernetes/`" in err


def test_the_default_overlay_is_checked_too(tmp_path: Path) -> None:
    build_tree(tmp_path, {"overlays/.sourceignore": "talos/\n"})
    err = _refused(tmp_path, TALOS)
    assert "overlays/talos/home/ would not be in the artifact" in err
    assert "overlays/.sourceignore:1 `talos/`" in err


def test_spec_ignore_of_the_named_git_repository_is_the_rule_named(tmp_path: Path) -> None:
    build_tree(tmp_path, {"clusters/main/flux-system/gotk-sync.yaml": """
        apiVersion: source.toolkit.fluxcd.io/v1
        kind: GitRepository
        metadata:
          name: home-kubernetes
          namespace: flux-system
        spec:
          url: https://example.invalid/home.git
          ignore: |
            # everything but kubernetes/
            /*
            !/kubernetes
        """})
    source = "flux:\n  source: {kind: GitRepository, name: home-kubernetes}\n"
    err = _refused(tmp_path, TALOS + "overlay: dns/home\n" + source)
    assert "GitRepository flux-system/home-kubernetes (clusters/main/flux-system/gotk-sync.yaml)" in err
    assert "the rule clusters/main/flux-system/gotk-sync.yaml:10 `/*` leaves it out" in err
    code, err = _render(tmp_path, TALOS + "overlay: kubernetes/dns\nflux:\n  output: kubernetes/flux/coredns.yaml\n"
                        "  source: {kind: GitRepository, name: home-kubernetes}\n")
    assert code == 0, err


@pytest.mark.parametrize(("folder", "said"), [("../elsewhere", "is outside the repository"), (".", "is its root"),
                                             ("/abs/path", "is outside the repository"), ("a/.git/b", "is inside .git")])
def test_an_overlay_outside_the_working_tree_is_refused(tmp_path: Path, folder: str, said: str) -> None:
    err = _refused(tmp_path, TALOS + f"overlay: {folder}\n")
    assert f"v.yaml:6:10: overlay: {folder} " in err and said in err


def test_a_chosen_overlay_folder_never_overwrites_the_users_own_file(tmp_path: Path) -> None:
    build_tree(tmp_path, {"kubernetes/coredns/kustomization.yaml": "resources: [mine.yaml]\n"})
    code, err = _render(tmp_path, TALOS + "overlay: kubernetes/coredns\n")
    assert code == 2
    assert (tmp_path / "kubernetes/coredns/kustomization.yaml").read_text() == "resources: [mine.yaml]\n"
    assert "kubernetes/coredns/kustomization.yaml exists and was not generated by coredns-gen" in err


# 2. an existing source

def test_a_source_named_by_kind_and_name_is_referenced_not_rendered(tmp_path: Path) -> None:
    code, err = _render(tmp_path, TALOS + "flux:\n  source: {kind: GitRepository, name: home-kubernetes}\n")
    assert code == 0, err
    docs = _docs(tmp_path / "clusters/home/coredns.yaml")
    assert [d["kind"] for d in docs] == ["Kustomization"]
    assert docs[0]["spec"]["sourceRef"] == {"kind": "GitRepository", "name": "home-kubernetes"}
    assert "GitRepository flux-system/home-kubernetes is not defined in this repository" in err


def test_source_fields_without_url_are_refused(tmp_path: Path) -> None:
    err = _refused(tmp_path, TALOS + "flux:\n  source: {kind: GitRepository, name: x, interval: 1m}\n")
    assert "flux.source.interval: 'interval' describes a source coredns-gen renders" in err
    err = _refused(tmp_path, TALOS + "flux:\n  source: {kind: GitRepository}\n")
    assert "flux.source.name: an existing source is named by `kind` and `name`" in err


# 3. the Kustomization fields

def test_kustomization_fields_are_rendered(tmp_path: Path) -> None:
    code, err = _render(tmp_path, TALOS + """\
flux:
  prune: false
  targetNamespace: kube-system
  commonMetadata: {labels: {app.kubernetes.io/part-of: dns}, annotations: {owner: platform}}
  postBuild:
    substitute: {CLUSTER: home}
    substituteFrom: [{kind: Secret, name: cluster-secrets, optional: true}]
""")
    assert code == 0, err
    (k,) = _docs(tmp_path / "clusters/home/coredns.yaml")
    spec = k["spec"]
    assert spec["prune"] is False
    assert spec["targetNamespace"] == "kube-system"
    assert spec["commonMetadata"] == {"labels": {"app.kubernetes.io/part-of": "dns"}, "annotations": {"owner": "platform"}}
    assert spec["postBuild"] == {"substitute": {"CLUSTER": "home"},
                                 "substituteFrom": [{"kind": "Secret", "name": "cluster-secrets", "optional": True}]}


def test_bad_kustomization_fields_are_refused(tmp_path: Path) -> None:
    assert "flux.commonMetadata.labels" in _refused(tmp_path, TALOS + "flux:\n  commonMetadata: {labels: {'a b': x}}\n")
    assert "flux.postBuild.substitute: '1BAD' is not a Flux variable name" in _refused(
        tmp_path, TALOS + "flux:\n  postBuild: {substitute: {1BAD: x}}\n")
    assert "flux.commonMetadata.annotations: annotation key 'a b'" in _refused(
        tmp_path, TALOS + "flux:\n  commonMetadata: {annotations: {'a b': x}}\n")
    assert "flux.postBuild.substituteFrom[0].kind" in _refused(
        tmp_path, TALOS + "flux:\n  postBuild: {substituteFrom: [{kind: Pod, name: x}]}\n")
    err = _refused(tmp_path, TALOS + "flux:\n  targetNamespace: dns\n")
    assert "flux.targetNamespace: Flux would move ConfigMap kube-system/coredns into namespace dns" in err


# 4. a zone's extra lines

ZONE_LINES = """\
zones:
  - zone: corp.example.com
    upstreams: [10.1.0.53]
    lines:
      - template IN AAAA {
      - "  rcode NXDOMAIN"
      - "}"
"""


def test_zone_lines_land_in_the_zones_server_block(tmp_path: Path) -> None:
    code, err = _render(tmp_path, TALOS + ZONE_LINES)
    assert code == 0, err
    block = _corefile(tmp_path).split("corp.example.com:53 {")[1]
    assert "    template IN AAAA {\n      rcode NXDOMAIN\n    }\n    forward . 10.1.0.53" in block


def test_zone_lines_on_k3s_go_into_the_server_key(tmp_path: Path) -> None:
    code, err = _render(tmp_path, K3S + ZONE_LINES)
    assert code == 0, err
    (custom,) = _docs(tmp_path / "overlays/k3s/lab/coredns-custom-configmap.yaml")
    assert "template IN AAAA {" in custom["data"]["corp.example.com.server"]


@pytest.mark.parametrize(("lines", "said"), [
    (["errors }", "}"], "zones[0].lines[0]: closes a block it did not open"),
    (["template IN A {"], "zones[0].lines: leaves 1 block(s) open"),
    (["import /etc/passwd"], "zones[0].lines[0]: `import /etc/passwd` inside an override"),
])
def test_zone_lines_that_would_leave_the_block_are_refused(tmp_path: Path, lines: list[str], said: str) -> None:
    items = "".join(f"      - {line!r}\n" for line in lines)
    err = _refused(tmp_path, TALOS + f"zones:\n  - zone: corp.example.com\n    upstreams: [10.1.0.53]\n    lines:\n{items}")
    assert said in err


# 5. Flux variables

POST_BUILD = "flux:\n  postBuild:\n    substitute: {SECRET_DOMAIN: example.org}\n"


def test_a_variable_without_post_build_is_refused_saying_to_set_it(tmp_path: Path) -> None:
    err = _refused(tmp_path, TALOS + "zones:\n  - zone: ${SECRET_DOMAIN}\n    upstreams: [10.1.0.53]\n")
    assert "zones[0].zone: '${SECRET_DOMAIN}' holds a Flux variable, but the Flux Kustomization coredns-gen renders has no postBuild" in err
    assert "flux: {postBuild:" in err


def test_variables_are_rendered_verbatim_where_flux_fills_them(tmp_path: Path) -> None:
    code, err = _render(tmp_path, TALOS + POST_BUILD + """\
zones:
  - zone: ${SECRET_DOMAIN}
    upstreams: ["${GATEWAY:=10.1.0.53}"]
    lines: ["rewrite name exact www.${SECRET_DOMAIN} ingress.${SECRET_DOMAIN}"]
""")
    assert code == 0, err
    corefile = _corefile(tmp_path)
    assert "${SECRET_DOMAIN}:53 {" in corefile  # the name keeps its case: Flux's names are case-sensitive
    assert "forward . ${GATEWAY:=10.1.0.53} {" in corefile
    assert "rewrite name exact www.${SECRET_DOMAIN} ingress.${SECRET_DOMAIN}" in corefile


@pytest.mark.parametrize(("zone", "said"), [
    ("${1BAD}", "is not a plain DNS zone name"),
    ("${SECRET_DOMAIN:-x}", "is not a plain DNS zone name"),
    ("${SECRET_DOMAIN:=a b}", "is not a plain DNS zone name"),
])
def test_zone_variables_in_other_forms_are_refused(tmp_path: Path, zone: str, said: str) -> None:
    err = _refused(tmp_path, TALOS + POST_BUILD + f"zones:\n  - zone: '{zone}'\n    upstreams: [10.1.0.53]\n")
    assert said in err


@pytest.mark.parametrize(("line", "said"), [
    ("log ${A:=x} }", "closes a block it did not open"),  # a brace after the variable is Corefile syntax
    ("log ${A:=x }", "is not a Flux variable coredns-gen accepts"),  # a default cannot hold a space
    ("log ${A:=#}", "is not a Flux variable coredns-gen accepts"),  # nor a comment sign
    ("log $${A}", "has `$$`"),
    ("log ${A/x/y}", "is not a Flux variable coredns-gen accepts"),
])
def test_injection_through_a_variable_is_refused(tmp_path: Path, line: str, said: str) -> None:
    err = _refused(tmp_path, K3S + "flux:\n  postBuild: {substitute: {A: a}}\n" + f"overrides:\n  - name: x\n    lines: [{line!r}]\n")
    assert said in err


def test_an_upstream_variable_default_must_be_an_address(tmp_path: Path) -> None:
    err = _refused(tmp_path, TALOS + POST_BUILD + "zones:\n  - zone: corp.example.com\n    upstreams: ['${GW:=corp}']\n")
    assert "zones[0].upstreams[0]: 'corp' is not an IP address (as '${GW:=corp}' reads with its Flux variable filled)" in err


def test_a_variable_flux_would_empty_is_refused(tmp_path: Path) -> None:
    err = _refused(tmp_path, TALOS + POST_BUILD + "zones:\n  - zone: corp.${OTHER}\n    upstreams: [10.1.0.53]\n")
    assert "Flux would substitute ${OTHER} with an empty string" in err


def test_variables_on_eks_are_refused(tmp_path: Path) -> None:
    err = _refused(tmp_path, "cluster: e\nplatform: eks\nplatformVersion: v1.11.4-eksbuild.2\n" + POST_BUILD
                   + "zones:\n  - zone: ${SECRET_DOMAIN}\n    upstreams: [10.1.0.53]\n")
    assert "configurationValues are applied by `aws eks`" in err


# 6. resolv.conf as the primary

def test_resolv_conf_kept_as_the_primary_renders_the_stock_forward(tmp_path: Path) -> None:
    code, err = _render(tmp_path, "cluster: home\nplatform: talos\nplatformVersion: v1.13.9\nupstream: {resolvConf: true}\n")
    assert code == 0, err
    corefile = _corefile(tmp_path)
    assert "forward . /etc/resolv.conf {\n       policy sequential\n       max_concurrent 1000\n    }" in corefile
    assert corefile.count("forward") == 1


def test_resolv_conf_with_resolvers_and_a_fallback_is_the_failover_pair(tmp_path: Path) -> None:
    code, err = _render(tmp_path, "cluster: home\nplatform: talos\nplatformVersion: v1.13.9\n"
                        "upstream: {resolvConf: true, resolvers: [10.0.0.53], fallback: [9.9.9.9]}\n")
    assert code == 0, err
    corefile = _corefile(tmp_path)
    assert "forward . /etc/resolv.conf 10.0.0.53 9.9.9.9 {" in corefile
    assert "forward . 9.9.9.9\n" in corefile


@pytest.mark.parametrize(("text", "said"), [
    (K3S + "upstream: {resolvConf: true}\n", "upstream.resolvConf: k3s's own Corefile already forwards to /etc/resolv.conf"),
    (TALOS.replace("resolvers: [10.0.0.53]", "resolvConf: true\n  fallback: [/etc/resolv.conf]"),
     "upstream.fallback[0]: /etc/resolv.conf is already the primary"),
    (TALOS.replace("resolvers: [10.0.0.53]", "fallback: [9.9.9.9]"), "upstream has no primary"),
])
def test_resolv_conf_misuse_is_refused(tmp_path: Path, text: str, said: str) -> None:
    assert said in _refused(tmp_path, text)


@pytest.mark.coredns
def test_verify_runs_resolv_conf_as_the_primary_and_fills_variables(tmp_path: Path, coredns_bin: Path) -> None:
    """The resolv.conf primary is faked (a generated resolv.conf naming a fake), and the zone
    named by a variable is verified under the value postBuild.substitute gives it."""
    (tmp_path / "v.yaml").write_text("cluster: home\nplatform: talos\nplatformVersion: v1.13.9\n"
                                     "upstream: {resolvConf: true, fallback: [9.9.9.9]}\n" + POST_BUILD
                                     + "zones:\n  - zone: ${SECRET_DOMAIN}\n    upstreams: [10.1.0.53]\n")
    result = CliRunner().invoke(app, ["verify", "--repo", str(tmp_path), "--coredns", str(coredns_bin), str(tmp_path / "v.yaml")])
    assert result.exit_code == 0, result.output
    assert "primary-servfail" in result.stdout and "/etc/resolv.conf" in result.stdout
    assert "example.org." in result.stdout


def test_verify_says_a_variable_only_the_cluster_knows_is_not_verified(tmp_path: Path) -> None:
    (tmp_path / "v.yaml").write_text(TALOS + "flux:\n  postBuild: {substituteFrom: [{kind: Secret, name: s}]}\n"
                                     + "zones:\n  - zone: ${SECRET_DOMAIN}\n    upstreams: [10.1.0.53]\n")
    result = CliRunner().invoke(app, ["verify", "--repo", str(tmp_path), str(tmp_path / "v.yaml")])
    assert result.exit_code == 2, result.output
    assert "Flux fills ${SECRET_DOMAIN} from postBuild.substituteFrom" in result.stderr


def test_two_overlays_one_inside_the_other_are_refused(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(TALOS.replace("home", "a") + "overlay: dns\n")
    (tmp_path / "b.yaml").write_text(TALOS.replace("home", "b") + "overlay: dns/b\n")
    result = CliRunner().invoke(app, ["render", "--repo", str(tmp_path), str(tmp_path / "a.yaml"), str(tmp_path / "b.yaml")])
    assert result.exit_code == 2, result.output
    assert "b.yaml:6:10: overlay: renders its overlay in dns/b/, inside dns/, which a.yaml renders" in result.stderr


def test_the_helper_names_the_rule_that_decides() -> None:
    """source-controller's own matcher decides (the last matching pattern wins, nested files
    apply below their folder); the helper traces that pattern to its file and line."""
    ignore = {".sourceignore": "# root\n/*\n!/kubernetes\n", "kubernetes/.sourceignore": "\n*.md\n"}
    out = left_out(["kubernetes/apps/a.yaml", "kubernetes/apps/README.md", "docs/x.yaml"], ignore, None)
    assert out == {"kubernetes/apps/README.md": Rule("kubernetes/.sourceignore", 2, "*.md"),
                   "docs/x.yaml": Rule(".sourceignore", 2, "/*")}
    assert left_out([".github/workflows/x.yaml", "a.yaml"], {}, None) == {".github/workflows/x.yaml": Rule("defaults", 0, ".github/")}
    assert left_out(["a/b.yaml", "c/d.yaml"], {}, "/*\n!/c\n") == {"a/b.yaml": Rule("spec.ignore", 1, "/*")}
    assert left_out(["x/.git/config"], {".sourceignore": "nothing-matches\n"}, None) == {"x/.git/config": Rule("vcs", 0, ".git/")}


def test_injection_through_a_substitute_value_is_refused(tmp_path: Path) -> None:
    """What postBuild.substitute puts in is judged where the variable stands, like a default."""
    err = _refused(tmp_path, K3S + "flux:\n  postBuild: {substitute: {D: 'x.org {', IP: '1.2.3.4 5.6.7.8', L: '}'}}\n"
                   "zones:\n  - zone: ${D}\n    upstreams: ['${IP}']\noverrides:\n  - name: a\n    lines: ['log ${L}']\n")
    assert "zones[0].zone: '${D}' (read with its Flux variable as 'x.org {') would be 2 Corefile tokens" in err
    assert "zones[0].upstreams[0]: '1.2.3.4 5.6.7.8' would be 2 Corefile tokens" in err
    assert "overrides[0].lines[0]: closes a block it did not open" in err


def test_an_empty_post_build_does_not_count(tmp_path: Path) -> None:
    """kustomize-controller runs envsubst only when there is a variable to put in."""
    err = _refused(tmp_path, TALOS + "flux:\n  postBuild: {}\nzones:\n  - zone: corp.${D:=example.org}\n    upstreams: [10.1.0.53]\n")
    assert "has no postBuild (with a substitute or a substituteFrom)" in err


@pytest.mark.parametrize("depth", [200, 5000])
def test_a_deep_manifest_in_the_repo_does_not_stop_render(tmp_path: Path, depth: int) -> None:
    """render reads the repository's manifests for GitRepository objects (their spec.ignore): a
    file nested past any reader's limit is no GitRepository it can use, never a crash."""
    build_tree(tmp_path, {"clusters/x.yaml": "kind: GitRepository\nspec:\n  ignore: " + "[" * depth + "]" * depth + "\n"})
    code, err = _render(tmp_path, TALOS)
    assert code == 0, err


def test_an_oci_source_is_referenced_and_its_artifact_said_unchecked(tmp_path: Path) -> None:
    code, err = _render(tmp_path, TALOS + "flux:\n  source: {kind: OCIRepository, name: dns-artifact}\n")
    assert code == 0, err
    (k,) = _docs(tmp_path / "clusters/home/coredns.yaml")
    assert k["spec"]["sourceRef"] == {"kind": "OCIRepository", "name": "dns-artifact"}
    assert "the OCIRepository flux-system/dns-artifact holds what `flux push artifact` was given: whether it holds " \
           "overlays/talos/home/ is not checked" in err


def test_the_flux_file_inside_the_chosen_overlay_is_refused(tmp_path: Path) -> None:
    err = _refused(tmp_path, TALOS + "overlay: kubernetes/coredns\nflux:\n  output: kubernetes/coredns/flux.yaml\n")
    assert "flux.output: the Flux objects cannot live inside the overlay folder kubernetes/coredns/" in err


def test_a_zone_variable_that_would_shadow_the_cluster_is_refused(tmp_path: Path) -> None:
    err = _refused(tmp_path, TALOS + "flux:\n  postBuild: {substitute: {D: svc.cluster.local}}\n"
                   "zones:\n  - zone: ${D}\n    upstreams: [10.1.0.53]\n")
    assert "zones[0].zone: zone ${D} (read as svc.cluster.local) would shadow the cluster's own records" in err


_SPARSE_SYNC = """
    apiVersion: source.toolkit.fluxcd.io/v1
    kind: GitRepository
    metadata:
      name: flux-system
      namespace: flux-system
    spec:
      url: https://example.invalid/home.git
      ref: {branch: main}
      sparseCheckout:
        - ./clusters/
        - ./platform/
    """


def test_an_overlay_the_bootstrap_sparse_checkout_leaves_out_is_refused_naming_it(tmp_path: Path) -> None:
    """source-controller clones only what `spec.sparseCheckout` names: an overlay outside it renders,
    commits and is never applied (render passed it before; the guard prunes what such a cut drops)."""
    build_tree(tmp_path, {"clusters/home/flux-system/gotk-sync.yaml": _SPARSE_SYNC})
    err = _refused(tmp_path, TALOS)
    assert "overlays/talos/home/ would not be in the artifact of GitRepository flux-system/flux-system" in err
    assert "the rule clusters/home/flux-system/gotk-sync.yaml:9 `sparseCheckout: [clusters/, platform/]` leaves it out" in err
    assert "add `./overlays/` to spec.sparseCheckout" in err
    code, err = _render(tmp_path, TALOS + "overlay: platform/coredns/home\n")
    assert code == 0, err
    assert (tmp_path / "platform/coredns/home/kustomization.yaml").is_file()


def test_a_flux_file_the_sparse_checkout_leaves_out_is_refused(tmp_path: Path) -> None:
    build_tree(tmp_path, {"clusters/home/flux-system/gotk-sync.yaml": _SPARSE_SYNC})
    err = _refused(tmp_path, TALOS + "overlay: platform/coredns/home\nflux:\n  output: flux/coredns.yaml\n")
    assert "flux/coredns.yaml would not be in the artifact" in err and "sparseCheckout" in err
