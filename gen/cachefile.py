"""Write one cache entry whole or not at all, never fail the run over it, and never believe it unchecked.

Every cache here (compiled validators, guard builds, parsed manifests, resolutions) is an
optimisation: processes racing on one entry must see it complete or absent, and a read-only
home or a full disk must only cost time, never an error or a stray temp file.

A cache is also input the run did not make: CI restores it from a shared store (actions/cache),
and a flipped bit in a kept build once turned a refusal into a pass. So entries are *sealed*:
each record carries a sha256 over its key and its content, checked when it is opened, and one
that does not verify (flipped, torn, another key's content) is a miss, counted so the run can say
so. The digest has no secret: it guards against corruption and mix-ups, not against whoever can
write the store (docs/guard.md, "Caches").

A sealed file is `MAGIC`, then records: digest (32 bytes), key length and content length (4
bytes each, little-endian), key (UTF-8), content; the digest covers everything after itself.
The last record has an empty key and no content: a file without it was cut short, even at a
record's edge. A torn file keeps the records before the tear.
"""

from __future__ import annotations

import hashlib
import os
import stat
import struct
import tempfile
from pathlib import Path
from typing import Iterable

MAGIC = b"coredns-gen sealed 1\n"
MAX_FILE = 1 << 30  # no cache file is near this (a 200-cluster fleet's builds are ~6 MiB): a larger one is not read
_LENGTHS = struct.Struct("<II")
_DIGEST = 32
_HEAD = _DIGEST + _LENGTHS.size


def read_entry(path: Path) -> bytes:
    """The bytes of a cache file that is a regular file of its own: what this module writes. A
    symlink (to /dev/zero, to a FIFO, to a file of the user's) or anything else is not read.

    Raises:
        OSError: absent, unreadable, or not a regular file.
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as f:
        found = os.fstat(f.fileno())
        if not stat.S_ISREG(found.st_mode) or found.st_size > MAX_FILE:
            raise OSError(f"{path} is not a regular file of at most {MAX_FILE} bytes")
        return f.read(MAX_FILE + 1)


def write_entry(entry: Path, data: bytes) -> None:
    """Write `data` to `entry` through a temp sibling and a rename; give up quietly on OSError."""
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=entry.parent, prefix=".tmp-", suffix=entry.suffix)
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(tmp, entry)
    except OSError:
        Path(tmp).unlink(missing_ok=True)


def seal(entries: Iterable[tuple[str, bytes]]) -> bytes:
    """A sealed file holding `entries` (key, content), in the order given."""
    out = [MAGIC]
    for key, content in entries:
        name = key.encode()
        body = _LENGTHS.pack(len(name), len(content)) + name + content
        out += (hashlib.sha256(body).digest(), body)
    return b"".join(out) + _END


_END = hashlib.sha256(_LENGTHS.pack(0, 0)).digest() + _LENGTHS.pack(0, 0)  # the last record


class Sealed:
    """The records of one sealed file, each verified when opened (a pack's many entries are read
    only as a run needs them). `rejected` counts what did not verify: records opened and found
    wrong, and one for a file that is torn or not a sealed file at all."""

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._view = memoryview(data)
        self._at: dict[str, tuple[int, int, int]] = {}  # key -> (record, content, end) offsets
        self.rejected = 0
        if not data.startswith(MAGIC):
            self.rejected = 1
            return
        pos, size, ended = len(MAGIC), len(data), False
        while pos + _HEAD <= size and not ended:
            key_len, content_len = _LENGTHS.unpack_from(data, pos + _DIGEST)
            content = pos + _HEAD + key_len
            end = content + content_len
            if end > size:
                break
            if data[pos:end] == _END:
                ended = True
            else:
                try:
                    key = data[pos + _HEAD:content].decode()
                except UnicodeDecodeError:  # a flipped key: no one asks for it; the file is damaged
                    self.rejected += 1
                else:
                    self._at[key] = (pos, content, end)
            pos = end
        if not ended or pos != size:
            self.rejected += 1  # torn, or a length flipped: what follows cannot be trusted to be read

    @classmethod
    def read(cls, path: Path) -> Sealed:
        """The sealed file at `path`; empty, with nothing rejected, when it is absent or cannot be
        read; one rejected when it is there but no regular file (a symlink, a FIFO, a device)."""
        try:
            return cls(read_entry(path))
        except FileNotFoundError:
            return cls(MAGIC + _END)
        except OSError:
            empty = cls(MAGIC + _END)
            empty.rejected = 1 if path.is_symlink() or path.exists() else 0
            return empty

    @staticmethod
    def drop(path: Path) -> None:
        """Remove a damaged file whose sound entries were read: the next run writes it afresh
        instead of finding the damage again (quietly: it only costs time)."""
        try:
            path.unlink(missing_ok=True)
        except OSError:
            pass

    def keys(self) -> list[str]:
        return list(self._at)

    def __contains__(self, key: str) -> bool:
        return key in self._at

    def open(self, key: str) -> bytes | None:
        """The content kept under `key`, if its digest verifies over this key and this content; None
        when absent or wrong (counted in `rejected`, and forgotten, so it is counted once)."""
        found = self._at.get(key)
        if found is None:
            return None
        pos, content, end = found
        if hashlib.sha256(self._view[pos + _DIGEST:end]).digest() != self._data[pos:pos + _DIGEST]:
            del self._at[key]
            self.rejected += 1
            return None
        return self._data[content:end]
