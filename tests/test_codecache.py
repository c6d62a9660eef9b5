"""The disk cache of compiled validators and templates: reused, never stale, never required."""

from __future__ import annotations

import marshal
import os
from pathlib import Path

import fastjsonschema
import jinja2
import pytest

from gen import codecache, templating
from gen.render import object_schemas
from gen.validation import Checker

SCHEMA = {"type": "object", "properties": {"port": {"type": "integer", "minimum": 1, "default": 53}}, "additionalProperties": False}


@pytest.fixture(autouse=True)
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("COREDNS_GEN_CODE_CACHE", str(tmp_path / "cache"))
    for cached in (templating.environment, templating.template, object_schemas._validator):
        cached.cache_clear()
    yield tmp_path / "cache"
    for cached in (templating.environment, templating.template, object_schemas._validator):
        cached.cache_clear()


def _no_compiling(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("compiled again although the cache holds the code")

    monkeypatch.setattr(fastjsonschema, "compile_to_code", refuse)
    monkeypatch.setattr(jinja2.Environment, "compile", refuse)


def test_a_compiled_validator_is_reused_by_the_next_process(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    Checker(dict(SCHEMA)).compile()
    assert len(list((cache / "validators").glob("*.marshal"))) == 1
    _no_compiling(monkeypatch)
    fresh = Checker(dict(SCHEMA))  # a new process would start with exactly this
    assert fresh.is_valid({"port": 53}) and not fresh.is_valid({"port": 0}) and not fresh.is_valid({"name": "x"})


def test_a_changed_schema_never_reads_the_old_entry(cache: Path) -> None:
    Checker(dict(SCHEMA)).compile()
    stricter = {**SCHEMA, "required": ["port"]}
    with pytest.raises(fastjsonschema.JsonSchemaException):
        Checker(stricter).compile()({})
    assert Checker(dict(SCHEMA)).compile()({}) == {}
    assert len(list((cache / "validators").glob("*.marshal"))) == 2


def test_a_broken_entry_is_compiled_again(cache: Path) -> None:
    Checker(dict(SCHEMA)).compile()
    (entry,) = (cache / "validators").glob("*.marshal")
    entry.write_bytes(entry.read_bytes()[:100])  # a truncated write, a disk error
    checker = Checker(dict(SCHEMA))
    assert checker.is_valid({"port": 5}) and not checker.is_valid({"port": "x"})


def test_an_unwritable_cache_costs_only_time(cache: Path) -> None:
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text("a file where the folder should be")
    checker = Checker(dict(SCHEMA))
    checker.compile()
    assert checker.is_valid({"port": 5}) and not checker.is_valid({"port": -1})
    assert templating.render_macro("common/override.j2", "override_lines", override=type("O", (), {"lines": ["log"]})) == "log\n"


def test_a_validator_never_fills_in_defaults(cache: Path) -> None:
    document: dict[str, object] = {}
    assert Checker(dict(SCHEMA)).compile()(document) is document and document == {}


def test_a_cached_kubernetes_validator_skips_the_shared_definitions(monkeypatch: pytest.MonkeyPatch) -> None:
    version = object_schemas.schema_version("1.34")
    configmap = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "coredns"}, "data": {"Corefile": ".:53 {}\n"}}
    object_schemas._validator("v1", "ConfigMap", version).compile()  # type: ignore[union-attr]
    object_schemas._validator.cache_clear()

    def refuse(version: str) -> None:
        raise AssertionError("parsed the 1.5 MB definitions although the compiled code is cached")

    monkeypatch.setattr(object_schemas, "_definitions", refuse)
    checker = object_schemas._validator("v1", "ConfigMap", version)
    assert checker is not None and checker.compile()(configmap) == configmap
    assert not checker.is_valid({**configmap, "data": {"Corefile": 1}})


