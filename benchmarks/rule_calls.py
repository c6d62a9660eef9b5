"""A pytest plugin for benchmarks/fast_loop_catch.py: which tests call each rule's `check`.

Loaded with `-p benchmarks.rule_calls`; at the end of the session it writes
{rule module: [test node ids]} as JSON to $RULE_CALLS_OUT. Each rule module's `check` (and the
invariant rules' `violations`) is wrapped where callers look it up (the module's attribute), so
only tests that run a rule are run again against that rule's mutants.
"""

from __future__ import annotations

import functools
import importlib
import json
import os
import pkgutil
from pathlib import Path
from typing import Any, Callable

import pytest

CALLS: dict[str, set[str]] = {}
CURRENT: list[str] = [""]
PACKAGES = ("gen.guard.rules", "gen.lint.rules")


def _wrap(module: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        CALLS.setdefault(module, set()).add(CURRENT[0])
        return fn(*args, **kwargs)
    return wrapper


def pytest_configure(config: pytest.Config) -> None:
    for package in PACKAGES:
        pkg = importlib.import_module(package)
        for info in pkgutil.iter_modules(pkg.__path__):
            module = importlib.import_module(f"{package}.{info.name}")
            for name in ("check", "violations"):
                fn = getattr(module, name, None)
                if callable(fn):
                    setattr(module, name, _wrap(module.__name__, fn))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Any:
    CURRENT[0] = item.nodeid
    try:
        return (yield)
    finally:
        CURRENT[0] = ""


def pytest_sessionfinish(session: pytest.Session) -> None:
    out = os.environ.get("RULE_CALLS_OUT")
    if out:
        Path(out).write_text(json.dumps({k: sorted(v - {""}) for k, v in sorted(CALLS.items())}, indent=1))
