"""The placeholders a variable the guard cannot read gets, and how they are shown again (in process).

Each variable maps to two placeholders and back exactly, so a finding or the Corefile view never
shows one as a value; a `spec.path` a placeholder decides counts from the folder before it.
"""

from __future__ import annotations

import pytest

from gen.finding import Finding, Severity
from gen.guard.flux.placeholders import placeholder, shown, shown_finding, variables_in
from gen.guard.flux.unread import _fixed_folder


def test_a_placeholder_is_shown_as_its_variable_and_names_it():
    text = f"calibre.{placeholder('SECRET_DOMAIN', 1)}:53 {{ forward . {placeholder('UP_1', 2)} }}"
    assert shown(text) == "calibre.${SECRET_DOMAIN}:53 { forward . ${UP_1} }"
    assert variables_in(text) == ["SECRET_DOMAIN", "UP_1"]
    assert placeholder("A", 1) != placeholder("A", 2)


def test_a_finding_with_a_placeholder_shows_the_variable_and_one_without_is_kept():
    plain = Finding("configmap-pruned", Severity.ERROR, "a.yaml", 1, "ConfigMap x/y would be pruned")
    assert shown_finding(plain) is plain
    held = Finding("corefile-diff", Severity.INFO, "a.yaml", 1, f"zone {placeholder('D', 1)}",
                   details={"head": f"{placeholder('D', 1)}:53 {{}}"})
    assert shown_finding(held).message == "zone ${D}" and shown_finding(held).details["head"] == "${D}:53 {}"


@pytest.mark.parametrize(("path", "folder"), [
    (f"./kubernetes/apps/{placeholder('CLUSTER', 1)}/dns", "kubernetes/apps"),
    (f"./kubernetes/apps-{placeholder('CLUSTER', 1)}", "kubernetes"),
    (placeholder("CLUSTER", 1), ""),
    (f"../{placeholder('CLUSTER', 1)}", ""),
], ids=["folder", "in-a-name", "whole", "outside"])
def test_a_child_path_a_variable_decides_counts_from_the_folder_before_it(path, folder):
    assert _fixed_folder(path) == folder
