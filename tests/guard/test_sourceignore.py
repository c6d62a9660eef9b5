"""source-controller's default ignore rules: the fast matcher answers as gitignore does."""

from __future__ import annotations

import itertools

import pathspec

from gen.guard.flux import sourceignore

NAMES = ["a.yaml", ".github", ".git", "x.png", "cloudbuild.yaml", ".sops.yaml", "y.tar.gz", "z.zip", "app",
         ".gitignore", "appveyor.yml", "photo.jpeg", "k.yml", ".circleci", ".flux.yaml", "notes.gz"]


def test_the_default_rules_match_as_gitignore_does():
    spec = pathspec.GitIgnoreSpec.from_lines([*sourceignore.VCS, *sourceignore.DEFAULTS])
    ignored = sourceignore.matcher({}, lambda path: b"")
    paths = ["/".join(p) for n in (1, 2, 3) for p in itertools.product(NAMES, repeat=n)]
    assert len(paths) > 4000
    assert [p for p in paths if ignored(p) != spec.match_file(p)] == []


def test_a_sourceignore_file_is_applied_from_its_folder_and_can_re_include():
    files = {"apps/.sourceignore": "drafts/\n", "apps/drafts/a.yaml": "x", "drafts/b.yaml": "x",
             ".sourceignore": "/*\n!/apps/\n", "README.md": "x"}
    ignored = sourceignore.matcher(files, lambda path: files[path].encode())
    assert [p for p in sorted(files) if not ignored(p)] == ["apps/.sourceignore"]
