"""Without coredns-gen-corefile nothing is judged by a model: render exits 3 naming the build command."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO_ROOT


def test_render_without_the_helper_exits_3_naming_the_build(tmp_path: Path) -> None:
    (tmp_path / "v.yaml").write_text((REPO_ROOT / "examples/k3s.yaml").read_text())
    env = {**os.environ, "COREDNS_GEN_HELPER": str(tmp_path / "absent"), "COREDNS_GEN_BIN": str(tmp_path / "bin"),
           "PATH": os.path.dirname(sys.executable)}
    result = subprocess.run([sys.executable, "-m", "gen", "render", "--repo", str(tmp_path), str(tmp_path / "v.yaml")],
                            env=env, capture_output=True, text=True, cwd=REPO_ROOT)
    assert result.returncode == 3, result.stderr
    assert "coredns-gen-corefile not found" in result.stderr and "go build -trimpath" in result.stderr
    assert not (tmp_path / "overlays").exists()


def test_a_read_that_fills_the_cache_past_its_limit_still_answers_every_text(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Texts read before, asked again with new ones when the cache is full: the cache is cleared
    while the new ones are asked, and the old ones must still be answered (was a KeyError: exit 4)."""
    import pytest

    from gen.corefile import helper

    if helper.corefile_binary() is None and os.environ.get("CI") != "true":
        pytest.skip("coredns-gen-corefile is not built")
    monkeypatch.setattr(helper, "_CACHE_LIMIT", 2)
    client = helper._Client()
    first = [(f".:{53 + i} {{\n  whoami\n}}\n", "Corefile", False) for i in range(4)]
    client.read(first)
    again = client.read(first[:2] + [(".:99 {\n  whoami\n}\n", "Corefile", False)])
    assert [r.error for r in again] == [None, None, None]


def test_a_full_setup_memo_still_answers_what_it_held(monkeypatch):
    """Setups judged before, asked again with a new one when the memo is full: the memo is cleared
    while the new one is asked, and the old ones must still be answered (was a KeyError: exit 4)."""
    import pytest

    from gen.corefile import helper

    if helper.corefile_binary() is None and os.environ.get("CI") != "true":
        pytest.skip("coredns-gen-corefile is not built")
    monkeypatch.setattr(helper, "_CACHE_LIMIT", 2)
    client = helper._Client()
    first = [("cache", f"cache {30 + i}\n", (".",)) for i in range(2)]
    client.setup(first)
    again = client.setup(first + [("reload", "reload 1s\n", (".",))])
    assert [a["verdict"] for a in again] == ["ok", "ok", "refused"]
