"""Flux's prune and skip markers, matched as fluxcd/pkg/ssa matches them (utils.AnyInMetadata).

kustomize-controller hands its selectors to ssa (gen/guard/model.py cites where it builds them);
ssa looks at the labels and the annotations each on their own, ignores an empty value and
compares case-insensitively. Objects built in memory: no git, no helper. The table of
tests/data/flux-markers/cases.json is held against kustomize-controller's constants and ssa's
AnyInMetadata themselves by tools/markercheck (scripts/check runs it), and the model to it here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gen.guard.model import APPLY_EXCLUDED, APPLY_IF_NOT_PRESENT, ORPHANING, any_in_metadata, apply_skipped, \
    orphaning_marker

TABLE = json.loads((Path(__file__).resolve().parents[1] / "data" / "flux-markers" / "cases.json").read_text())

PRUNE = "kustomize.toolkit.fluxcd.io/prune"
SSA = "kustomize.toolkit.fluxcd.io/ssa"
RECONCILE = "kustomize.toolkit.fluxcd.io/reconcile"


def obj(annotations: dict[str, Any] | None = None, labels: dict[str, Any] | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": "coredns", "namespace": "kube-system"}
    if annotations is not None:
        meta["annotations"] = annotations
    if labels is not None:
        meta["labels"] = labels
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta}


def test_the_selectors_are_kustomize_controllers() -> None:
    """deleteObjects' Exclusions, Apply's ExclusionSelector and IfNotPresentSelector (v1.10.1), as
    the table tools/markercheck holds to the controller's constants has them."""
    assert {"orphaning": ORPHANING, "apply_excluded": APPLY_EXCLUDED,
            "apply_if_not_present": APPLY_IF_NOT_PRESENT} == TABLE["selectors"]


@pytest.mark.parametrize("case", TABLE["cases"], ids=[c["name"] for c in TABLE["cases"]])
def test_each_table_case_matches_as_ssa_matches_it(case: dict[str, Any]) -> None:
    """The model matches each object of the table as ssa's AnyInMetadata does (tools/markercheck)."""
    meta: dict[str, Any] = {"name": "coredns", "namespace": "kube-system"}
    meta.update({k: case[k] for k in ("labels", "annotations") if k in case})
    matched = sorted(name for name, selector in TABLE["selectors"].items()
                     if any_in_metadata({"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta}, selector))
    assert matched == sorted(case["matches"])


def test_a_label_counts_even_when_an_annotation_of_the_same_key_says_otherwise() -> None:
    """ssa matches labels and annotations each on its own: the label orphans the object."""
    both = obj(annotations={PRUNE: "enabled"}, labels={PRUNE: "disabled"})
    assert orphaning_marker(both) == f"{PRUNE}: disabled"
    assert apply_skipped(obj(annotations={SSA: "merge"}, labels={SSA: "Ignore"}), obj()) == f"{SSA}: Ignore"


@pytest.mark.parametrize(("marks", "expected"), [
    ({PRUNE: "Disabled"}, f"{PRUNE}: Disabled"),  # case-insensitive
    ({PRUNE: ""}, None),  # an empty value matches nothing
    ({PRUNE: "enabled"}, None),
    ({SSA: "IGNORE"}, f"{SSA}: IGNORE"),
    ({SSA: "IfNotPresent"}, None),  # created once, never patched, but still pruned
    ({RECONCILE: "disabled"}, f"{RECONCILE}: disabled"),
], ids=["case", "empty", "enabled", "ssa-ignore", "if-not-present", "reconcile"])
def test_orphaning_markers(marks: dict[str, str], expected: str | None) -> None:
    assert orphaning_marker(obj(annotations=marks)) == expected
    assert orphaning_marker(obj(labels=marks)) == expected


def test_apply_is_skipped_for_exclusions_on_either_object_and_if_not_present_on_the_desired_one() -> None:
    assert apply_skipped(obj(annotations={RECONCILE: "disabled"}), obj()) == f"{RECONCILE}: disabled"
    assert apply_skipped(obj(), obj(labels={SSA: "ignore"})) == f"{SSA}: ignore"
    assert apply_skipped(obj(), obj(annotations={SSA: "IfNotPresent"})) == f"{SSA}: IfNotPresent"
    assert apply_skipped(obj(annotations={SSA: "IfNotPresent"}), obj()) is None  # only the desired one's counts
    assert apply_skipped(obj(annotations={PRUNE: "disabled"}), obj()) is None  # prune: disabled still applies
