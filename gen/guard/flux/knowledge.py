"""What one cluster's builds hold that other Kustomizations read: sources and variables.

A Kustomization's source (gen/guard/flux/sources.py) and its `substituteFrom` values
(gen/guard/flux/substitution.py) are objects in the cluster, and most repositories put them there
themselves: the GitRepository, OCIRepository or ArtifactGenerator a build applies, the
`cluster-settings` ConfigMap the flux-system build applies. This module gathers them per cluster
from the builds, with the repository's own files as the fallback for builds not run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gen.guard.repo.manifests import file_docs
from gen.guard.repo.marks import Marks
from gen.guard.model import FluxKs, Revision
from gen.guard.repo.revision import Tree
from gen.guard.flux.roots import Candidate
from gen.guard.flux.sources import ClusterSources, source_key
from gen.guard.flux.secrets import key_given
from gen.guard.flux.substitution import SOPS, Lookup, ValueRef, data_of

# why a SOPS Secret a build applies cannot be read: the Kustomization named after it lacks spec.decryption
NO_DECRYPTION = f"{SOPS}, and applied without spec.decryption by Kustomization"


@dataclass
class Knowledge:
    """What one cluster's builds hold at one revision that other Kustomizations read."""

    sources: ClusterSources = field(default_factory=dict)
    values: dict[ValueRef, dict[str, str] | str] = field(default_factory=dict)


class RepoValues:
    """ConfigMaps and Secrets written in one revision's files, found by name when first asked
    (only files that mention the name are parsed: a fleet has thousands of manifests)."""

    def __init__(self, tree: Tree, marked: Marks) -> None:
        self.tree = tree
        self.marked = marked
        self._found: dict[ValueRef, list[dict[str, Any]]] = {}

    def docs(self, ref: ValueRef) -> list[dict[str, Any]]:
        if ref not in self._found:
            kind, namespace, name = ref
            out = []
            for path in sorted(self.tree.blobs):
                if not path.endswith((".yaml", ".yml")) or not self.marked(self.tree, path, (name.encode(),)) \
                        or not self.marked(self.tree, path, (kind.encode(),)):
                    continue
                for doc in file_docs(self.tree, path) or []:
                    meta = doc.get("metadata") or {} if isinstance(doc, dict) else {}
                    if isinstance(doc, dict) and doc.get("kind") == kind and meta.get("name") == name and \
                            str(meta.get("namespace") or namespace) == namespace:
                        out.append(doc)
            self._found[ref] = out
        return self._found[ref]


def lookup(known: Knowledge, repo: RepoValues) -> Lookup:
    """A substituteFrom lookup: the cluster's builds first, else the one file that writes it."""
    def find(ref: ValueRef) -> dict[str, str] | str | None:
        if ref in known.values:
            return known.values[ref]
        docs = repo.docs(ref)
        if not docs:
            return None
        datas = [data_of(d) for d in docs]
        if all(d == datas[0] for d in datas):
            return datas[0]
        return f"{len(docs)} different files of the repository define it"
    return find


def _applied(obj: dict[str, Any], ks: FluxKs) -> dict[str, str] | str:
    """A ConfigMap's or Secret's data as a build applies it. One still SOPS-encrypted after a
    build with the CI's key given was built without `spec.decryption`: kustomize-controller
    refuses to apply it ("is SOPS encrypted, configuring decryption is required"), so the cluster
    never holds its values (gen/guard/flux/secrets.py)."""
    if "sops" in obj and key_given():
        return f"{NO_DECRYPTION} {ks.ref}"
    return data_of(obj, decrypt=False)


def gather(revision: Revision, candidates: list[Candidate]) -> dict[str, Knowledge]:
    """Per cluster: the source objects and ConfigMap/Secret data its builds (and its bootstrap) hold."""
    out: dict[str, Knowledge] = {}
    for root in revision.roots:
        out.setdefault(root.cluster, Knowledge())
    for candidate in candidates:
        if candidate.source_object is not None:
            made = source_key(candidate.source_object)
            if made is not None:
                out.setdefault(candidate.ks.ref.cluster, Knowledge()).sources[made] = candidate.source_object
    for ref in sorted(revision.nodes):
        knows = out.setdefault(ref.cluster, Knowledge())
        for okey, obj in revision.nodes[ref].build.objects.items():
            skey = source_key(obj, okey.namespace)
            if skey is not None:
                knows.sources.setdefault(skey, obj)
            elif okey.kind in ("ConfigMap", "Secret") and okey.group == "":
                knows.values.setdefault((okey.kind, okey.namespace, okey.name), _applied(obj, revision.nodes[ref].ks))
    return out
