"""A module imported on its first use, for code that only some runs reach.

Start-up is paid by every run: a guard run over a fleet whose scripts create no Azure flux
configuration never needs the readers of Bicep, ARM and Terraform. Such a module is declared at
the top of the module that uses it, in one checked form (tests/test_imports.py holds it, and
counts the edge in the import graph and the guard's layers like any import):

    if TYPE_CHECKING:
        from gen.guard.flux import fluxconfigs
    else:
        fluxconfigs = lazy_module("gen.guard.flux.fluxconfigs")

mypy reads the real module; at run time the name is a stand-in that imports the module when an
attribute is first read. Nothing else in the package imports by name at run time.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any


class LazyModule:
    """Stands in for the module `name` until an attribute is read, then imports it."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._module: ModuleType | None = None

    def __getattr__(self, attr: str) -> Any:
        module = self._module
        if module is None:
            module = self._module = importlib.import_module(self._name)
        return getattr(module, attr)

    def __repr__(self) -> str:
        return f"<module {self._name!r} ({'imported' if self._module is not None else 'not imported yet'})>"


def lazy_module(name: str) -> Any:
    """The stand-in for module `name` (a literal `gen.` module name: tests/test_imports.py checks it)."""
    return LazyModule(name)
