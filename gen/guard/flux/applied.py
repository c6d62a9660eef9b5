"""The Flux Kustomizations a parent applied before its build started failing.

A Kustomization that fails to build at both revisions here (a remote base the runner cannot
fetch, an env file kept out of git) still has its children in the cluster: kustomize-controller
applied them while it built, and each keeps reconciling its own `spec.path` at the new revision,
pruning as it goes. Their specs are read from the files the failed build reads (kustomize's
transformers of the failed build, such as a namePrefix, cannot be applied: the build failed),
so the guard follows and judges them instead of hiding them behind their parent.
"""

from __future__ import annotations

from typing import Iterable

from gen.guard.flux.fluxspec import is_flux_kustomization, parse_ks
from gen.guard.model import FLUX_GROUP, FluxKs, KsRef
from gen.guard.repo.manifests import file_docs
from gen.guard.repo.marks import Marked
from gen.guard.repo.revision import Tree

_MARK = (FLUX_GROUP.encode(),)


def applied_before(tree: Tree, files: Iterable[str], parent: KsRef, marked: Marked) -> list[FluxKs]:
    """Flux Kustomizations written in `files` (artifact paths of `tree`), but the parent itself."""
    return [ks for ks, _ in written_in(tree, files, parent, marked)]


def written_in(tree: Tree, files: Iterable[str], parent: KsRef, marked: Marked) -> list[tuple[FluxKs, str]]:
    """`applied_before`, each with the file it is written in (the first, for one written twice)."""
    found: dict[KsRef, tuple[FluxKs, str]] = {}
    for path in sorted(files):
        if not path.endswith((".yaml", ".yml")) or path not in tree.blobs or not marked(tree, path, _MARK):
            continue
        for doc in file_docs(tree, path) or []:
            if is_flux_kustomization(doc):
                ks = parse_ks(doc, parent.namespace, cluster=parent.cluster)
                if not ks.ref.same_object(parent):
                    found.setdefault(ks.ref, (ks, path))
    return list(found.values())

