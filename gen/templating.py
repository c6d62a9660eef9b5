"""The one Jinja environment: templates/ (or gen/templates in a wheel), strict, byte-cached.

Platforms render Corefile pieces through it; it knows nothing of platforms, values or files,
so anything may import it without a cycle.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import jinja2

from gen import codecache


def templates_dir() -> Path:
    """Installed wheels carry gen/templates; a source checkout uses the top-level templates/."""
    packaged = Path(__file__).parent / "templates"
    return packaged if packaged.is_dir() else Path(__file__).resolve().parent.parent / "templates"


@functools.lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,
        auto_reload=False,  # templates do not change during a run: no stat() per render
        bytecode_cache=codecache.TemplateCache(),
    )


@functools.lru_cache(maxsize=None)
def template(name: str) -> jinja2.Template:
    return environment().get_template(name)


def render_template(name: str, **context: Any) -> str:
    return template(name).render(**context)


def render_macro(name: str, macro: str, **arguments: Any) -> str:
    """Call a macro a template exports. Corefile pieces are macros because a fleet renders
    thousands of them: a macro call costs a third of a whole-template render."""
    return str(getattr(template(name).module, macro)(**arguments))
