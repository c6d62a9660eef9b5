"""Which files a Flux Kustomization's build reads, resolved transitively, for fingerprints.

A build is a pure function of its Flux spec and the files it reads, so if every input has the
same git blob id at base and head the build is the same and is done once. The reference fields
of kustomization.yaml are followed (resources, bases, components, patches, generators, …). When
something cannot be resolved exactly (a remote base, a helm chart, an unparsable file) the
result is marked inexact and that Kustomization is always built at both revisions.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

from gen.guard.repo.boundary import real_path
from gen.guard.repo.manifests import file_docs
from gen.guard.repo.revision import KUSTOMIZATION_FILES, Tree, flux_scan

_REMOTE = ("http://", "https://", "git@", "ssh://", "github.com/", "gitlab.com/", "oci://")


class Escape(NamedTuple):
    """A reference that leaves the repository: kustomize-controller refuses the build."""

    file: str  # the kustomization file (or the symlink) that holds it
    field: str  # e.g. "configMapGenerator 'app' files"
    entry: str  # as written
    why: str  # "is an absolute path", "goes above the repository root", "follows symlink x -> /etc"

    def __str__(self) -> str:
        return f"{self.file}: {self.field} entry '{self.entry}' reads outside the repository ({self.why})"


@dataclass
class Inputs:
    files: set[str] = field(default_factory=set)
    missing: set[str] = field(default_factory=set)
    exact: bool = True
    # kustomization file -> [(entry as written, resolved repo path)] of its resources/bases
    references: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    # (kind, name) of every configMapGenerator/secretGenerator entry the build reads
    generators: set[tuple[str, str]] = field(default_factory=set)
    # references that leave the repository: the build fails before kustomize runs
    escapes: list[Escape] = field(default_factory=list)
    # what gen/guard/discovery.py derives from the files' contents, once per resolution (kept
    # with it between runs: the same files and blobs wherever it holds)
    digest: str = ""  # of every file's path and blob id, and every missing path


def _join(directory: str, entry: str) -> str | None:
    if entry and not entry.startswith(("/", ".")) and "/." not in entry and "//" not in entry and entry[-1] != "/":
        return f"{directory}/{entry}" if directory else entry  # already normal: most entries of a fleet
    joined = posixpath.normpath(posixpath.join(directory, entry)) if directory else posixpath.normpath(entry)
    if joined.startswith("../") or joined == ".." or posixpath.isabs(joined):
        return None  # outside the repository: kustomize-controller refuses it too
    return "" if joined == "." else joined


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []


def _generator_files(gen: Any) -> list[tuple[str, str]]:
    """(field, file path) of every file a generator entry reads (`files: [key=path]` too)."""
    out: list[tuple[str, str]] = []
    if not isinstance(gen, dict):
        return out
    for entry in _strings(gen.get("files")):
        out.append(("files", entry.split("=", 1)[1] if "=" in entry else entry))
    out += [("envs", e) for e in _strings(gen.get("envs"))] + [("env", e) for e in _strings(gen.get("env"))]
    return out


class Resolver:
    """Resolves, for anchoring findings at the line a reviewer edits (gen/guard/locate.py) and
    for naming generators (gen/guard/diff.py), which files a kustomization refers to, in one
    artifact of one revision; kustomization files are parsed once per blob id. Never a verdict:
    what a build read, and so what a change reaches, is what kustomize reported (seen.py)."""

    def __init__(self, tree: Tree) -> None:
        self.tree = tree
        self._memo: dict[str, Inputs] = {}

    def _parse(self, path: str) -> Any:
        docs = file_docs(self.tree, path)
        return docs[0] if docs else None

    def for_path(self, path: str) -> Inputs:
        """Inputs of a Flux spec.path (kustomization file or Flux-generated); memoised."""
        if path not in self._memo:
            self._memo[path] = self._for_path(path)
        return self._memo[path]

    def for_ks(self, path: str, components: tuple[str, ...] = ()) -> Inputs:
        """Inputs of a Flux Kustomization: its spec.path and the folders of its spec.components
        (kustomize-controller adds those to the build, so a change in one changes the build)."""
        if not components:
            return self.for_path(path)
        key = "\0".join((path, *components))
        if key not in self._memo:
            first = self.for_path(path)
            result = Inputs(set(first.files), set(first.missing), first.exact, dict(first.references),
                            set(first.generators), list(first.escapes))
            for component in components:
                self._ref("", component, result, set(), where=(path, "spec.components"))
            self._memo[key] = result
        return self._memo[key]

    def _for_path(self, path: str) -> Inputs:
        result = Inputs()
        if not self.tree.is_dir(path) or path in self.tree.blobs:
            result.missing.add(path + "/")
            return result
        if self.tree.kustomization_file(path):
            self._dir(path, result, set())
        else:
            for entry in flux_scan(self.tree, path):
                if entry in self.tree.links:
                    real = self._link(entry, f"manifest under spec.path ./{path}", posixpath.basename(entry), result)
                    if real is not None and real in self.tree.blobs:
                        result.files.add(real)  # what kustomize reads through the link
                elif entry in self.tree.blobs:
                    result.files.add(entry)
                else:
                    self._dir(entry, result, set())
        return result

    def _link(self, path: str, field_: str, entry: str, result: Inputs) -> str | None:
        """Follow the symlinks on `path`; an escape is recorded and None returned."""
        real, followed = real_path(self.tree.links, path)
        result.files.update(followed)  # the links' blob ids are their targets: in the fingerprint
        if real is None:
            link = followed[-1] if followed else path
            result.escapes.append(Escape(path, field_, entry, f"symlink {link} -> {self.tree.links.get(link, '?')}"))
            return None
        return real

    def _ref(self, base: str, entry: str, result: Inputs, seen: set[str], *, where: tuple[str, str],
             as_dir: bool = True) -> str | None:
        if not isinstance(entry, str) or "\n" in entry:
            return None  # inline patch/transformer: part of a file already counted
        kfile, field_ = where
        if entry.lower().removeprefix("git::").startswith("file:"):
            # kustomize clones a file:// "remote" base from the runner's own disk
            result.escapes.append(Escape(kfile, field_, entry, "a file:// URL: a git repository on the runner's disk"))
            return None
        if entry.startswith(_REMOTE) or "?ref=" in entry or "//" in entry:
            result.exact = False
            return None
        target = _join(base, entry)
        if target is None:
            why = "an absolute path" if posixpath.isabs(entry) else "above the repository root"
            result.escapes.append(Escape(kfile, field_, entry, why))
            return None
        if self.tree.links:
            real = real_path(self.tree.links, target)
            result.files.update(real[1])
            if real[0] is None:
                link = real[1][-1] if real[1] else target
                result.escapes.append(Escape(kfile, field_, entry, f"symlink {link} -> {self.tree.links.get(link, '?')}"))
                return None
            target = real[0]
        if target in self.tree.blobs:
            result.files.add(target)
        elif as_dir and self.tree.is_dir(target):
            self._dir(target, result, seen)
        else:
            result.missing.add(target)
        return target

    def _dir(self, directory: str, result: Inputs, seen: set[str]) -> None:
        if directory in seen:
            return
        seen.add(directory)
        kfile = self.tree.kustomization_file(directory)
        if kfile is None:
            result.missing.add(directory + "/kustomization.yaml")
            return
        if kfile in self.tree.links:
            real = self._link(kfile, "kustomization file", posixpath.basename(kfile), result)
            if real is None:
                return
            if real in self.tree.blobs:
                result.files.add(real)  # what kustomize reads through the link
        result.files.add(kfile)
        lead = directory + "/" if directory else ""
        # kustomize refuses a folder with two kustomization files: each one there is an input
        result.files.update(f for f in (lead + n for n in KUSTOMIZATION_FILES) if f in self.tree.blobs)
        doc = self._parse(kfile)
        if not isinstance(doc, dict):
            result.exact = False
            return
        if any(doc.get(k) for k in ("helmCharts", "helmChartInflationGenerator", "helmGlobals")):
            result.exact = False
        refs: list[tuple[str, str]] = []
        for key in ("resources", "bases", "components"):
            for entry in _strings(doc.get(key)):
                target = self._ref(directory, entry, result, seen, where=(kfile, key))
                if target is not None and key != "components":
                    refs.append((entry, target))
        result.references[kfile] = refs
        for key in ("crds", "configurations", "patchesStrategicMerge", "generators", "transformers", "validators"):
            for entry in _strings(doc.get(key)):
                self._ref(directory, entry, result, seen, where=(kfile, key))
        for key in ("patches", "patchesJson6902", "replacements"):
            for i, item in enumerate(doc.get(key) or []):
                if isinstance(item, dict) and isinstance(item.get("path"), str):
                    self._ref(directory, item["path"], result, seen, where=(kfile, f"{key}[{i}].path"), as_dir=False)
        for key in ("configMapGenerator", "secretGenerator"):
            for gen in doc.get(key) or []:
                if isinstance(gen, dict) and isinstance(gen.get("name"), str):
                    result.generators.add(("ConfigMap" if key == "configMapGenerator" else "Secret", gen["name"]))
                for field_, entry in _generator_files(gen):
                    label = f"{key} '{gen.get('name', '?')}' {field_}"
                    self._ref(directory, entry, result, seen, where=(kfile, label), as_dir=False)
        for key, sub in (("openapi", "path"), ("helmGlobals", "chartHome")):
            value = doc.get(key)
            if isinstance(value, dict) and isinstance(value.get(sub), str):
                self._ref(directory, value[sub], result, seen, where=(kfile, f"{key}.{sub}"), as_dir=False)
        for i, chart in enumerate(doc.get("helmCharts") or []):
            if isinstance(chart, dict):
                for sub in ("valuesFile", "additionalValuesFiles"):
                    for entry in _strings(chart.get(sub)):
                        self._ref(directory, entry, result, seen, where=(kfile, f"helmCharts[{i}].{sub}"), as_dir=False)


class Views(Protocol):
    """Where each Kustomization's artifact is, and its inputs (gen.guard.discovery.Discovery)."""

    def resolver(self, label: str, view: str) -> Resolver: ...

    def view(self, label: str, view: str) -> Tree: ...
