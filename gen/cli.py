"""Typer app: parse arguments, call one library function, map its result or error to an exit code.

Only this module prints or exits (cruft's _cli.py over _commands/*). Every `GenError` is
caught in `_run`, written to stderr as one line per problem, and becomes its exit code;
`--debug` re-raises for a traceback. Any other exception is a bug and keeps its traceback.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Callable, Optional, TypeVar

import typer

from gen.errors import GenError

T = TypeVar("T")

app = typer.Typer(
    name="coredns-gen",
    help="Render CoreDNS overlays for Talos, k3s and AKS, generate their Flux objects, "
    "and refuse CI diffs that would make Flux prune DNS config.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

_state = {"debug": False}


@app.callback()
def _main(
    debug: Annotated[bool, typer.Option("--debug", help="Show a traceback for reported errors.")] = False,
) -> None:
    _state["debug"] = debug


def _run(fn: Callable[[], T]) -> T:
    """The one error boundary: GenError -> stderr + its exit code."""
    try:
        return fn()
    except GenError as err:
        if _state["debug"]:
            raise
        typer.echo(str(err), err=True)
        raise typer.Exit(err.exit_code) from None


def _out(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


RepoOption = Annotated[
    Path,
    typer.Option("--repo", help="GitOps repository root; every path is relative to it.", file_okay=False),
]

# --- commands -------------------------------------------------------------------------------
# (render, schema, new are defined below; guard, lint, verify each keep to their own section.)


def main() -> None:
    app()
