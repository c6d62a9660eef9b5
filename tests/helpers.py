"""Small helpers for inline fixtures (copier's build_file_tree)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from textwrap import dedent
from typing import Mapping


def build_tree(root: Path, files: Mapping[str, str]) -> Path:
    """Write {relative path: text} under root (text is dedented); return root."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dedent(text).lstrip("\n"))
    return root


def snapshot_tree(root: Path) -> dict[str, bytes]:
    """Every file under root with its bytes, to assert that nothing changed."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }


def git(root: Path, *args: str) -> str:
    """Run git in root with a fixed identity and no user config; return stdout."""
    env = {
        "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid",
        "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1",
        "PATH": __import__("os").environ["PATH"], "HOME": str(root),
    }
    proc = subprocess.run(["git", *args], cwd=root, env=env, capture_output=True, text=True, check=True)
    return proc.stdout


def render_refused(root: Path, text: str) -> list[str]:
    """Render `text` as root/v.yaml (next to a file of the user's in an overlay folder); assert
    exit 2 and that no file changed; return the stderr lines."""
    from typer.testing import CliRunner

    from gen.cli import app

    (root / "v.yaml").write_text(text)
    for folder in ("overlays/talos/prod", "overlays/k3s/k"):
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / "keep.yaml").write_text("mine: true\n")
    before = snapshot_tree(root)
    result = CliRunner().invoke(app, ["render", "--repo", str(root), str(root / "v.yaml")])
    assert result.exit_code == 2, result.output
    assert snapshot_tree(root) == before
    return result.stderr.splitlines()
