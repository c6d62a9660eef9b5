"""The Kustomizations the guard could not judge, and which files of this repository each may read.

A Kustomization is not judged when its source is not this repository as far as the guard can
tell (another URL, an OCI artifact of unknown origin: it may be a mirror of this one), or when it
fails to build at both revisions here (a remote base the runner cannot fetch, an env file kept
out of git) while in the cluster it keeps reconciling, or when a variable of a `substituteFrom`
source the guard cannot read (a SOPS-encrypted Secret, one the repository does not hold) reaches an
object's identity or a field a verdict depends on (gen/guard/flux/unread.py). Either way the guard
does not know what Flux would apply, so a change to a file it may read is refused
(rules/not_judged_touched.py).

"May read" is conservative, because the guard does not know what such a build reads:
- the files its last resolution read (kustomization files, resources, generator files) and the
  file its own spec is written in (a change of its spec changes what it applies); for a source
  that may be this repository (a GitRepository not certainly another one), what its build reads
  here (gen/guard/discovery.py builds it only to learn that, `../` bases included), and the
  Kustomizations it applies are followed, not judged either;
- any file under its `spec.path` folder, in the repository path of its artifact; for a source
  that is not this repository, the same folder at the repository root when the source is a
  GitRepository (a mirror has the same layout), or at any depth for an OCI artifact or another
  kind (which folder it is built from is unknown); `spec.path: ./` is the whole repository;
- except a file under that folder which it was not seen to read and which a Kustomization of the
  same cluster that was judged reads: that one judged it.
One that is built here but not judged (a variable of a `substituteFrom` source the guard cannot
read decides what it applies) may read exactly what its builds read at base and head, plus the file
its spec is written in, and the folder a child's `spec.path` points into up to where a variable
decides it: which files kustomize reads does not depend on postBuild's variables, so a file under
its folder that no kustomization file lists (a folder deleted from `resources:` long ago, an orphan
`helmrelease.yaml`) is none of its inputs. Its folder counts only where it fails to build at the
other revision (what it reads there is unknown).
A source that is certainly another repository (gen/guard/flux/sources.py `elsewhere`: another owner
and name on a remote's host, a ghcr.io package of another owner) holds no file of this one: only
the file its spec is written in counts. One on an ExternalArtifact whose ArtifactGenerator fails at
one revision (gen/guard/flux/sources.py `GENERATOR_FAILS`) may read what its build read at the other:
the cluster keeps an older artifact, and the change lands, unjudged, when the generator is fixed.
One that is new at head (absent at base, every ancestor built there) is not in any cluster yet:
it deletes nothing, whatever the change. A `spec.path` missing at both revisions is judged: kustomize-controller fails on it before any
build, so it applies and prunes nothing at either.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Sequence

from gen.guard.build.inputs import Views
from gen.guard.flux.unread import Blind
from gen.guard.flux.sources import ELSEWHERE, GENERATOR_FAILS
from gen.guard.locate import Locator
from gen.guard.model import KsRef, Node, Revision
from gen.guard.errortext import cause

Why = Literal["source", "build", "network", "vars"]
NO_PATH = "kustomization path not found"  # kustomize-controller's words, decided from the tree


@dataclass(frozen=True)
class Unjudged:
    """One Kustomization the guard could not judge, and what it may read."""

    ks: KsRef
    why: Why
    reason: str  # one sentence: why it could not be judged
    source: tuple[str, str, str]  # kind, namespace, name of its sourceRef
    path: str  # spec.path as written (artifact path)
    reads: frozenset[str]  # repository files it is known to read, and where it is written
    folders: tuple[str, ...]  # repository folders whose files it may read ("" = every file)
    anywhere: bool = False  # a folder may sit at any depth (an artifact of unknown origin)
    error: str = ""  # the build's error at head, for a build that failed
    fix: str = ""  # what makes it judgeable, when its reason is not enough to say (vars)

    def may_read(self, path: str) -> bool:
        if path in self.reads:
            return True
        for folder in self.folders:
            if not folder or path.startswith(folder + "/"):
                return True
            if self.anywhere and f"/{folder}/" in f"/{path}":
                return True
        return False


def find_unjudged(base: Revision, head: Revision, views: Views, locator: Locator,
                  blind: Sequence[Blind] = ()) -> list[Unjudged]:
    """Every Kustomization not judged at either revision (by ref; head's spec first); `blind`:
    those built without a substituteFrom source (gen/guard/flux/unread.py), head's first."""
    out: dict[KsRef, Unjudged] = {}
    for rev in (head, base):
        other = base if rev is head else head
        for ref in sorted(rev.nodes):
            node = rev.nodes[ref]
            if ref in out:
                continue
            if node.external:
                if rev is head and _new_at_head(ref, base, head):
                    continue  # nothing of it is in a cluster yet: it prunes nothing (its objects are new)
                written = locator.ks_source(rev.label, ref)
                own = {written[0]} if written else set()
                twin = other.nodes.get(ref)  # what a probe read here (gen/guard/discovery.py), at either revision
                # (an ArtifactGenerator that fails here: what the other revision's build read lands when it is fixed)
                seen_there = twin is not None and (twin.external or GENERATOR_FAILS in node.why_external)
                own |= set(node.build.inputs) | (set(twin.build.inputs) if seen_there and twin is not None else set())
                kind = node.ks.source[0]
                # certainly another repository: only its own spec, written here, is this repository's
                folders: tuple[str, ...] = () if ELSEWHERE in node.why_external else (node.ks.path,)
                out[ref] = Unjudged(ref, "source", node.why_external or "its source is not this repository",
                                    node.ks.source, node.ks.path, frozenset(own), folders,
                                    anywhere=kind != "GitRepository")
                continue
            twin = other.nodes.get(ref)
            if node.build.error is None or twin is None or twin.external or twin.build.error is None:
                continue  # judged, or failing at one revision only (build-failed says so)
            if all(e.startswith(NO_PATH) for e in (node.build.error, twin.build.error)):
                continue  # Flux's own first check fails alike at both: it applies nothing either way
            written = locator.ks_source(rev.label, ref)  # asked only of the few not judged: it parses a file
            own = {written[0]} if written else set()
            why: Why = "network" if "no network here" in cause(node.build.error) else "build"
            reason = ("its build needs the network (a remote base), which it could not reach here" if why == "network"
                      else "it fails to build at base and at head here")
            reads = own | set(node.build.inputs) | set(twin.build.inputs)
            folders = tuple(sorted({_repo_folder(views, r.label, n) for r, n in ((rev, node), (other, twin))}))
            out[ref] = Unjudged(ref, why, reason, node.ks.source, node.ks.path, frozenset(reads), folders,
                                error=node.build.error)
    revisions = {rev.label: rev for rev in (base, head)}
    for spot in blind:
        rev = revisions[spot.label]
        node = rev.nodes[spot.ks]
        if spot.judged or spot.ks in out:
            continue
        written = locator.ks_source(rev.label, spot.ks)
        reads = ({written[0]} if written else set()) | set(node.build.inputs)
        twin = (base if rev is head else head).nodes.get(spot.ks)
        under: tuple[str, ...] = spot.folders  # where a child's spec.path a variable reaches may point
        if twin is not None and not twin.external and twin.build.error is None:
            reads |= set(twin.build.inputs)
        elif twin is not None:  # it fails (or is not built) at the other revision: what it reads there is unknown
            under += (_repo_folder(views, rev.label, node),)
        out[spot.ks] = Unjudged(spot.ks, "vars", spot.reason(), node.ks.source, node.ks.path, frozenset(reads),
                                under, fix=spot.fix())
    return [out[ref] for ref in sorted(out)]


def _new_at_head(ref: KsRef, base: Revision, head: Revision) -> bool:
    """Absent at base, as are the parents head gives it up to the first that base holds, and every
    ancestor from there built at base (so base would have shown it): new. A new app's Kustomization
    that applies one of another repository's (a CRD bundle) is new with it."""
    if ref in base.nodes:
        return False
    parent = head.nodes[ref].parent
    seen: set[KsRef] = set()
    while parent is not None and parent not in base.nodes and parent in head.nodes and parent not in seen:
        seen.add(parent)  # new at head as well: its own parent decides
        parent = head.nodes[parent].parent
    while parent is not None and parent not in seen:
        seen.add(parent)
        held = base.nodes.get(parent)
        if held is None or held.build.error is not None or held.external:
            return False
        parent = held.parent
    return True


def judged_reads(base: Revision, head: Revision, clusters: set[str]) -> dict[str, set[str]]:
    """cluster -> every file a Kustomization judged there reads (built at a revision)."""
    out: dict[str, set[str]] = {c: set() for c in clusters}
    for rev in (base, head):
        for ref, node in rev.nodes.items():
            if ref.cluster in out and not node.external and node.build.error is None:
                out[ref.cluster].update(node.build.inputs)
    return out


def _repo_folder(views: Views, label: str, node: Node) -> str:
    """`spec.path` as a folder of the repository (the artifact may be a folder of it)."""
    if not node.view:
        return node.ks.path
    return views.view(label, node.view).repo_path(node.ks.path)
