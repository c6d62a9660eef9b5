"""A guard `Change` built from objects in memory: one cluster, one Kustomization, no git, no build.

What the pipeline would have found (each revision's built objects, the removals the diff
judged, the build issues) is given as values; the Locator reads the one file the cluster's root
is written in, from `tmp`. Rules are then called as the guard calls them: `rule.check(change)`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from gen.guard.change import Change
from gen.guard.diff import BuildIssue, Removal
from gen.guard.flux.platform_facts import ClusterFacts
from gen.guard.locate import Locator
from gen.guard.model import Build, FluxKs, KsRef, Node, ObjKey, Revision
from gen.guard.repo.revision import Tree

ROOT_FILE = "clusters/prod/flux-system/gotk-sync.yaml"
ROOT = KsRef(ROOT_FILE, "flux-system", "flux-system")
ROOT_TEXT = """apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: flux-system
  namespace: flux-system
spec:
  interval: 10m
  path: ./clusters/prod
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
"""


def key_of(obj: dict[str, Any]) -> ObjKey:
    group = str(obj.get("apiVersion", "")).rpartition("/")[0]
    meta = obj.get("metadata") or {}
    return ObjKey(str(meta.get("namespace", "")), str(meta["name"]), group, str(obj["kind"]))


def revision(label: str, objects: list[dict[str, Any]], error: str | None = None) -> Revision:
    ks = FluxKs(ROOT, "clusters/prod", True, ("GitRepository", "flux-system", "flux-system"))
    build = Build(objects={key_of(o): o for o in objects}, error=error)
    return Revision(label, label, {ROOT: Node(ks, build, None, ROOT, file=ROOT_FILE, line=1)}, [ROOT])


def change(tmp: Path, base: list[dict[str, Any]], head: list[dict[str, Any]], *, removals: Sequence[Removal] = (),
           issues: Sequence[BuildIssue] = (), platform: str | None = None,
           base_error: str | None = None, head_error: str | None = None) -> Change:
    (tmp / ROOT_FILE).parent.mkdir(parents=True, exist_ok=True)
    (tmp / ROOT_FILE).write_text(ROOT_TEXT, encoding="utf-8")
    revisions = {"base": revision("base", base, base_error), "head": revision("head", head, head_error)}
    trees = {label: Tree(label, tmp) for label in revisions}
    return Change(revisions["base"], revisions["head"], list(removals), list(issues),
                  Locator(trees, revisions, None),  # type: ignore[arg-type]  # no view: nothing here is built
                  facts={ROOT_FILE: ClusterFacts(ROOT_FILE, platform, None)})
