"""The fast libyaml loader must read every values file exactly as ruamel's round-trip loader does,
or refuse (then the ruamel path decides). The dumper must produce what ruamel reads back equal."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from ruamel.yaml import YAML

from gen.yamlio import dump, load_fast
from tests.conftest import REPO_ROOT

SCALARS = ["yes", "on", "off", "no", "010", "0o10", "0x1f", "1.34", "~", "2001-12-14", "2001-12-14T10:00:00Z", "1_000",
           ".inf", "-.inf", ".NaN", "True", "TRUE", "tRue", "'1.34'", "-5", "+1", "1e3", "1E3", "1e+3", "-.5", "0.", ".5",
           "", "1:20", "12:30:00", "0b101", "-0x1", "+0o7", "0777", "08", "1__0", "v1.34.9+k3s1", "10.0.0.1:53",
           "fd00::1", "::1", "[fd00::1]:53", "1.2.3", "null", "NULL", "nul", "0o9", "0x", "1e", "5m", "sha256:abc"]


def _plain(value: Any) -> Any:
    """ruamel's scalar subclasses (ScalarFloat, HexInt, …) as the builtin they extend."""
    if isinstance(value, dict):
        return {_plain(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    for kind in (bool, int, float, str):
        if isinstance(value, kind):
            return kind(value)
    return value


def _ruamel(text: str) -> Any:
    return _plain(YAML(typ="rt", pure=True).load(text))


@pytest.mark.parametrize("scalar", SCALARS)
def test_fast_loader_resolves_plain_scalars_like_ruamel_or_refuses(scalar: str) -> None:
    text = f"k: {scalar}\n"
    try:
        fast = load_fast(text)[0]
    except (ValueError, yaml.YAMLError):
        return  # the ruamel path will read this file
    slow = _ruamel(text)
    assert repr(fast) == repr(slow)  # repr: 1 == 1.0 == True must not pass


@pytest.mark.parametrize("path", sorted(REPO_ROOT.glob("examples/*.yaml")) + sorted(REPO_ROOT.glob("tests/cases/*/values.yaml")),
                         ids=lambda p: str(p.relative_to(REPO_ROOT)))
def test_fast_loader_reads_shipped_values_files_like_ruamel(path: Path) -> None:
    text = path.read_text()
    assert repr(load_fast(text)[0]) == repr(_ruamel(text))


def test_duplicate_keys_are_refused_by_the_fast_loader() -> None:
    with pytest.raises(ValueError):
        load_fast("a: 1\na: 2\n")


@pytest.mark.parametrize("value", ["plain", "1.34", "yes", "on", "010", "x: y", "- a", "#c", "a #b", " lead", "trail ", "'q'", '"q"',
                                   "multi\nline\n", "no trailing\nnewline", "tab\there", "ünï", "{$ENV}", "*alias", "&anchor", "!tag",
                                   "", "null", "~", "@at", "`tick`", "%pct", "2001-12-14", "1_000", "0b1", "-0x1", "12:30"])
def test_dump_round_trips_through_ruamel(value: str) -> None:
    doc = {"data": {"key": value}, "list": [value]}
    assert _ruamel(dump(doc)) == doc


def test_direct_writer_gives_libyaml_bytes_for_everything_we_render() -> None:
    from gen.yamlio import _dump_libyaml, load_all_safe

    docs = []
    for path in sorted(REPO_ROOT.glob("overlays/*/*/*.yaml")) + sorted(REPO_ROOT.glob("tests/cases/*/expected/**/*.yaml")):
        docs += load_all_safe(path.read_text())
    docs += [
        {"a": {"b": [], "c": {}, "d": None, "e": True, "f": 1, "g": "1", "h": "yes", "i": "", "j": "x: y", "k": " lead"}},
        {"list": [{"a": 1, "b": [1, 2]}, "s", 3, False, None], "nested": [{"x": {"y": [{"z": "w"}]}}]},
        {"text": "line one\n  indented\n\nblank above\n", "trail": "no newline\nat end", "spaces": "a \nb\n", "tab": "a\tb\nc\n"},
        {"deep": {"corefile": ".:53 {\n    errors\n}\n"}, "unicode": "ünï\ncödé\n", "lead": "\nstarts with newline\n"},
    ]
    assert len(docs) > 25
    for doc in docs:
        assert dump(doc) == _dump_libyaml(doc)


def test_fast_loader_refuses_aliases_before_expanding_them() -> None:
    from gen.yamlio import AliasError

    levels = ["a: &a [x, x, x, x, x, x, x, x, x]"] + [f"l{i}: &l{i} [{', '.join(['*' + ('a' if i == 0 else f'l{i - 1}')] * 9)}]" for i in range(30)]
    with pytest.raises(AliasError):  # 9**30 nodes if expanded: this returns at once or never
        load_fast("\n".join(levels) + "\n")


@pytest.mark.parametrize("value", ["coredns", "kube-system", "a/b", "/etc/resolv.conf", "Yes", "yes", "YES", "yEs", "No", "on", "On",
                                   "Off", "null", "Null", "NULL", "y", "Y", "n", "N", "true", "True", "False", "x.y", "a_b", "v1",
                                   "apps/v1", "policy/v1", "ConfigMap", "c0001", "example.org", "E5", "e5", "inf", "nan", "NaN",
                                   "Infinity", "a-", "a.", "a/", "_x", "x_", "./overlays/talos/c0001", "./", ".//", "./-",
                                   "./.inf", "./5", "../x", ".5", ".", "./a:b", 0, 1, -1, 10**20, True, False, None])
@pytest.mark.parametrize("as_key", [False, True])
def test_scalar_shortcut_matches_libyaml(value: object, as_key: bool) -> None:
    from gen.yamlio import _scalar, _scalar_by_libyaml

    assert _scalar(value, as_key) == _scalar_by_libyaml(value, as_key)  # type: ignore[arg-type]


@pytest.mark.parametrize("value", ['"a\\tb"', '"a\\nb"', '"a\\x07"', '"a\\u2028b"', '"a\\u0085b"', "|\n  two\n  lines\n"])
def test_fast_loader_leaves_unprintable_strings_to_ruamel(value: str) -> None:
    from gen.yamlio import UnprintableScalarError

    with pytest.raises(UnprintableScalarError):
        load_fast(f"k: {value}\n")
