"""managed-corefile-kept on coredns-gen's own RKE2 and EKS render: it holds, and a hand edit of
the chart values or the add-on's corefile that would take DNS down is refused."""

from __future__ import annotations

import pytest

from tests.guard.test_own_overlays import _own_render

RKE2 = "overlays/rke2/edge-rke2/rke2-coredns-helmchartconfig.yaml"
EKS = "overlays/eks/prod-eks/coredns-addon.yaml"


@pytest.mark.parametrize(("path", "old", "new", "needle"), [
    (RKE2, "      - name: ready\n", "", "HelmChartConfig kube-system/rke2-coredns: its default server has no `ready`"),
    (RKE2, "      - name: forward\n        parameters: . /etc/resolv.conf\n", "", "no `forward` follows this one"),
    (RKE2, "    servers:\n", "    servers: [\n", "valuesContent is not valid YAML"),
    (EKS, "\\n    health {\\n        lameduck 5s\\n      }", "", "Addon kube-system/coredns: its default server has no `health`"),
    (EKS, '"corefile": ".:53 {', '"corefile": "corp.example.com:53 {', "its Corefile has no server for `.`"),
])
def test_breaking_edits_are_refused(path, old, new, needle, flux_repo, guard):
    files = _own_render()
    if path not in files:
        pytest.skip(f"no rendered {path}")
    assert old in files[path]
    findings = guard(flux_repo(files, {path: files[path].replace(old, new, 1)}, standard=False)).findings
    errors = [f for f in findings if f.rule == "managed-corefile-kept"]
    assert errors and errors[0].severity.value == "error" and needle in errors[0].message, [f.message for f in findings]
