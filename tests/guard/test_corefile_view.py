"""The reviewer's view: for each cluster a change touches, the Corefile CoreDNS
will load at base and at head, as a unified diff, in `text`, `markdown` and `json`.

Before it, adding `forward . 9.9.9.9` to a k3s coredns-custom override passed with exit 0 and
no output showed DNS at all."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from gen.cli import app
from gen.finding import Severity
from gen.guard.report.markdown import LIMIT, format_markdown
from tests.guard.conftest import configmap, flux_ks, kustomization

CONFIG = ".coredns-gen.yaml"
K3S = {
    CONFIG: "guard:\n  clusters:\n    - {name: edge, root: clusters/prod/flux-system/gotk-sync.yaml, platform: k3s}\n",
    "clusters/prod/dns.yaml": flux_ks("dns", "./dns"),
    "dns/kustomization.yaml": kustomization("custom.yaml"),
    "dns/custom.yaml": configmap("coredns-custom", data="log.override: log"),
}
# a values file landing in the cluster names its release: k3s's stock Corefile differs by release
K3S["v/edge.yaml"] = "cluster: edge\nplatform: k3s\nplatformVersion: v1.34.9+k3s1\nflux:\n  output: clusters/prod/dns.yaml\n"
K3S[CONFIG] = "values: [v/*.yaml]\n" + K3S[CONFIG]
NEW_FORWARD = {"dns/custom.yaml": configmap("coredns-custom", data="log.override: log\nup.override: forward . 9.9.9.9")}
TALOS_COREFILE = "Corefile: |\n  .:53 {\n    errors\n    forward . 10.0.0.1\n  }"


def invoke(root: Path, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["guard", "--repo", str(root), "--base", "base", "--no-cache", *args],
                                env={"GITHUB_ACTIONS": ""})
    return result.exit_code, result.stdout, result.stderr


def test_a_k3s_override_shows_the_stock_corefile_with_the_keys_spliced(flux_repo, guard):
    """k3s v1.34 imports `*.override` before its own `forward . /etc/resolv.conf`."""
    views = guard(flux_repo(K3S, NEW_FORWARD)).views
    assert len(views) == 1
    v = views[0]
    assert v.severity is Severity.INFO and v.details["cluster_name"] == "edge"
    assert v.details["head_origin"] == ("the k3s v1.34.9+k3s1 stock Corefile with the coredns-custom keys spliced in "
                                        "where it imports them")
    diff = v.details["diff"].splitlines()
    assert diff[:2] == ["--- edge: Corefile at base", "+++ edge: Corefile at head"]
    assert [line for line in diff[2:] if line[:1] in "+-"] == ["+    forward . 9.9.9.9"]
    head = v.details["head"].splitlines()
    assert head.index("    forward . 9.9.9.9") < head.index("    forward . /etc/resolv.conf")  # k3s's import point
    assert "+1 -0 lines" in v.message


def test_a_talos_corefile_owned_by_the_repository_is_diffed_as_written(flux_repo, guard):
    base = {"clusters/prod/dns.yaml": flux_ks("dns", "./dns"), "dns/kustomization.yaml": kustomization("cm.yaml"),
            "dns/cm.yaml": configmap("coredns", data=TALOS_COREFILE)}
    head = {"dns/cm.yaml": configmap("coredns", data=TALOS_COREFILE.replace("10.0.0.1", "10.0.0.1 10.0.0.2"))}
    (v,) = guard(flux_repo(base, head)).views
    assert v.details["cluster_name"] == "prod"  # from clusters/prod/flux-system/gotk-sync.yaml
    assert v.details["base_origin"] == "ConfigMap kube-system/coredns key Corefile"
    assert [line for line in v.details["diff"].splitlines()[2:] if line[:1] in "+-"] == \
        ["-    forward . 10.0.0.1", "+    forward . 10.0.0.1 10.0.0.2"]


def test_without_a_release_the_newest_k3s_stands_in_and_says_so(flux_repo, guard):
    from gen.platforms import k3s

    base = {k: v for k, v in K3S.items() if not k.startswith("v/")}
    base[CONFIG] = base[CONFIG].replace("values: [v/*.yaml]\n", "")
    (v,) = guard(flux_repo(base, NEW_FORWARD)).views
    assert v.details["head_origin"] == (f"the k3s {k3s.newest_release()} stock Corefile (the newest known release: no "
                                        "values file names platformVersion) with the coredns-custom keys spliced in "
                                        "where it imports them")
    assert "+    forward . 9.9.9.9" in v.details["diff"]


def test_without_a_platform_the_keys_are_shown_as_written_and_say_why(flux_repo, guard):
    base = {k: v for k, v in K3S.items() if not k.startswith("v/") and k != CONFIG}
    (v,) = guard(flux_repo(base, NEW_FORWARD)).views
    assert v.details["head_origin"] == "coredns-custom keys as written (no platform is known for this cluster)"
    assert "+forward . 9.9.9.9" in v.details["diff"]


def test_a_change_outside_dns_shows_no_corefile(flux_repo, guard):
    root = flux_repo(K3S, {"dns/other.yaml": configmap("x", namespace="default"),
                           "dns/kustomization.yaml": kustomization("custom.yaml", "other.yaml")})
    assert guard(root).views == []


def test_every_format_shows_it_and_it_never_blocks(flux_repo):
    root = flux_repo(K3S, NEW_FORWARD)
    code, text, _ = invoke(root)
    assert code == 0
    assert "The Corefile CoreDNS will load, base -> head" in text
    assert "+    forward . 9.9.9.9" in text
    code, out, _ = invoke(root, "--format", "json")
    (view,) = [f for f in json.loads(out) if f["rule"] == "corefile-diff"]
    assert view["severity"] == "info" and "+    forward . 9.9.9.9" in view["details"]["diff"]
    code, page, _ = invoke(root, "--format", "markdown")
    assert "### Cluster edge" in page and "Root: <code>clusters/prod/flux-system/gotk-sync.yaml</code>" in page
    assert "<details><summary>Corefile CoreDNS loads: +1 -0 lines</summary>" in page
    assert "```diff\n--- edge: Corefile at base" in page
    assert "**0** not judged · **1** Corefiles changed" in page
    code, gh, _ = invoke(root, "--format", "github")
    assert "corefile-diff" not in gh  # an annotation is a problem at a line; a diff is neither


def test_markdown_shows_no_literal_backticks_and_no_code_block_summary():
    from gen.finding import Finding

    f = Finding("configmap-pruned", Severity.ERROR, "a.yaml", 3, "put `x.yaml` back under `resources:`",
                "run `kubectl kustomize ./a`", details={"cluster": "clusters/prod/flux-system/gotk-sync.yaml"})
    page = format_markdown([f], "guard abc..def: 1 of 1 clusters touched and judged (2 Flux Kustomizations at base)")
    assert "\\`" not in page and "`" not in page.replace("```", "")
    assert "<code>x.yaml</code>" in page and "<code>kubectl kustomize ./a</code>" in page
    assert "```\nguard" not in page  # counts wrap on a narrow screen instead of running off it
    assert "### Cluster prod (1 refused)" in page


def test_a_huge_corefile_diff_keeps_the_page_under_the_limit():
    from gen.finding import Finding

    diff = "--- a\n+++ b\n" + "".join(f"+    forward corp{i}.example 10.0.0.{i % 250}\n" for i in range(8000))
    views = [Finding("corefile-diff", Severity.INFO, f"clusters/c{i}/flux-system/gotk-sync.yaml", 1,
                     f"the Corefile CoreDNS loads in cluster c{i} changes (+8000 -0 lines)",
                     details={"cluster": f"clusters/c{i}/flux-system/gotk-sync.yaml", "cluster_name": f"c{i}",
                              "diff": diff if i == 0 else "--- a\n+++ b\n+ x\n"}) for i in range(3)]
    page = format_markdown(views, "summary")
    assert len(page.encode("utf-8")) <= LIMIT
    assert page.count("<summary>Corefile CoreDNS loads") == 2 and "**1 findings left out** (of 3)" in page


def test_the_view_survives_a_result_file_and_guard_merge(flux_repo, tmp_path):
    root = flux_repo(K3S, NEW_FORWARD)
    result = tmp_path / "r.json"
    code, _, _ = invoke(root, "--result", str(result))
    merged = CliRunner().invoke(app, ["guard-merge", str(result), "--format", "text"], env={"GITHUB_ACTIONS": ""})
    assert code == merged.exit_code == 0
    assert "+    forward . 9.9.9.9" in merged.stdout
