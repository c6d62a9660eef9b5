"""The one reader of user files returns a file's text exactly, however large, and refuses one
over the size limit before reading it."""

from __future__ import annotations

from pathlib import Path

import pytest

from gen import inputfile
from gen.errors import ValuesError


def test_a_file_larger_than_one_read_comes_back_whole(tmp_path: Path) -> None:
    text = "".join(f"# line {i}: é ü ☃ {'x' * (i % 70)}\n" for i in range(20_000)) + "cluster: prod\n"  # ~1 MB
    path = tmp_path / "big.yaml"
    path.write_text(text, encoding="utf-8")
    assert len(text.encode()) > 1 << 20
    assert inputfile.read_user_file(path, "big.yaml") == text


def test_an_empty_file_reads_as_empty_text(tmp_path: Path) -> None:
    (tmp_path / "empty.yaml").write_bytes(b"")
    assert inputfile.read_user_file(tmp_path / "empty.yaml", "empty.yaml") == ""


def test_a_file_over_the_limit_is_refused_with_its_size(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(inputfile, "MAX_BYTES", 4 << 20)
    path = tmp_path / "huge.yaml"
    path.write_bytes(b"#" * ((4 << 20) + 1))
    with pytest.raises(ValuesError) as err:
        inputfile.read_user_file(path, "huge.yaml")
    assert str(err.value) == ("huge.yaml: is 4,194,305 bytes, more than the 4 MiB an input file may have — "
                              "fix: give the values file or Corefile itself")
