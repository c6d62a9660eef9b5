"""Resolutions kept between runs, beside the build cache: a warm run recalls base's too.

The file holds every (artifact, spec.path)'s newest resolutions with what each looked at
(gen/guard/build/recall.py), so one is reused only where it still holds; a stale or foreign entry
costs a check, never a wrong answer. Its name carries a digest of the resolver's own source
and of this module (the rows' layout), so a coredns-gen that resolves or keeps them differently
never reads another's entries: a kept row is made into Inputs only when reused, after `load`. It is marshalled,
like the compiled validators (gen/codecache.py): a fleet's file loads in milliseconds. Each
(artifact, spec.path)'s resolutions are a sealed entry (gen/cachefile.py) keyed by the file's
name and that pair: one that does not verify is resolved again, and never unmarshalled.
"""

from __future__ import annotations

import hashlib
import marshal
from pathlib import Path
from typing import Any, Callable

from gen.cachefile import Sealed, seal, write_entry
from gen.guard.build import inputs
from gen.guard.build import recall
from gen.guard.build.inputs import Escape, Inputs, Recalled, Resolution
from gen.guard.build.recall import Seen

_KEEP = 3  # resolutions kept per (artifact, spec.path): base, head and one more


def _path(directory: Path, repo: Path) -> Path:
    code = hashlib.sha256()
    for source in (inputs.__file__, recall.__file__, __file__):  # the resolver, and the rows' layout here
        code.update(Path(source or "").read_bytes())
    where = hashlib.sha256(str(repo).encode()).hexdigest()[:16]
    return directory / "recall" / f"{where}-{code.hexdigest()[:16]}.sealed"


def load(directory: Path | None, repo: Path, rejected: Callable[[int], None] = lambda count: None) -> Recalled:
    """The resolutions a previous run in `repo` kept; empty when there are none or they are
    unreadable. Entries that do not verify are left out, and their count given to `rejected`."""
    if directory is None:
        return {}
    path = _path(directory, repo)
    sealed = Sealed.read(path)
    recalled: Recalled = {}
    for key in sealed.keys():
        content = sealed.open(key)
        if content is None:
            continue
        try:
            name, view, spec_path = key.split("\0")
            if name != path.name:
                continue
            recalled[(view, spec_path)] = [_recalled(seen, row) for seen, row in marshal.loads(content)]
        except (ValueError, EOFError, TypeError):  # verified, so written by another Python: resolve again
            continue
    if sealed.rejected:
        sealed.drop(path)
    rejected(sealed.rejected)
    return recalled


def save(directory: Path | None, repo: Path, recalled: Recalled) -> None:
    """Keep the newest resolutions of every key (written whole or not at all)."""
    if directory is None:
        return
    path = _path(directory, repo)
    entries = ((f"{path.name}\0{view}\0{spec_path}",
                marshal.dumps(tuple((_seen_row(r.seen), r.kept if r.kept is not None else _inputs_row(r.inputs))
                                    for r in found[-_KEEP:])))
               for (view, spec_path), found in sorted(recalled.items()) if found)
    write_entry(path, seal(entries))


def _recalled(seen: tuple[Any, ...], row: tuple[Any, ...]) -> Resolution:
    """A kept resolution; its Inputs are made from `row` only if it is reused."""
    return Resolution(Seen(*seen), kept=row, make=lambda: _inputs(row, seen[1]))


def _seen_row(s: Seen) -> tuple[Any, ...]:
    return (s.path, s.files, s.files_at, s.no_files_at, s.folders_at, s.no_folders_at, s.listing, s.links)


def _inputs_row(i: Inputs) -> tuple[Any, ...]:
    """The resolution but its files, which are the ones its Seen read."""
    return (tuple(i.missing), i.exact, tuple((k, tuple(refs)) for k, refs in i.references.items()),
            tuple(i.generators), tuple(tuple(e) for e in i.escapes), i.digest, i.mentions_flux)


def _inputs(row: tuple[Any, ...], files: tuple[tuple[str, str], ...]) -> Inputs:
    missing, exact, references, generators, escapes, digest, mentions_flux = row
    return Inputs({path for path, _ in files}, set(missing), exact, {k: list(refs) for k, refs in references},
                  set(generators), [Escape(*e) for e in escapes], digest, mentions_flux)
