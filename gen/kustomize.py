"""Run real kustomize (like flux-local's kustomize.py); never a re-implementation."""

from __future__ import annotations

import subprocess
from pathlib import Path

from gen.errors import ToolError
from gen.tools import kustomize_command


def build(path: Path) -> str:
    """Return the multi-document YAML that `kustomize build PATH` prints.

    Raises:
        ToolError: kustomize is missing or the build failed (its stderr attached).
    """
    argv = [*kustomize_command(), str(path)]
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, check=False)
    except OSError as err:
        raise ToolError(f"cannot run {argv[0]}: {err}") from err
    if proc.returncode != 0:
        raise ToolError(f"kustomize build {path} failed", stderr=proc.stderr)
    return proc.stdout
