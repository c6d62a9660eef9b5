"""Anchor each finding at the file and line a reviewer has to change.

A pruned object is traced back through the base build's inputs to the manifest that defined
it, then forward to what head did to that manifest: the file was deleted, a kustomization.yaml
stopped listing it (docs/guard.md, `configmap-pruned`), the object was renamed or moved, or the Flux Kustomization's
`path`/`targetNamespace` changed, or the Kustomization itself left git.

Linear in findings: a fleet change can prune thousands of objects of one build, so every file
is read and composed at most once per blob (`_docs`), and a build's inputs are indexed by the
objects they write the second time a finding asks about them (`_writers`), instead of scanning
every input again for each finding.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, replace
from typing import Callable, Iterable, TypeVar

from gen.guard.diff import Removal, generated_stem, names_generator
from gen.guard.build.inputs import Views
from gen.guard.repo.manifests import DocWhere, doc_index, entry_lines, generator_line, key_lines, try_docs
from gen.guard.model import FLUX_GROUP, KsRef, ObjKey, Revision
from gen.guard.repo.revision import Tree

Where = tuple[str, int, dict[str, int]]
T = TypeVar("T")


@dataclass
class _Build:
    """What the locator learnt about one build's inputs; held by the tuple's identity (kept here,
    so its id is never reused) because hashing a 5,000-file tuple per finding is itself linear."""

    files: tuple[str, ...]
    members: frozenset[str]
    asked: int = 0
    writers: dict[tuple[str, str], str] | None = None  # (kind, name) -> first input writing it
    changed: list[str] | None = None  # kustomization files whose blob differs at base and head


class Locator:
    def __init__(self, trees: dict[str, Tree], revisions: dict[str, Revision], views: Views) -> None:
        self.trees = trees
        self.revisions = revisions
        self.views = views
        # by blob id: a file unchanged between base and head is read and composed once
        self._texts: dict[str, str] = {}
        self._indexes: dict[str, dict[tuple[str, str], DocWhere]] = {}
        self._keys: dict[str, dict[str, int]] = {}
        self._entries: dict[str, dict[str, dict[str, int]]] = {}
        self._builds: dict[tuple[str, int], _Build] = {}
        self._listed: dict[tuple[str, str, tuple[str, ...]], dict[str, tuple[str, str]]] = {}  # base build -> _listings

    def _memo(self, store: dict[str, T], label: str, path: str, make: Callable[[str], T]) -> T:
        """`make(text of path)`, once per blob id."""
        blob = self.trees[label].blobs.get(path)
        if blob is None:
            return make(self._text(label, path))
        if blob not in store:
            store[blob] = make(self._text(label, path))
        return store[blob]

    def _text(self, label: str, path: str) -> str:
        blob = self.trees[label].blobs.get(path)
        text = self._texts.get(blob) if blob else None
        if text is None:
            text = self.trees[label].read(path).decode("utf-8", "replace")
            if blob:
                self._texts[blob] = text
        return text

    def _find(self, label: str, path: str, kind: str, name: str) -> DocWhere | None:
        return self._memo(self._indexes, label, path, doc_index).get((kind, name))

    def _key_lines(self, label: str, path: str) -> dict[str, int]:
        return self._memo(self._keys, label, path, key_lines)

    def _entry_line(self, label: str, path: str, key: str, entry: str) -> int | None:
        return self._memo(self._entries, label, path, entry_lines).get(key, {}).get(entry)

    def _build(self, label: str, inputs: tuple[str, ...]) -> _Build:
        held = self._builds.get((label, id(inputs)))
        if held is None or held.files is not inputs:
            held = self._builds[(label, id(inputs))] = _Build(inputs, frozenset(inputs))
        return held

    def object_source(self, label: str, inputs: tuple[str, ...], key: ObjKey) -> Where | None:
        """The manifest (among a build's inputs, first in their order) that writes this object, by
        kind and name. The first question about a build scans its inputs for the name (cheap for
        the usual one finding); from the second on, the inputs are indexed once."""
        build = self._build(label, inputs)
        build.asked += 1
        if build.writers is None and build.asked > 1:
            build.writers = {}
            for path in inputs:
                if path.endswith((".yaml", ".yml")):
                    for obj in self._memo(self._indexes, label, path, doc_index):
                        build.writers.setdefault(obj, path)
        if build.writers is not None:
            first = build.writers.get((key.kind, key.name))
            candidates: Iterable[str] = (first,) if first else ()
        else:
            candidates = (p for p in inputs if p.endswith((".yaml", ".yml")) and key.name in self._text(label, p))
        for path in candidates:
            found = self._find(label, path, key.kind, key.name)
            if found:
                return path, found[0], found[1]
        return None

    def ks_source(self, label: str, ref: KsRef) -> Where | None:
        """Where the Flux Kustomization object itself is written."""
        rev = self.revisions[label]
        node = rev.nodes.get(ref)
        if node is None:
            return None
        key = ObjKey(ref.namespace, ref.name, FLUX_GROUP, "Kustomization")
        if node.file:
            found = self._find(label, node.file, "Kustomization", ref.name)
            return (node.file, found[0], found[1]) if found else (node.file, 1, {})
        if node.parent and node.parent in rev.nodes:
            return self.object_source(label, rev.nodes[node.parent].build.inputs, key)
        return None

    def invariant_anchor(self, ks: KsRef, key: ObjKey, field: str = "") -> tuple[str, int]:
        """Where a head object is written (for invariant findings), at `field`'s line if known."""
        node = self.revisions["head"].nodes.get(ks)
        where = self.object_source("head", node.build.inputs, key) if node else None
        if where is None:
            src = self.ks_source("head", ks)
            return (src[0], src[1]) if src else ("", 1)
        return where[0], where[2].get(field, where[1])

    def anchored(self, removal: Removal) -> Removal:
        """The removal anchored: the file and line to change, what caused it (`details["cause"]`), the fix."""
        file, line, cause, hint = self.anchor(removal)
        return replace(removal, file=file, line=line, hint=hint, details={**removal.details, "cause": cause})

    def anchor(self, removal: Removal) -> tuple[str, int, str, str]:
        """(file, line, cause sentence, fix) for one removal."""
        ref, key = removal.ks, removal.key
        base = self.revisions["base"].nodes[ref]
        head = self.revisions["head"].nodes.get(ref)
        head_tree = self.trees["head"]
        if removal.ks_gone:
            src = self.ks_source("base", ref)
            if src is None:
                return "", 1, f"Kustomization {ref} is no longer reached at head", f"restore Kustomization {ref}"
            if not head_tree.is_file(src[0]):
                return (src[0], src[1], f"{src[0]} (Kustomization {ref}) is deleted",
                        f"restore {src[0]} (git checkout <base> -- {src[0]})")
            parent = base.parent
            dropped = self._dropped(parent, src[0]) if parent else None
            if dropped:
                return dropped
            return (src[0], src[1], f"Kustomization {ref} no longer reaches a cluster",
                    f"keep Kustomization {ref} in {src[0]} and in its parent's build")
        if head is not None and (head.ks.path != base.ks.path or head.ks.target_namespace != base.ks.target_namespace):
            src = self.ks_source("head", ref)
            field = "spec.path" if head.ks.path != base.ks.path else "spec.targetNamespace"
            what = (f"spec.path changed from ./{base.ks.path} to ./{head.ks.path}" if field == "spec.path"
                    else f"spec.targetNamespace changed from {base.ks.target_namespace} to {head.ks.target_namespace}")
            if src:
                return src[0], self._spec_line(src[0], ref.name, field, src[1]), what, \
                    f"keep {field} as it was, or move the object in a separate, allowed change"
        src = self.object_source("base", base.build.inputs, key)
        if src is None and key.kind in ("ConfigMap", "Secret") and not key.group:
            dropped = self._generator_dropped(ref, key)
            if dropped:
                return dropped
        if src is None:
            ks_src = self.ks_source("head", ref) or self.ks_source("base", ref)
            file, line = (ks_src[0], ks_src[1]) if ks_src else ("", 1)
            return file, line, f"the build of Kustomization {ref} no longer produces it", \
                f"keep {key.ref} in the build of Kustomization {ref}"
        path, line, lines = src
        if not head_tree.is_file(path):
            return path, line, f"{path} is deleted", f"restore {path} (git checkout <base> -- {path})"
        if head is not None and path not in self._build("head", head.build.inputs).members:
            dropped = self._dropped(ref, path)
            if dropped:
                return dropped
        head_doc = self._find("head", path, key.kind, key.name)
        if head_doc is None:
            return path, min(line, len(self._text("head", path).splitlines()) or 1), \
                f"{path} no longer writes {key.kind} {key.name} (renamed, re-kinded or removed)", \
                f"keep {key.kind} {key.name} in {path}; create a new object beside it instead of renaming"
        if head_doc[1].get("metadata.namespace", 0) and self._ns_changed(path, key):
            return path, head_doc[1]["metadata.namespace"], f"{path} moves it to another namespace", \
                "keep the namespace; add the new object beside the old one"
        for kfile in self._changed_kustomizations(head.build.inputs) if head else ():
            lines_k = self._key_lines("head", kfile)
            anchor = next((lines_k[k] for k in ("namespace", "namePrefix", "nameSuffix", "resources") if k in lines_k), 1)
            return kfile, anchor, f"{kfile} changes what the build produces", \
                f"keep {key.ref} in the output of {kfile}"
        return path, head_doc[0], f"the build of Kustomization {ref} no longer produces it", \
            f"keep {key.ref} in the build of Kustomization {ref}"

    def _changed_kustomizations(self, inputs: tuple[str, ...]) -> list[str]:
        """A head build's kustomization files whose blob differs from base, in input order."""
        build = self._build("head", inputs)
        if build.changed is None:
            base, head = self.trees["base"].blobs, self.trees["head"].blobs
            build.changed = [k for k in inputs if posixpath.basename(k).startswith(("kustomization.", "Kustomization"))
                             and base.get(k) != head.get(k)]
        return build.changed

    def _listings(self, view: str, ks_path: str, components: tuple[str, ...]) -> dict[str, tuple[str, str]]:
        """Base: every resources/bases target of one build, as a repository path -> (kustomization
        file, entry as written), the first listing of a target winning."""
        key = (view, ks_path, components)
        held = self._listed.get(key)
        if held is None:
            held = self._listed[key] = {}
            base_view = self.views.view("base", view)
            refs = self.views.resolver("base", view).for_ks(ks_path, components).references
            for view_kfile, entries in refs.items():
                kfile = base_view.repo_path(view_kfile)
                for entry, view_target in entries:
                    held.setdefault(base_view.repo_path(view_target), (kfile, entry))
        return held

    def _spec_line(self, path: str, name: str, field: str, default: int) -> int:
        found = self._find("head", path, "Kustomization", name)
        if not found:
            return default
        return found[1].get(field, found[1].get("spec", default))

    def _generator(self, label: str, inputs: tuple[str, ...], key: ObjKey) -> tuple[str, str, str, int] | None:
        """(kustomization file, generator name, list key, line) of the generator that writes `key`."""
        stem = generated_stem(key.name)
        kinds = ("configMapGenerator",) if key.kind == "ConfigMap" else ("secretGenerator",)
        for kfile in inputs:
            if not posixpath.basename(kfile).startswith(("kustomization.", "Kustomization")):
                continue
            text = self._text(label, kfile)
            if kinds[0] not in text:
                continue
            for name in _generator_names(text, kinds[0]):
                if names_generator(stem, name):
                    found = generator_line(text, name, kinds)
                    if found:
                        return kfile, name, found[0], found[1]
        return None

    def _generator_dropped(self, ref: KsRef, key: ObjKey) -> tuple[str, int, str, str] | None:
        """Where head dropped the generator that wrote `key` at base: its file deleted, no longer
        read by the build, or the generator entry gone from it."""
        base = self.revisions["base"].nodes[ref]
        head = self.revisions["head"].nodes.get(ref)
        found = self._generator("base", base.build.inputs, key)
        if found is None:
            return None
        kfile, name, list_key, line = found
        if not self.trees["head"].is_file(kfile):
            return kfile, line, f"{kfile} (with {list_key} '{name}') is deleted", \
                f"restore {kfile} (git checkout <base> -- {kfile})"
        if head is not None and kfile not in head.build.inputs:
            return self._dropped(ref, kfile)
        text = self._text("head", kfile)
        if generator_line(text, name, (list_key,)) is not None:
            return None  # still generated: renamed some other way, the general path explains it
        anchor = self._key_lines("head", kfile).get(list_key, min(line, len(text.splitlines()) or 1))
        return kfile, anchor, f"{kfile} no longer has the {list_key} entry '{name}'", \
            f"put the {list_key} entry '- name: {name}' back in {kfile}"

    def _ns_changed(self, path: str, key: ObjKey) -> bool:
        found = self._find("head", path, key.kind, key.name)
        return bool(found) and key.namespace != "" and \
            f"namespace: {key.namespace}" not in self._text("head", path)

    def _dropped(self, ref: KsRef | None, path: str) -> tuple[str, int, str, str] | None:
        """The kustomization.yaml that listed `path` (or a folder holding it) at base but not at head."""
        if ref is None or ref not in self.revisions["base"].nodes:
            return None
        base_node = self.revisions["base"].nodes[ref]
        if not base_node.view:
            return None
        listed = self._listings(base_node.view, base_node.ks.path, base_node.ks.components())
        best: tuple[int, str, str] | None = None
        target = path
        while target:  # the file itself, then each folder holding it: the longest listing wins
            if target in listed:
                best = (len(target), *listed[target])
                break
            target = posixpath.dirname(target)
        if best is None:
            head_node = self.revisions["head"].nodes.get(ref)
            if head_node is None or not head_node.view:
                return None
            head_view = self.views.view("head", head_node.view)
            found = head_view.kustomization_file(head_node.ks.path)
            new_file = head_view.repo_path(found) if found else None
            if new_file and not self.trees["base"].is_file(new_file):
                lines = self._key_lines("head", new_file)
                return new_file, lines.get("resources", 1), f"new {new_file} does not list {path}", \
                    f"add {posixpath.relpath(path, posixpath.dirname(new_file) or '.')} under resources: in {new_file}"
            return None
        _, kfile, entry = best
        if not self.trees["head"].is_file(kfile):
            return None
        if self._entry_line("head", kfile, "resources", entry) or self._entry_line("head", kfile, "bases", entry):
            return None
        line = self._key_lines("head", kfile).get("resources", 1)
        return kfile, line, f"{kfile} no longer lists '{entry}' under resources:", \
            f"put '- {entry}' back under resources: in {kfile}"


def _generator_names(text: str, list_key: str) -> list[str]:
    docs = try_docs(text) or [None]
    doc = docs[0]
    if not isinstance(doc, dict):
        return []
    return [str(g["name"]) for g in doc.get(list_key) or [] if isinstance(g, dict) and g.get("name")]
