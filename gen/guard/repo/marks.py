"""Which files mention some byte strings, remembered by blob id for the whole run, and between runs.

Most of a fleet's files are never parsed because they cannot hold what is sought (a Flux
Kustomization, a source object, a named ConfigMap); a revision's scans ask this instead of
reading each file, and base and head, which share almost every blob, each file once.

Whether a blob mentions a string is a function of the blob's bytes, so the answers are kept
between runs too, like the parsed manifests (gen/guard/repo/parse_cache.py): a warm run over a
fleet then reads none of its thousands of files to find its bootstraps (the bytes are read from
git only for what is asked anew, gen/guard/repo/checkout.py). Each string set's answers are a
sealed entry (gen/cachefile.py) keyed by the strings; one that does not verify is asked again.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

from gen.cachefile import Sealed, seal, write_entry
from gen.guard.repo.revision import Tree

Marked = Callable[[Tree, str, tuple[bytes, ...]], bool]
FOLDER = "marks-1"  # the number is the format's
_KEEP = 16  # string sets kept (the most asked): a run asks a few over every file, others over few


def _key(marks: tuple[bytes, ...]) -> str:
    return "marks " + ",".join(m.hex() for m in marks)


class Marks:
    """`marks(tree, path, strings)`: whether the file at `path` mentions any of `strings`.
    `directory` keeps the answers between runs (None: this run only)."""

    def __init__(self, directory: Path | None = None) -> None:
        self._seen: dict[tuple[bytes, ...], dict[str, bool]] = {}  # strings -> blob id -> answer, this run
        self._kept_answers: dict[tuple[bytes, ...], dict[str, bool]] = {}  # what an earlier run kept
        self._directory = directory
        self._sealed: Sealed | None = None
        self._added = False

    def _kept(self, marks: tuple[bytes, ...]) -> dict[str, bool]:
        """The answers an earlier run kept for these strings (none when absent or not verified)."""
        if self._directory is None:
            return {}
        if self._sealed is None:
            self._sealed = Sealed.read(self._directory / FOLDER / "marks.sealed")
        content = self._sealed.open(_key(marks))
        if content is None:
            return {}
        try:
            yes, no = json.loads(content)
        except (ValueError, TypeError):
            return {}
        if not (isinstance(yes, list) and isinstance(no, list) and all(isinstance(b, str) for b in yes + no)):
            return {}
        return {**dict.fromkeys(no, False), **dict.fromkeys(yes, True)}

    def __call__(self, tree: Tree, path: str, marks: tuple[bytes, ...]) -> bool:
        if path in tree.links:  # read through the link: its target's content, not its own blob
            data = tree.read(path)
            return any(m in data for m in marks)
        blob = tree.blobs[path]
        answers = self._seen.get(marks)
        if answers is None:
            answers = self._seen[marks] = {}
            self._kept_answers[marks] = self._kept(marks)
        found = answers.get(blob)
        if found is None:
            found = self._kept_answers[marks].get(blob)
            if found is None:
                data = tree.read(path)
                found = any(m in data for m in marks)
                self._added = True
            answers[blob] = found
        return found

    def many(self, tree: Tree, paths: list[str], marks: tuple[bytes, ...]) -> set[str]:
        """The paths among `paths` whose files mention any of `marks`: the answer of `__call__`
        for each, in one loop (asked of every file of a fleet: a call per file costs more)."""
        answers = self._seen.get(marks)
        if answers is None:
            answers = self._seen[marks] = {}
            self._kept_answers[marks] = self._kept(marks)
        kept = self._kept_answers[marks]
        blobs, links = tree.blobs, tree.links
        out = set()
        for path in paths:
            if path in links:
                if self(tree, path, marks):
                    out.add(path)
                continue
            blob = blobs[path]
            found = answers.get(blob)
            if found is None:
                found = kept.get(blob)
                if found is None:
                    data = tree.read(path)
                    found = any(m in data for m in marks)
                    self._added = True
                answers[blob] = found
            if found:
                out.add(path)
        return out

    def save(self) -> None:
        """Keep the answers of this run (those it read or found), when it found any anew; the
        string sets with the most answers first, `_KEEP` of them."""
        if self._directory is None or not self._added:
            return
        kept = sorted(self._seen.items(), key=lambda item: (-len(item[1]), _key(item[0])))[:_KEEP]
        entries = [(_key(marks), json.dumps([sorted(b for b, yes in answers.items() if yes),
                                             sorted(b for b, yes in answers.items() if not yes)],
                                            separators=(",", ":")).encode())
                   for marks, answers in kept]
        write_entry(self._directory / FOLDER / "marks.sealed", seal(sorted(entries)))

    def count_rejected(self) -> int:
        """Kept entries (or a damaged file) that did not verify; a damaged file is removed."""
        if self._sealed is None or not self._sealed.rejected:
            return 0
        assert self._directory is not None
        Sealed.drop(self._directory / FOLDER / "marks.sealed")
        self._added = True  # write the sound answers back
        return self._sealed.rejected
