"""The one Jinja environment: templates/ (or gen/templates in a wheel), strict, byte-cached.

Platforms render Corefile pieces through it; it knows nothing of platforms, values or files,
so anything may import it without a cycle.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gen import codecache

if TYPE_CHECKING:
    import jinja2


def templates_dir() -> Path:
    """Installed wheels carry gen/templates; a source checkout uses the top-level templates/."""
    packaged = Path(__file__).parent / "templates"
    return packaged if packaged.is_dir() else Path(__file__).resolve().parent.parent / "templates"


@functools.lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    """Made at the first render; jinja2 is imported then, not with this module: every platform
    imports this module, and the guard and lint use platforms for their facts, never to render."""
    import jinja2

    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,
        auto_reload=False,  # templates do not change during a run: no stat() per render
        bytecode_cache=codecache.template_cache(),
    )


@functools.lru_cache(maxsize=None)
def template(name: str) -> jinja2.Template:
    return environment().get_template(name)


def preload() -> None:
    """The environment and every Corefile macro template, made now: a fleet render does this
    before it forks, so the workers inherit them instead of each importing jinja2 and loading them."""
    for path in sorted((templates_dir() / "common").glob("*.j2")):
        template(f"common/{path.name}")


def render_template(name: str, **context: Any) -> str:
    return template(name).render(**context)


def render_macro(name: str, macro: str, **arguments: Any) -> str:
    """Call a macro a template exports. Corefile pieces are macros because a fleet renders
    thousands of them: a macro call costs a third of a whole-template render."""
    return str(getattr(template(name).module, macro)(**arguments))
