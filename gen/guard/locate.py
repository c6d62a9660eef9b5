"""Anchor each finding at the file and line a reviewer has to change.

A pruned object is traced back through the base build's inputs to the manifest that defined
it, then forward to what head did to that manifest: the file was deleted, a kustomization.yaml
stopped listing it (seed 002), the object was renamed or moved, or the Flux Kustomization's
`path`/`targetNamespace` changed, or the Kustomization itself left git.
"""

from __future__ import annotations

import posixpath

from gen.guard.diff import Removal
from gen.guard.inputs import Views
from gen.guard.manifests import entry_line, find_doc, key_lines
from gen.guard.model import FLUX_GROUP, KsRef, ObjKey, Revision
from gen.guard.revision import Tree

Where = tuple[str, int, dict[str, int]]


class Locator:
    def __init__(self, trees: dict[str, Tree], revisions: dict[str, Revision], views: Views) -> None:
        self.trees = trees
        self.revisions = revisions
        self.views = views

    def _text(self, label: str, path: str) -> str:
        return self.trees[label].read(path).decode("utf-8", "replace")

    def object_source(self, label: str, inputs: tuple[str, ...], key: ObjKey) -> Where | None:
        """The manifest (among a build's inputs) that writes this object, by kind and name."""
        needle = key.name.encode()
        for path in inputs:
            if not path.endswith((".yaml", ".yml")):
                continue
            data = self.trees[label].read(path)
            if needle not in data:
                continue
            found = find_doc(data.decode("utf-8", "replace"), key.kind, key.name)
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
            found = find_doc(self._text(label, node.file), "Kustomization", ref.name)
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
                return src[0], _spec_line(self._text("head", src[0]), ref.name, field, src[1]), what, \
                    f"keep {field} as it was, or move the object in a separate, allowed change"
        src = self.object_source("base", base.build.inputs, key)
        if src is None:
            ks_src = self.ks_source("head", ref) or self.ks_source("base", ref)
            file, line = (ks_src[0], ks_src[1]) if ks_src else ("", 1)
            return file, line, f"the build of Kustomization {ref} no longer produces it", \
                f"keep {key.ref} in the build of Kustomization {ref}"
        path, line, lines = src
        if not head_tree.is_file(path):
            return path, line, f"{path} is deleted", f"restore {path} (git checkout <base> -- {path})"
        if head is not None and path not in head.build.inputs:
            dropped = self._dropped(ref, path)
            if dropped:
                return dropped
        head_doc = find_doc(self._text("head", path), key.kind, key.name)
        if head_doc is None:
            return path, min(line, len(self._text("head", path).splitlines()) or 1), \
                f"{path} no longer writes {key.kind} {key.name} (renamed, re-kinded or removed)", \
                f"keep {key.kind} {key.name} in {path}; create a new object beside it instead of renaming"
        if head_doc[1].get("metadata.namespace", 0) and self._ns_changed(path, key):
            return path, head_doc[1]["metadata.namespace"], f"{path} moves it to another namespace", \
                "keep the namespace; add the new object beside the old one"
        for kfile in head.build.inputs if head else ():
            if posixpath.basename(kfile).startswith(("kustomization.", "Kustomization")) and \
                    self.trees["base"].blobs.get(kfile) != head_tree.blobs.get(kfile):
                lines_k = key_lines(self._text("head", kfile))
                anchor = next((lines_k[k] for k in ("namespace", "namePrefix", "nameSuffix", "resources") if k in lines_k), 1)
                return kfile, anchor, f"{kfile} changes what the build produces", \
                    f"keep {key.ref} in the output of {kfile}"
        return path, head_doc[0], f"the build of Kustomization {ref} no longer produces it", \
            f"keep {key.ref} in the build of Kustomization {ref}"

    def _ns_changed(self, path: str, key: ObjKey) -> bool:
        found = find_doc(self._text("head", path), key.kind, key.name)
        return bool(found) and key.namespace != "" and \
            f"namespace: {key.namespace}" not in self._text("head", path)

    def _dropped(self, ref: KsRef | None, path: str) -> tuple[str, int, str, str] | None:
        """The kustomization.yaml that listed `path` (or a folder holding it) at base but not at head."""
        if ref is None or ref not in self.revisions["base"].nodes:
            return None
        base_node = self.revisions["base"].nodes[ref]
        if not base_node.view:
            return None
        base_view = self.views.view("base", base_node.view)
        refs = self.views.resolver("base", base_node.view).for_ks(base_node.ks.path, base_node.ks.components()).references
        best: tuple[int, str, str] | None = None
        for view_kfile, entries in refs.items():
            kfile = base_view.repo_path(view_kfile)
            for entry, view_target in entries:
                target = base_view.repo_path(view_target)
                if target == path or path.startswith(target + "/"):
                    if best is None or len(target) > best[0]:
                        best = (len(target), kfile, entry)
        if best is None:
            head_node = self.revisions["head"].nodes.get(ref)
            if head_node is None or not head_node.view:
                return None
            head_view = self.views.view("head", head_node.view)
            found = head_view.kustomization_file(head_node.ks.path)
            new_file = head_view.repo_path(found) if found else None
            if new_file and not self.trees["base"].is_file(new_file):
                lines = key_lines(self._text("head", new_file))
                return new_file, lines.get("resources", 1), f"new {new_file} does not list {path}", \
                    f"add {posixpath.relpath(path, posixpath.dirname(new_file) or '.')} under resources: in {new_file}"
            return None
        _, kfile, entry = best
        if not self.trees["head"].is_file(kfile):
            return None
        text = self._text("head", kfile)
        if entry_line(text, "resources", entry) or entry_line(text, "bases", entry):
            return None
        line = key_lines(text).get("resources", 1)
        return kfile, line, f"{kfile} no longer lists '{entry}' under resources:", \
            f"put '- {entry}' back under resources: in {kfile}"


def _spec_line(text: str, name: str, field: str, default: int) -> int:
    found = find_doc(text, "Kustomization", name)
    if not found:
        return default
    return found[1].get(field, found[1].get("spec", default))
