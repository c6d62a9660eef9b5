"""SOPS-encrypted Secrets decrypted as kustomize-controller decrypts them, with the CI's age key.

Flux's CI gives the key as `SOPS_AGE_KEY` (the key itself) or `SOPS_AGE_KEY_FILE` (a file holding
it). With one, the helper (tools/helper/secrets) decrypts a Secret with the library
kustomize-controller uses (github.com/getsops/sops/v3, gen/data/SOURCES.md) and hands back each
decrypted value as a token only: `zz-cgsec<HMAC of the value under a key derived from the age key>-
<KEY>-zz`. Two equal values get one token and two different values two, so a name built from a
secret compares between base and head as Flux's would, and no decrypted byte reaches this
process, its caches, findings, views or reports; a token is shown as `${KEY}`
(gen/guard/flux/placeholders.py). Without a key nothing here runs: a SOPS Secret is a source the
guard cannot read (gen/guard/flux/unread.py).

kustomize-controller decrypts what a Kustomization builds only when its `spec.decryption.provider`
is `sops`, and refuses to apply a SOPS-encrypted Secret otherwise; the helper's build does the
same (tools/helper/build/flux.go), and a Secret so left encrypted is not decrypted here either.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import subprocess
import threading
from typing import Any

from gen.errors import ToolError, UsageError
from gen.tools import HELPER_BUILD_HINT, helper_binary

KEY_ENV = "SOPS_AGE_KEY"
KEY_FILE_ENV = "SOPS_AGE_KEY_FILE"
KEY_HINT = (f"give the guard the age key the cluster decrypts with, as Flux's CI does: {KEY_ENV} (the key) or "
            f"{KEY_FILE_ENV} (a file holding it)")

_lock = threading.Lock()
# digest of the key id and the encrypted object -> the tokenized object (or why not), and its secret keys
_decrypted: dict[str, tuple[dict[str, Any] | str, tuple[str, ...]]] = {}
_secret_keys: set[str] = set()  # the keys whose values were secret, for the run's note


def key_given() -> bool:
    """The CI gave an age key (Flux's own variables)."""
    return bool(os.environ.get(KEY_ENV) or os.environ.get(KEY_FILE_ENV))


def key_id() -> str:
    """Which key tokens are made with, for cache keys: a digest of the age key (256 random bits,
    which a digest cannot reveal). Empty without a key.

    Raises:
        UsageError: SOPS_AGE_KEY_FILE names a file that cannot be read.
    """
    if not key_given():
        return ""
    path = os.environ.get(KEY_FILE_ENV) or ""
    try:
        stat = os.stat(path) if path else None
    except OSError as err:
        raise UsageError(f"{KEY_FILE_ENV}: cannot read {path}: {err.strerror}", hint=KEY_HINT) from None
    return _key_id(os.environ.get(KEY_ENV, ""), path, (stat.st_mtime_ns, stat.st_size) if stat else (0, 0))


@functools.lru_cache(maxsize=8)
def _key_id(key: str, path: str, _version: tuple[int, int]) -> str:
    """key_id, read once per key (the helper's identity is asked for every build)."""
    digest = hashlib.sha256(b"coredns-gen sops key id 1\0")
    digest.update(key.encode())
    if path:
        try:
            with open(path, "rb") as f:
                digest.update(b"\0" + f.read())
        except OSError as err:
            raise UsageError(f"{KEY_FILE_ENV}: cannot read {path}: {err.strerror}", hint=KEY_HINT) from None
    return "sops-age:" + digest.hexdigest()[:16]


def decrypted(obj: dict[str, Any]) -> dict[str, Any] | str:
    """A SOPS-encrypted object as kustomize-controller applies it, each decrypted value as its
    token; or why it cannot be (no key given, or the key does not open it). Asked once per object.

    Raises:
        ToolError: the helper is missing or failed.
        UsageError: the key given does not read.
    """
    if not key_given():
        return "SOPS-encrypted"
    digest = hashlib.sha256(f"{key_id()}\0{json.dumps(obj, sort_keys=True, default=str)}".encode()).hexdigest()
    with _lock:
        known = _decrypted.get(digest)
    answer, secret = _ask(obj) if known is None else known
    with _lock:
        _decrypted[digest] = (answer, secret)
        _secret_keys.update(secret)  # (a later run in this process says them too)
    return answer


def _ask(obj: dict[str, Any]) -> tuple[dict[str, Any] | str, tuple[str, ...]]:
    helper = helper_binary(build=True)
    if helper is None:
        raise ToolError("coredns-gen-helper is not installed: SOPS Secrets are decrypted with the library "
                        "kustomize-controller uses, through it", hint=HELPER_BUILD_HINT)
    line = json.dumps({"id": "0", "object": obj}, separators=(",", ":"), default=str)
    try:
        proc = subprocess.run([str(helper), "sops", "decrypt"], input=line + "\n", capture_output=True, text=True,
                              timeout=120, check=False)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise ToolError(f"cannot run {helper} sops decrypt: {err}", hint=HELPER_BUILD_HINT) from err
    if proc.returncode == 2:
        raise UsageError(proc.stderr.strip() or "the age key given does not read", hint=KEY_HINT)
    try:
        data = json.loads(proc.stdout)
        if data.get("error"):
            return f"SOPS-encrypted, and the age key given does not decrypt it ({data['error']})", ()
        out = data["object"]
        secret = tuple(str(k) for k in data.get("secret") or [])
    except (ValueError, KeyError, TypeError, AttributeError) as err:
        raise ToolError(f"{helper} sops decrypt did not answer (exit {proc.returncode})", stderr=proc.stderr,
                        hint=f"rebuild it from this checkout: {HELPER_BUILD_HINT}") from err
    if not isinstance(out, dict):
        raise ToolError(f"{helper} sops decrypt answered no object", hint=f"rebuild it from this checkout: {HELPER_BUILD_HINT}")
    return out, secret


def note_secret(keys: list[str]) -> None:
    """Keys a build's decrypted Secrets held (the helper's build says them)."""
    with _lock:
        _secret_keys.update(keys)


def secrets_note() -> str | None:
    """One line for stderr: which values were secret, and that none was written."""
    with _lock:  # (said once: a later run in this process starts afresh)
        keys = sorted(_secret_keys)
        _secret_keys.clear()
    if not keys:
        return None
    names = ", ".join(keys[:8]) + (f" (+{len(keys) - 8} more)" if len(keys) > 8 else "")
    return (f"SOPS values decrypted with the age key given ({KEY_ENV}/{KEY_FILE_ENV}) and judged as Flux uses them: "
            f"{names}; each is shown as its variable (${{KEY}}) and none was written to the cache, a report or this output")
