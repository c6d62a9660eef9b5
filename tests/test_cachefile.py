"""A sealed cache file is read only when it is a regular file of its own, of a sane size."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gen import cachefile
from gen.cachefile import Sealed, seal, write_entry


def test_what_is_no_regular_file_is_not_read_but_counted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = tmp_path / "real.sealed"
    write_entry(real, seal([("k", b"v")]))
    assert Sealed.read(real).open("k") == b"v"
    fifo = tmp_path / "fifo.sealed"
    os.mkfifo(fifo)
    link = tmp_path / "link.sealed"
    link.symlink_to(real)  # even to a sound sealed file: no cache file is a symlink
    zero = tmp_path / "zero.sealed"
    zero.symlink_to("/dev/zero")
    for path in (fifo, link, zero, tmp_path):
        found = Sealed.read(path)
        assert found.rejected == 1 and found.keys() == [], path
    assert Sealed.read(tmp_path / "absent").rejected == 0
    monkeypatch.setattr(cachefile, "MAX_FILE", 16)
    assert Sealed.read(real).rejected == 1  # larger than any cache file: not read


def test_a_symlinked_entry_is_replaced_never_written_through(tmp_path: Path) -> None:
    target = tmp_path / "users-file"
    target.write_text("the user's own\n")
    entry = tmp_path / "cache" / "x.sealed"
    entry.parent.mkdir()
    entry.symlink_to(target)
    write_entry(entry, seal([("k", b"v")]))
    assert target.read_text() == "the user's own\n" and not entry.is_symlink()
    assert Sealed.read(entry).open("k") == b"v"
