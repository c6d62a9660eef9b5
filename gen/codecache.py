"""Compiled schema validators and templates kept on disk, the way Python keeps .pyc files.

fastjsonschema turns a schema into Python source and compiles it: 3-20 ms per Kubernetes
kind, 0.1 s for what one fleet render needs, paid again by every process; Jinja compiles each
template (~6 ms). The compiled code objects, marshalled, load in well under a millisecond.
jinja2 and fastjsonschema are imported at the first render or compile, not with this module: the
guard and lint import the platforms (for their facts) and so this module, and never render
(jinja2 is ~35 ms of their start-up; fastjsonschema, whose draft modules compile their regular
expressions on import, ~10 ms).
Entries are keyed by everything that shapes the code (schema or template text, library
version, the interpreter's bytecode tag), so a stale entry is never read; a missing,
unreadable or unwritable cache only costs the compile. Each entry is sealed (gen/cachefile.py)
over its key and its code, and unmarshalled only when it verifies: a flipped bit in a kept
validator could make it pass what the schema refuses, and another key's code would check
another schema. Templates are kept the same way, not in Jinja's own format (which unpickles
what it reads and checks only the source's checksum, never the code).
"""

from __future__ import annotations

import hashlib
import json
import marshal
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from gen.cachefile import Sealed, seal, write_entry

if TYPE_CHECKING:
    import jinja2

# What shapes the generated code (part of every cache key). A validator here only answers yes or
# no (errors are explained by jsonschema), so no detailed exceptions: with them, fastjsonschema
# writes each subschema, references expanded, into every `raise`, which makes the code for a
# Kubernetes kind 3-7x larger and 3x slower to build. It must never fill schema defaults into
# the document it checks (that would change what we write).
_OPTIONS = {"use_default": False, "detailed_exceptions": False}
_FORM = 4  # bump when _fast_form or _fast_code changes (4: sealed entries)


def cache_dir() -> Path:
    """$COREDNS_GEN_CODE_CACHE, else ~/.cache/coredns-gen/code (beside the guard's build cache)."""
    return Path(os.environ.get("COREDNS_GEN_CODE_CACHE") or "~/.cache/coredns-gen/code").expanduser()


def identity_of(schema: dict[str, Any]) -> str:
    """A schema's identity when nothing cheaper names it: its canonical JSON."""
    return json.dumps(schema, sort_keys=True, separators=(",", ":"))


def _key(identity: str) -> str:
    import fastjsonschema

    text = json.dumps([identity, fastjsonschema.VERSION, sys.implementation.cache_tag, sys.version, _OPTIONS, _FORM])
    return hashlib.sha256(text.encode()).hexdigest()


def _entry(key: str) -> Path:
    return cache_dir() / "validators" / f"{key}.marshal"


def _opened(path: Path, key: str) -> bytes | None:
    """The content sealed under `key` in the file at `path`, if it verifies (else None)."""
    sealed = Sealed.read(path)
    content = sealed.open(key)
    return None if content is None or sealed.rejected else content


def _function(code: Any) -> Callable[[Any], Any]:
    namespace: dict[str, Any] = {}
    exec(code, namespace)  # the code fastjsonschema generated for one of our own shipped schemas
    return namespace["validate"]  # type: ignore[no-any-return]


def cached(identity: str) -> Callable[[Any], Any] | None:
    """The validator for the schema `identity` names, from the disk cache; None if absent or bad."""
    key = _key(identity)
    content = _opened(_entry(key), key)
    if content is None:  # absent, torn, flipped, another key's: the caller compiles instead
        return None
    try:
        return _function(marshal.loads(content))
    except Exception:  # verified, so written by another build of Python: compiled instead
        return None


def _fast_form(node: Any) -> Any:
    """`const: X` as the equivalent `enum: [X]`: fastjsonschema 2.22 cannot generate `const`
    without detailed exceptions."""
    if isinstance(node, dict):
        out = {k: _fast_form(v) for k, v in node.items() if k != "const"}
        if "const" in node:
            out["enum"] = [node["const"]]
        return out
    if isinstance(node, list):
        return [_fast_form(v) for v in node]
    return node


def _fast_code(source: str) -> str:
    """The generated code without `.format(**locals())`: inside an array it formats the name of
    each item (`data.zones[0]`, for messages only) from a copy of all the function's locals before
    every call into a subschema, even when nothing fails; that was 60% of validating a values
    file. A validator here only says yes or no, so its unused messages keep the name unformatted."""
    return source.replace(".format(**locals())", "")


def compile_validator(schema: dict[str, Any], identity: str) -> Callable[[Any], Any]:
    """Compile `schema` (draft 7) into a validator that raises on the first problem; cache it
    under `identity`, which must change whenever the schema does."""
    import fastjsonschema

    source = _fast_code(fastjsonschema.compile_to_code(_fast_form(schema), **_OPTIONS))  # type: ignore[arg-type]
    code = compile(source, "<coredns-gen validator>", "exec")
    key = _key(identity)
    write_entry(_entry(key), seal([(key, marshal.dumps(code))]))
    return _function(code)


def template_cache() -> jinja2.BytecodeCache:
    """A bytecode cache for Jinja (keyed by template name and source checksum, Jinja's bucket
    key) in our cache folder, each entry sealed over that key and the code; one that does not
    verify is compiled again, and a cache that cannot be written is skipped, never an error. The
    class is made here, at the first render, because its base class is Jinja's (see the module
    docstring)."""
    import jinja2

    folder = cache_dir() / "templates"

    class TemplateCache(jinja2.BytecodeCache):
        @staticmethod
        def _where(bucket: jinja2.bccache.Bucket) -> tuple[Path, str]:
            key = json.dumps([bucket.key, bucket.checksum, sys.implementation.cache_tag, sys.version, _FORM])
            return folder / f"{bucket.key}.sealed", key

        def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
            path, key = self._where(bucket)
            content = _opened(path, key)
            if content is None:
                return
            try:
                bucket.code = marshal.loads(content)
            except (EOFError, ValueError, TypeError):  # verified, so another Python's: compiled again
                bucket.reset()

        def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
            path, key = self._where(bucket)
            write_entry(path, seal([(key, marshal.dumps(bucket.code))]))

    return TemplateCache()