def test_compiled_templates_are_reused(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    override = type("O", (), {"lines": ["log", "errors"]})
    first = templating.render_macro("common/override.j2", "override_lines", override=override)
    assert list((cache / "templates").iterdir())
    templating.environment.cache_clear()
    templating.template.cache_clear()
    _no_compiling(monkeypatch)
    assert templating.render_macro("common/override.j2", "override_lines", override=override) == first == "log\nerrors\n"


def test_the_cache_sits_beside_the_other_caches_unless_told_otherwise(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COREDNS_GEN_CODE_CACHE")
    assert codecache.cache_dir() == Path(os.path.expanduser("~/.cache/coredns-gen/code"))


def test_const_is_checked_like_an_enum_of_one() -> None:
    checker = Checker({"type": "object", "properties": {"kind": {"const": "PrometheusRule"}, "n": {"const": {"a": [1]}}}})
    validate = checker.compile()
    assert validate({"kind": "PrometheusRule", "n": {"a": [1]}})
    for bad in ({"kind": "ConfigMap"}, {"n": {"a": [2]}}):
        with pytest.raises(fastjsonschema.JsonSchemaException):
            validate(bad)


def test_a_validator_inside_arrays_says_the_same_without_formatting_names() -> None:
    item = {"type": "object", "properties": {"to": {"$ref": "#/definitions/addresses"}}, "required": ["to"],
            "additionalProperties": False}
    schema = {"type": "object", "properties": {"zones": {"type": "array", "items": item}},
              "definitions": {"addresses": {"type": "array", "items": {"type": "string", "pattern": "^[0-9.]+$"}}}}
    plain = fastjsonschema.compile_to_code(codecache._fast_form(schema), **codecache._OPTIONS)  # type: ignore[arg-type]
    assert "locals()" in plain  # what the generated code does, and _fast_code leaves out
    validate = Checker(schema).compile()
    assert validate({"zones": [{"to": ["10.0.0.1"]}, {"to": []}]})
    for bad in ({"zones": [{"to": ["10.0.0.1"]}, {"to": ["x y"]}]}, {"zones": [{"to": ["1"], "x": 1}]}, {"zones": [{}]}):
        with pytest.raises(fastjsonschema.JsonSchemaException):
            validate(bad)


PERMISSIVE = "def validate(data):\n    return data\n"  # a validator that passes anything


def test_a_kept_validator_that_is_not_sealed_is_never_run(cache: Path) -> None:
    """An entry a foreign writer left (a bare marshalled validator that passes anything, as an
    older coredns-gen or a tampered shared cache holds) is compiled again, never believed."""
    Checker(dict(SCHEMA)).compile()
    (entry,) = (cache / "validators").glob("*.marshal")
    entry.write_bytes(marshal.dumps(compile(PERMISSIVE, "<foreign>", "exec")))
    checker = Checker(dict(SCHEMA))
    assert not checker.is_valid({"port": 0}) and not checker.is_valid({"name": "x"})


def test_a_validator_kept_under_another_schema_is_never_used(cache: Path) -> None:
    """Two entries swapped (each verifies as the other's): both schemas are checked as written."""
    loose = {"type": "object"}
    Checker(dict(SCHEMA)).compile()
    Checker(dict(loose)).compile()
    first, second = sorted((cache / "validators").glob("*.marshal"))
    a, b = first.read_bytes(), second.read_bytes()
    first.write_bytes(b)
    second.write_bytes(a)
    assert not Checker(dict(SCHEMA)).is_valid({"port": 0})
    assert Checker(dict(loose)).is_valid({"port": 0})


def test_every_bit_of_a_kept_validator_flipped_is_that_validator_or_compiled_again(cache: Path) -> None:
    Checker(dict(SCHEMA)).compile()
    (entry,) = (cache / "validators").glob("*.marshal")
    kept = entry.read_bytes()
    for bit in range(0, len(kept) * 8, len(kept) * 8 // 97 or 1):  # ~100 bits over the whole entry
        entry.write_bytes(kept[:bit // 8] + bytes([kept[bit // 8] ^ (1 << (bit % 8))]) + kept[bit // 8 + 1:])
        checker = Checker(dict(SCHEMA))
        assert checker.is_valid({"port": 53}) and not checker.is_valid({"port": 0}), bit


def _tampered_template(cache: Path, body: str) -> None:
    """Every kept template replaced by code compiled from `body` under the real source's
    checksum, in Jinja's own bytecode format (what a cache written by Jinja's FileSystemBytecodeCache holds)."""
    env = templating.environment()
    source = (templating.templates_dir() / "common" / "override.j2").read_text()
    bucket = jinja2.bccache.Bucket(env, "k", env.bytecode_cache.get_source_checksum(source))  # type: ignore[union-attr]
    bucket.code = env.compile(body, "common/override.j2", None)  # type: ignore[assignment]
    for kept in (cache / "templates").iterdir():
        kept.write_bytes(bucket.bytecode_to_string())
    templating.environment.cache_clear()
    templating.template.cache_clear()


def test_a_kept_template_whose_code_is_not_its_source_is_compiled_again(cache: Path) -> None:
    override = type("O", (), {"lines": ["log"]})
    assert templating.render_macro("common/override.j2", "override_lines", override=override) == "log\n"
    _tampered_template(cache, "{% macro override_lines(override) %}tampered\n{% endmacro %}")
    assert templating.render_macro("common/override.j2", "override_lines", override=override) == "log\n"


def test_every_bit_of_a_kept_template_flipped_renders_the_template_or_compiles_it_again(cache: Path) -> None:
    override = type("O", (), {"lines": ["log"]})
    first = templating.render_macro("common/override.j2", "override_lines", override=override)
    (entry,) = (cache / "templates").iterdir()
    kept = entry.read_bytes()
    for bit in range(0, len(kept) * 8, len(kept) * 8 // 97 or 1):
        entry.write_bytes(kept[:bit // 8] + bytes([kept[bit // 8] ^ (1 << (bit % 8))]) + kept[bit // 8 + 1:])
        templating.environment.cache_clear()
        templating.template.cache_clear()
        assert templating.render_macro("common/override.j2", "override_lines", override=override) == first, bit
