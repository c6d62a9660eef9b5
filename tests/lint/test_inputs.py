"""Inputs: ConfigMaps read as CoreDNS sees them, positions inside the YAML, folders, lists, bad YAML."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest

from gen.corefile import CorefileError
from gen.errors import UsageError
from gen.finding import Finding
from gen.lint.run import run_lint
from gen.lint.reader import ManifestError, load_inputs
from tests.helpers import build_tree
from tests.lint.conftest import summary

MAIN_CM = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: coredns
  namespace: kube-system
data:
  Corefile: |
    .:53 {
        errors
        forward . /etc/resolv.conf
        reload
        import custom/*.override
    }
    import custom/*.server
"""

CUSTOM_CM = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: coredns-custom
  namespace: kube-system
data:
  corp.server: |
    corp.example:53 {
        forwrd . 10.0.0.1
    }
  log.override: |
    log
    forward . 10.0.0.9
  notes.txt: hello
"""


def test_configmap_finding_points_at_the_yaml_line(lint_text: Callable[..., list[Finding]]) -> None:
    text = MAIN_CM.replace("        errors\n", "        erors\n")
    (finding,) = lint_text(text, name="cm.yaml")
    assert (finding.rule, finding.line, finding.col) == ("unknown-plugin", 9, 9)


def test_custom_keys_are_files_coredns_sees(lint_text: Callable[..., list[Finding]]) -> None:
    findings = lint_text(CUSTOM_CM, name="custom.yaml", platform="aks")
    assert summary(findings) == [
        ("unknown-plugin", 9, "error"),  # corp.server, line of `forwrd`
        ("forward-unreachable", 13, "error"),  # log.override's `forward .`, judged in AKS's own Corefile
        ("custom-key-ignored", 14, "error"),
    ]


def test_main_and_custom_together_expand_imports(tmp_path: Path) -> None:
    build_tree(tmp_path, {"a/main.yaml": MAIN_CM, "a/custom.yaml": CUSTOM_CM})
    findings = run_lint([tmp_path / "a"])
    # the override's forward comes after the default forward in the expanded block: unreachable,
    # reported once at the override's line in custom.yaml; the typo in corp.server once too.
    assert sorted((Path(f.file).name, f.line, f.rule) for f in findings) == [
        ("custom.yaml", 9, "unknown-plugin"),
        ("custom.yaml", 13, "forward-unreachable"),
        ("custom.yaml", 14, "custom-key-ignored"),
    ]


def test_kind_list_and_quoted_corefile(lint_text: Callable[..., list[Finding]]) -> None:
    text = """
    apiVersion: v1
    kind: List
    items:
    - apiVersion: v1
      kind: ConfigMap
      metadata:
        name: coredns
      data:
        Corefile: ".:53 {\\n    erors\\n}\\n"
    """
    (finding,) = lint_text(text, name="dump.yaml")
    assert (finding.rule, finding.line, finding.col) == ("unknown-plugin", 9, None)  # pinned to the key line


def test_k3s_templates_load_despite_placeholders() -> None:
    inputs = load_inputs([Path("gen/data/k3s/k3s-v1.34.9+k3s1-coredns.yaml")])
    assert [c.name for c in inputs.configmaps] == ["coredns"] and [d.name for d in inputs.deployments] == ["coredns"]
    assert inputs.configmaps[0].data["Corefile"].line_offset == 55


def test_folder_reads_yaml_and_corefiles(tmp_path: Path) -> None:
    build_tree(tmp_path, {"o/kustomization.yaml": "resources: [cm.yaml]\n", "o/cm.yaml": MAIN_CM,
                          "o/Corefile": ".:53 {\n    whoam\n}\n", "o/README.md": "not read {\n"})
    assert [(Path(f.file).name, f.line) for f in run_lint([tmp_path / "o"])] == [("Corefile", 2)]


def test_syntax_error_in_configmap_is_bad_input_with_yaml_line(lint_text: Callable[..., list[Finding]]) -> None:
    with pytest.raises(CorefileError, match=r"cm\.yaml:11: corefile: CoreDNS refuses it: Syntax error: Unexpected token 'reload', expecting '\}'"):
        lint_text(MAIN_CM.replace("    }\n    import", "    import"), name="cm.yaml")


def test_bad_yaml_and_missing_path(tmp_path: Path, lint_text: Callable[..., list[Finding]]) -> None:
    with pytest.raises(ManifestError, match=r"bad\.yaml:2:\d+: yaml: not valid YAML"):
        lint_text("a: b\n  c: [d\n", name="bad.yaml")
    with pytest.raises(UsageError, match="does not exist"):
        run_lint([tmp_path / "missing"])


def test_bad_options(lint_text: Callable[..., list[Finding]]) -> None:
    with pytest.raises(UsageError, match="unknown platform"):
        lint_text(".:53 {\n}\n", platform="bsd")
    with pytest.raises(UsageError, match="gke is not supported"):
        lint_text(".:53 {\n}\n", platform="gke")
    with pytest.raises(UsageError, match="is not a version"):
        lint_text(".:53 {\n}\n", coredns_version="latest")


@pytest.mark.parametrize(("options", "expected"), [
    # judged inside the platform's own Corefile: AKS's (and old k3s's) forward comes first
    ({"platform": "aks"}, [("forward-unreachable", 8, "error")]),
    ({"platform": "k3s", "k3s_version": "1.32.9"}, [("forward-unreachable", 8, "error")]),
    ({"k3s_version": "1.32.10"}, []),
    ({"k3s_version": "1.34.2"}, []),
    ({"k3s_version": "v1.34.9+k3s1"}, []),
    ({"k3s_version": "1.33.1"}, [("forward-unreachable", 8, "error")]),  # the 1.33 line kept the old order through v1.33.5
    ({"k3s_version": "1.33.6"}, []),
    ({"k3s_version": "1.36.3"}, []),
    ({"platform": "k3s"}, []),  # --platform alone: the newest known release (1.36.3), said in the last line
    ({}, [("override-root-forward", 8, "warning")]),
    ({"platform": "talos"}, []),
], ids=["aks", "k3s-1.32.9", "k3s-1.32.10", "k3s-1.34.2", "k3s-tag", "k3s-1.33-old-order", "k3s-1.33.6", "k3s-1.36", "k3s-unknown",
        "no-platform", "talos"])
def test_override_root_forward_by_platform(lint_text: Callable[..., list[Finding]], options: dict[str, str],
                                           expected: list[tuple[str, int, str]]) -> None:
    text = """
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: coredns-custom
    data:
      upstream.override: |
        # send everything to the campus resolver
        forward . 10.0.0.1
    """
    assert summary(lint_text(text, name="custom.yaml", **options)) == expected


def test_custom_key_not_imported_by_the_main_is_still_linted(tmp_path: Path) -> None:
    build_tree(tmp_path, {"main.yaml": MAIN_CM.replace("    import custom/*.server\n", ""), "custom.yaml": CUSTOM_CM})
    rules = sorted((f.line, f.rule) for f in run_lint([tmp_path]) if f.file.endswith("custom.yaml"))
    assert rules == [(9, "unknown-plugin"), (13, "forward-unreachable"), (14, "custom-key-ignored")]


def test_import_of_a_missing_custom_key(tmp_path: Path) -> None:
    main = MAIN_CM.replace("import custom/*.server", "import custom/corp.server\n    import custom/other.server")
    build_tree(tmp_path, {"main.yaml": main, "custom.yaml": CUSTOM_CM})
    found = [(Path(f.file).name, f.line, f.rule) for f in run_lint([tmp_path]) if f.rule == "import-not-found"]
    assert found == [("main.yaml", 15, "import-not-found")]


def test_server_key_serving_the_default_zone_collides(tmp_path: Path) -> None:
    custom = CUSTOM_CM.replace("corp.example:53 {", ".:53 {")
    build_tree(tmp_path, {"main.yaml": MAIN_CM, "custom.yaml": custom})
    found = [(Path(f.file).name, f.line, f.rule) for f in run_lint([tmp_path]) if f.rule == "duplicate-server-address"]
    assert found == [("custom.yaml", 8, "duplicate-server-address")]
