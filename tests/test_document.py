"""`.coredns-gen.yaml` read through libyaml gives what ruamel gives: the same data, the same lines.

`read_mapping` skips ruamel (its import and its pure-Python parse) whenever libyaml reads the
file without a doubt; every later check names lines from `.lc`, so the positions must agree
with ruamel's for every key, value and item, and a file libyaml cannot decide goes to ruamel.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gen.config import load_config
from gen.document import read_document, read_mapping
from gen.errors import UsageError, ValuesError

CONFIGS = {
    "full": "values:\n  - dns/*.yaml\n  - 'more/*.yml'\nguard:\n  allow: [kube-system_coredns-custom__ConfigMap]\n"
            "  clusters:\n    - name: prod\n      root: clusters/prod/flux-system/gotk-sync.yaml\n      platform: talos\n"
            "  sources:\n    - {source: OCIRepository/flux-system/flux-system, path: kubernetes/}\n"
            "lint:\n  plugins: [k8s_gateway]\n",
    "flow and comments": "# repo config\n{values: [dns/*.yaml], lint: {plugins: []}}  # trailing\n",
    "problems": "values: [/etc/*.conf, ok/*.yaml]\nguard:\n  allow:\n    - x\n    - 3\n  extra: 1\nlint: nope\nother: 1\n",
    "scalars": "values: ['a', \"b\", c]\nx: [true, null, ~, 1.5, 7, -0, '2026-12-01']\n",
}


def _positions(node: Any) -> Any:
    """Every `.lc` position under node, as plain data."""
    if isinstance(node, dict):
        return [(node.lc.line, node.lc.col)] + [(k, node.lc.key(k), node.lc.value(k), _positions(v)) for k, v in node.items()]
    if isinstance(node, list):
        return [(node.lc.line, node.lc.col)] + [(node.lc.item(i), _positions(v)) for i, v in enumerate(node)]
    return None


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_libyaml_reads_the_config_as_ruamel_does(name: str, tmp_path: Path) -> None:
    path = tmp_path / ".coredns-gen.yaml"
    path.write_text(CONFIGS[name])
    fast, slow = read_mapping(path, ".coredns-gen.yaml"), read_document(path, ".coredns-gen.yaml")
    assert type(fast) is not type(slow)  # the fast path really ran
    assert fast == slow and _positions(fast) == _positions(slow)


def test_the_problems_of_a_config_name_the_same_lines_either_way(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".coredns-gen.yaml").write_text(CONFIGS["problems"])
    with pytest.raises(UsageError) as fast:
        load_config(tmp_path)
    monkeypatch.setattr("gen.document.quick_document", lambda text: None)  # as if libyaml had refused it
    with pytest.raises(UsageError) as slow:
        load_config(tmp_path)
    assert str(fast.value) == str(slow.value)
    assert ".coredns-gen.yaml:1:10: values[0]: '/etc/*.conf' is an absolute path" in str(fast.value)


def test_a_scalar_yaml_1_1_and_1_2_read_differently_is_read_by_ruamel(tmp_path: Path) -> None:
    path = tmp_path / ".coredns-gen.yaml"
    path.write_text("values: [yes, on, 0o17, 1_000]\nwhen: 2026-12-01\n")  # YAML 1.1: True, True, 15, 1000, a date
    data = read_mapping(path, ".coredns-gen.yaml")
    assert data["values"] == ["yes", "on", 15, 1000] and str(data["when"]) == "2026-12-01"  # YAML 1.2, as ruamel reads it


@pytest.mark.parametrize(("text", "problem"), [
    ("values: [a]\nvalues: [b]\n", "invalid YAML"),  # a repeated key: libyaml would keep the last one
    ("a: &x [1]\nb: *x\n", "anchors and aliases are not supported"),
    ("- values\n", "not a mapping"),
])
def test_what_libyaml_cannot_decide_is_explained_by_ruamel(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / ".coredns-gen.yaml"
    path.write_text(text)
    with pytest.raises(ValuesError, match=problem):
        read_mapping(path, ".coredns-gen.yaml")
