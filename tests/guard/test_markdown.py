"""`--format markdown`: a PR comment a reviewer can act on, never over GitHub's size limit."""

from __future__ import annotations

from gen.finding import Finding, Severity
from gen.guard.report.markdown import LIMIT, format_markdown

C1 = "clusters/prod/flux-system/gotk-sync.yaml"
C2 = "clusters/edge/flux-system/gotk-sync.yaml"


def _f(rule: str, sev: Severity, file: str, line: int, cluster: str, message: str, hint: str = "") -> Finding:
    return Finding(rule, sev, file, line, message + (f" [cluster {cluster}]" if cluster else ""), hint,
                   details={"cluster": cluster} if cluster else {})


FINDINGS = [
    _f("configmap-pruned", Severity.ERROR, "platform/coredns/kustomization.yaml", 3, C1,
       "ConfigMap kube-system/coredns-custom would be deleted by Flux", "put '- coredns-custom.yaml' back under resources:"),
    _f("object-pruned", Severity.WARNING, "apps/web.yaml", 1, C1, "Deployment apps/web would be deleted by Flux"),
    _f("k3s-hpa-min-replicas", Severity.ERROR, "dns/hpa.yaml", 12, C2, "HPA <coredns> minReplicas 1 < 2", "set minReplicas: 2"),
    _f("not-judged", Severity.INFO, "clusters/edge/other.yaml", 1, C2, "Kustomization flux-system/other is not judged: its source is elsewhere"),
    _f("unreached", Severity.INFO, "archive/old.yaml", 1, "", "archive/old.yaml holds Flux Kustomizations that no cluster applies"),
]


def test_each_cluster_lists_refusals_and_warnings_at_file_line_with_the_fix():
    page = format_markdown(FINDINGS, "guard abc..def: 2 of 2 clusters touched and judged")
    assert page.startswith("## coredns-gen guard: refused\n")
    assert "**2** refused · **1** warnings · **0** allowed · **2** not judged" in page
    assert "guard abc..def: 2 of 2 clusters touched and judged" in page
    prod = page.index("### Cluster prod (1 refused, 1 warnings)")
    edge = page.index("### Cluster edge (1 refused, 1 not judged)")
    assert f"Root: <code>{C1}</code>" in page  # the name heads it, the root file is under it
    repo = page.index("### Repository-wide (1 not judged)")
    assert edge < prod < repo  # clusters by name, what belongs to none last
    assert ("- **configmap-pruned** <code>platform/coredns/kustomization.yaml:3</code> ConfigMap kube-system/coredns-custom "
            "would be deleted by Flux<br>fix: put '- coredns-custom.yaml' back under resources:") in page
    assert "[cluster" not in page  # the heading names the cluster
    assert "<details><summary>Warnings (1)</summary>" in page
    assert "<details><summary>Not judged (1)</summary>" in page
    assert "HPA &lt;coredns&gt; minReplicas 1 &lt; 2" in page  # no raw HTML from a message
    assert "left out" not in page


def test_a_pass_says_so():
    page = format_markdown([], "guard a..b: 0 of 3 clusters touched and judged")
    assert page.startswith("## coredns-gen guard: passed\n") and "Nothing in place would be lost" in page


def test_thousands_of_findings_stay_under_the_limit_errors_first_and_the_rest_counted():
    many = [_f("object-pruned", Severity.WARNING, f"apps/w{i:05d}.yaml", 1, C1, "Deployment apps/w would be deleted by Flux " + "x" * 80)
            for i in range(5000)]
    many += [_f("configmap-pruned", Severity.ERROR, f"apps/c{i:05d}.yaml", 1, C2, "ConfigMap apps/c would be deleted by Flux",
                "restore it") for i in range(300)]
    page = format_markdown(many, "summary")
    assert len(page.encode("utf-8")) <= LIMIT
    assert page.count("- **configmap-pruned**") == 300  # every refusal shown before any warning
    shown = page.count("- **object-pruned**")
    assert 0 < shown < 5000
    assert f"**{5000 - shown} findings left out** (of 5300)" in page
    assert f"_{5000 - shown} more entries for this cluster left out" in page
    assert "### Cluster prod (5000 warnings)" in page  # counts stay whole


def test_a_fleet_refused_for_one_cause_says_the_fix_once_and_shows_every_cluster():
    """150 clusters refused for the same edit, each with a ~600-character fix: one cause with its
    fix, then one short line per cluster at its file:line (was: the fix once per object, and 39
    of 150 refusals shown)."""
    fix = "put '- coredns-custom.yaml' back under resources: " + "because " * 70
    many = [_f("configmap-pruned", Severity.ERROR, f"clusters/c{i:03d}/dns/kustomization.yaml", 3,
               f"clusters/c{i:03d}/flux-system/gotk-sync.yaml",
               f"ConfigMap kube-system/coredns-custom would be deleted by Flux: clusters/c{i:03d}/dns/kustomization.yaml "
               "no longer lists 'coredns-custom.yaml'", fix) for i in range(150)]
    page = format_markdown(many, "summary")
    assert len(page.encode("utf-8")) <= LIMIT
    assert page.count(fix.strip()) == 1  # the fix, once
    assert "1. **configmap-pruned** (150 findings): ConfigMap kube-system/coredns-custom would be deleted by Flux: " \
           "&lt;file&gt; no longer lists" in page
    assert page.count("cause 1 (above)") == 150 and "left out" not in page
    assert "- **configmap-pruned** <code>clusters/c149/dns/kustomization.yaml:3</code> cause 1 (above)" in page


def test_findings_of_different_causes_keep_their_own_fix():
    page = format_markdown(FINDINGS, "summary")
    assert "### Causes" not in page and "fix: put '- coredns-custom.yaml' back under resources:" in page
