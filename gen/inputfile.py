"""Read a file a user named (values file, `.coredns-gen.yaml`, a file given to `lint`) as text.

One reader, so every command refuses the same things the same way, before a parser sees them:
- anything but a regular file (a FIFO would block `open()` forever, a device never ends): checked
  with stat() and again with fstat() on a descriptor opened O_NONBLOCK, so a file swapped for a
  FIFO in between cannot hang us either;
- a symlink loop, a missing file;
- bytes that are not UTF-8 (named by byte offset, line and column) and NUL bytes (a binary file);
- for YAML, the characters YAML itself forbids (ruamel's reader stops on them with a bare
  ReaderError; the libyaml fast path stops too), named by line and column.
Permission and I/O failures are system failures (exit 3), not bad input.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from pathlib import Path

from gen.errors import GenError, Problem, SystemFailure, ValuesError

MAX_BYTES = 64 << 20  # far beyond any values file or Corefile; past it a file is not one of ours

# YAML 1.2 §5.1: printable characters (tab, LF, CR, 0x20-0x7E, NEL, 0xA0 up, minus surrogates, FFFE/FFFF).
_NOT_YAML = re.compile("[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")

_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def _where(text: str, index: int) -> tuple[int, int]:
    """1-based line and column of a character index."""
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


def _system(err: OSError, shown: str) -> SystemFailure:
    return SystemFailure(Problem(f"cannot read: {os.strerror(err.errno or 0) or err}", file=shown,
                                 hint="check the file's permissions and the disk"))


def read_user_file(path: Path, shown: str, *, error: type[GenError] = ValuesError, yaml: bool = True,
                   missing_hint: str = "check the path") -> str:
    """The file's text, or `error` (exit 2) saying what is wrong and how to fix it.

    Raises:
        error: missing, not a regular file, a symlink loop, too large, not UTF-8, a NUL byte,
            or (`yaml`) a character YAML forbids.
        SystemFailure: permission denied or an I/O error (exit 3).
    """
    def bad(problem: str, hint: str, line: int | None = None, col: int | None = None) -> GenError:
        return error(Problem(problem, file=shown, line=line, col=col, hint=hint))

    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            raise bad(f"is {_kind(info.st_mode)}, not a regular file", "give the path of a regular file")
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise bad("file not found", missing_hint) from None
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise bad("is a symlink loop", "point the symlink at a real file") from None
        if err.errno in (errno.ENOTDIR, errno.ENAMETOOLONG):
            raise bad("file not found", missing_hint) from None
        raise _system(err, shown) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise bad(f"is {_kind(info.st_mode)}, not a regular file", "give the path of a regular file")
        if info.st_size > MAX_BYTES:
            raise bad(f"is {info.st_size:,} bytes, more than the {MAX_BYTES >> 20} MiB an input file may have",
                      "give the values file or Corefile itself")
        data = _read_fd(fd, info.st_size)
    except OSError as err:
        raise _system(err, shown) from None
    finally:
        os.close(fd)
    return decode(data, shown, error=error, yaml=yaml)


def _read_fd(fd: int, size: int) -> bytes:
    """At most MAX_BYTES + 1 bytes, in reads sized by fstat (a buffered read(MAX_BYTES + 1)
    allocates 64 MiB first: 35 µs per file, a third of reading a values file)."""
    chunks: list[bytes] = []
    total = 0
    while total <= MAX_BYTES:
        chunk = os.read(fd, min(max(size + 1, 1 << 16), MAX_BYTES + 1 - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    return b"".join(chunks)


def decode(data: bytes, shown: str, *, error: type[GenError] = ValuesError, yaml: bool = True) -> str:
    """Strict UTF-8 text without NUL bytes (and, for YAML, without characters YAML forbids)."""
    nul = data.find(b"\0")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        col = nul - (data.rfind(b"\n", 0, nul) + 1) + 1
        raise error(Problem(f"a NUL byte at byte offset {nul}: this is not a text file", file=shown, line=line, col=col,
                            hint="remove the NUL byte; a binary file is not an input"))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        col = err.start - (data.rfind(b"\n", 0, err.start) + 1) + 1
        raise error(Problem(f"byte 0x{data[err.start]:02x} at byte offset {err.start} is not UTF-8",
                            file=shown, line=line, col=col,
                            hint="save the file as UTF-8, e.g. `iconv -f latin1 -t utf-8 FILE`; "
                                 "a binary file is not an input")) from None
    if yaml:
        found = _NOT_YAML.search(text)
        if found:
            line, col = _where(text, found.start())
            raise error(Problem(f"the character U+{ord(found[0]):04X} is not allowed in YAML", file=shown, line=line, col=col,
                                hint="remove it (write control characters as escapes in a double-quoted string)"))
    return text
