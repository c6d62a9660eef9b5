"""EKS: the add-on's configurationValues, judged by the add-on's own schema for its version, and
the Corefile inside judged by lint and verify like any other."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from typer.testing import CliRunner

from gen.cli import app
from gen.platforms import eks
from gen.render.values import load_values
from tests.conftest import REPO_ROOT
from tests.helpers import render_refused

runner = CliRunner()
EXAMPLE = (REPO_ROOT / "examples/eks.yaml").read_text()
OVERLAY = REPO_ROOT / "overlays/eks/prod-eks"


def test_at_least_two_add_on_versions_have_a_schema() -> None:
    assert len(eks.KNOWN) >= 2
    for release in eks.KNOWN:
        jsonschema.Draft6Validator.check_schema(dict(eks.schema(release)))


@pytest.mark.parametrize("release", sorted(eks.KNOWN))
def test_rendered_configuration_values_pass_that_versions_schema(release: str, tmp_path: Path) -> None:
    text = EXAMPLE.replace("v1.10.1-eksbuild.11", release)
    if "autoScaling" not in eks.schema(release)["definitions"]["Coredns"]["properties"]:
        text = text.replace("    autoScaling:\n      enabled: true\n      minReplicas: 3\n      maxReplicas: 10\n", "")
    (tmp_path / "v.yaml").write_text(text)
    values = load_values(tmp_path / "v.yaml", repo=tmp_path)
    document = json.loads(eks.configuration_text(values))
    jsonschema.Draft6Validator(dict(eks.schema(release))).validate(document)
    assert document["corefile"] == eks.main_corefile(values)
    assert values.coredns_version == release[1:].split("-")[0]


def test_the_committed_document_and_the_addon_carry_the_same_json() -> None:
    document = (OVERLAY / eks.DOCUMENT).read_text()
    addon = __import__("gen.yamlio").yamlio.load_all_safe((OVERLAY / "coredns-addon.yaml").read_text())[0]
    assert addon["spec"]["configurationValues"] == document
    assert addon["metadata"]["annotations"] == {"kustomize.toolkit.fluxcd.io/prune": "disabled",
                                                "services.k8s.aws/deletion-policy": "retain",
                                                "coredns-gen.io/platform": "eks",
                                                "coredns-gen.io/platform-version": "v1.10.1-eksbuild.11"}
    assert "coredns-addon-configuration-values.json" not in (OVERLAY / "kustomization.yaml").read_text()


def test_without_ack_only_the_document_is_rendered(tmp_path: Path) -> None:
    (tmp_path / "v.yaml").write_text(EXAMPLE.replace("  ack:\n    clusterName: prod-eks\n", ""))
    values = load_values(tmp_path / "v.yaml", repo=tmp_path)
    assert eks.manifests(values) == [] and [name for name, _ in eks.documents(values)] == [eks.DOCUMENT]


def test_only_the_resolv_conf_forward_changes(tmp_path: Path) -> None:
    (tmp_path / "v.yaml").write_text(EXAMPLE.replace("v1.10.1-eksbuild.11", "v1.11.1-eksbuild.8").replace(
        "zones:", "corednsVersion: 1.11.4\nupstream:\n  resolvers: [10.0.0.53]\nzones:").replace(
        "    autoScaling:\n      enabled: true\n      minReplicas: 3\n      maxReplicas: 10\n", ""))
    values = load_values(tmp_path / "v.yaml", repo=tmp_path)
    stock = eks.stock_corefile(eks.parse_version(values.platform_version), "cluster.local") or ""
    rendered = eks.main_corefile(values)
    assert rendered.startswith(stock.split("    forward . /etc/resolv.conf\n")[0] + "    forward . 10.0.0.53 /etc/resolv.conf {\n"
                               "      policy sequential\n      next SERVFAIL REFUSED\n    }\n    forward . /etc/resolv.conf\n    cache 30\n")


def test_unknown_add_on_version_is_refused_with_the_known_ones(tmp_path: Path) -> None:
    """CoreDNS 1.9: a minor below the newest, with no schema of its own to borrow from."""
    (line,) = render_refused(tmp_path, EXAMPLE.replace("v1.10.1-eksbuild.11", "v1.9.3-eksbuild.2"))
    assert line.startswith("v.yaml:7:18: platformVersion: no configuration schema vendored for EKS CoreDNS add-on version "
                           "v1.9.3-eksbuild.2 — fix: use one of v1.8.7-eksbuild.2, v1.10.1-eksbuild.11, v1.11.1-eksbuild.8, ")


def test_a_key_that_versions_schema_lacks_is_refused_at_its_line(tmp_path: Path) -> None:
    lines = render_refused(tmp_path, EXAMPLE.replace("v1.10.1-eksbuild.11", "v1.11.1-eksbuild.8"))
    assert lines == ["v.yaml:16:5: eks.configurationValues.autoScaling: add-on v1.11.1-eksbuild.8's configuration schema has no "
                     "'autoScaling' here — fix: write only what this add-on version's schema allows (aws eks describe-addon-configuration shows it)"]


@pytest.mark.parametrize(("change", "message"), [
    (("    replicaCount: 3\n", "    replicaCount: 1\n"), "eks.configurationValues.replicaCount: replicaCount 1: one node drain is a cluster-wide DNS outage"),
    (("    replicaCount: 3\n", "    replicaCount: 3\n    corefile: '.:53 {}'\n"), "eks.configurationValues.corefile: the corefile is rendered, not written here"),
    (("zones:", "upstream:\n  resolvers: [10.0.0.53]\nzones:"), "CoreDNS 1.10.1 (eks v1.10.1-eksbuild.11's default) does not support forward `next`"),
    (("      minReplicas: 3\n", "      minReplicas: 1\n"), "eks.configurationValues.autoScaling.minReplicas: add-on v1.10.1-eksbuild.11's configuration schema refuses it: 1 is less than the minimum of 2"),
])
def test_values_that_break_dns_or_the_add_on_are_refused(change: tuple[str, str], message: str, tmp_path: Path) -> None:
    assert any(message in line for line in render_refused(tmp_path, EXAMPLE.replace(*change))), message


def _lint_json(path: Path) -> tuple[int, list[dict[str, object]]]:
    result = runner.invoke(app, ["lint", str(path), "--platform", "eks", "--coredns-version", "1.10.1", "--format", "json"])
    return result.exit_code, json.loads(result.stdout) if result.stdout.strip().startswith("[") else []


@pytest.mark.parametrize("name", [eks.DOCUMENT, "coredns-addon.yaml"])
def test_lint_judges_the_corefile_inside(name: str, tmp_path: Path) -> None:
    text = (OVERLAY / name).read_text()
    broken = text.replace("policy sequential\\n", "policy sequential\\n      next SERVFAIL\\n", 1)
    assert broken != text
    (tmp_path / name).write_text(broken)
    code, findings = _lint_json(tmp_path / name)
    assert code == 1
    assert {f["rule"] for f in findings} >= {"forward-next-unsupported"}
    assert all(f["line"] == (2 if name == eks.DOCUMENT else 17) for f in findings)
