"""What the guard did not judge, and why: a gate that judged nothing must never look like a pass.

Three kinds of gap, each listed in the summary and as `info` findings in json/sarif/github:
- `not-judged`: a Kustomization whose source is not this repository (another repository, an OCI
  artifact of unknown origin, a source defined nowhere): its objects cannot be built here;
- `unreached`: a file holding Flux Kustomizations that no cluster's builds read (an archive
  folder, an entry commented out): it is in no cluster, so it is never built or refused;
- `vars-unresolved`: a `substituteFrom` ConfigMap or Secret that could not be read (SOPS,
  or not in the repository): a Kustomization where a variable it may set reaches an object's
  identity or a field a verdict reads is not judged (gen/guard/flux/unread.py), the others are
  judged (with the variable as a placeholder where the build uses it);
- `operator-not-judged`: a Flux Operator `ResourceSet` a cluster's builds apply that is not rendered
  here (its inputs come from an external service or cluster state, or the Flux Operator fails on
  it), or a `ResourceSetInputProvider` whose inputs are not in git: what it creates is not judged.
  The others are rendered with the Flux Operator's own builder and judged like a build's output
  (gen/guard/flux/resourcesets.py).
A cluster in which no Kustomization could be judged is said so on its own line; a run in which
no cluster could be judged is bad input (exit 2, `judged_nothing`), never a pass.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from gen.errors import UsageError
from gen.finding import Finding, Severity
from gen.guard.flux.roots import How
from gen.guard.model import KsRef, Revision
from gen.guard.repo.revision import Tree
from gen.guard.errortext import cause, shorten
from gen.guard.unjudged import NO_PATH

_SHOWN = 5


@dataclass(frozen=True)
class Coverage:
    not_judged: list[tuple[KsRef, str, str, int]] = field(default_factory=list)  # ks, reason, file, line
    unreached: list[str] = field(default_factory=list)
    # for guard-merge: the files with Flux objects that the clusters this run explored or carried
    # do not read, and those of them in its shard's hash that hold Kustomizations (the run's own
    # `unreached` when it is not sharded); unreached = what every shard leaves unread and one holds
    unread: list[str] = field(default_factory=list)
    holding: list[str] = field(default_factory=list)
    unresolved: list[tuple[KsRef, str]] = field(default_factory=list)
    empty_clusters: list[str] = field(default_factory=list)  # clusters where nothing could be judged
    roots_how: How = "bootstrap"
    operator: list[tuple[str, str, KsRef, str]] = field(default_factory=list)  # kind, namespace/name, applied by, why
    # bootstrap sources taken as this repository though no remote has their URL: the evidence
    identity: list[str] = field(default_factory=list)
    nothing: Nothing | None = None  # a --shard that judged nothing of its clusters (guard-merge decides)
    # unreached file -> the fix: the line its folder's kustomization.yaml lacks (gen/kustomization_reach.py)
    fixes: dict[str, str] = field(default_factory=dict)

    @property
    def not_judged_count(self) -> int:
        return len(self.not_judged)

    def findings(self) -> list[Finding]:
        out = []
        for ref, why, file, line in self.not_judged:
            out.append(Finding("not-judged", Severity.INFO, file or ".", line,
                               f"Kustomization {ref} is not judged: {why}",
                               "name the source in .coredns-gen.yaml guard.sources if it is a folder of this repository",
                               details={"kustomization": str(ref), "cluster": ref.cluster, "reason": why}))
        for path in self.unreached:
            out.append(Finding("unreached", Severity.INFO, path, 1,
                               f"{path} holds Flux Kustomizations that no cluster applies: not built, not judged",
                               self.fixes.get(path) or "list the cluster in .coredns-gen.yaml guard.clusters if a "
                                                       "bootstrap applies it"))
        for kind, name, by, why in self.operator:
            out.append(Finding("operator-not-judged", Severity.INFO, ".", 1,
                               f"{kind} {name} (applied by Kustomization {by} [{by.cluster}]) is not judged: {why}",
                               "review what it creates by hand; a change to it is refused (not-judged-touched)",
                               details={"object": f"{kind} {name}", "kustomization": str(by), "cluster": by.cluster,
                                        "reason": why}))
        for why, refs in self.unresolved_sources().items():
            users = f"Kustomization {refs[0]}" if len(refs) == 1 else f"{len(refs)} Kustomizations (first {refs[0]})"
            out.append(Finding("vars-unresolved", Severity.INFO, ".", 1,
                               f"substituteFrom {why}: {users} built without it; one where a variable it may "
                               "set reaches an object's identity or a field a verdict reads is not judged (a change "
                               "to its files is refused), the others are judged with the variable as a placeholder",
                               "", details={"kustomization": str(refs[0]), "cluster": refs[0].cluster,
                                            "kustomizations": str(len(refs))}))
        return out

    def unresolved_sources(self) -> dict[str, list[KsRef]]:
        """Each unreadable substituteFrom source (with why) -> the Kustomizations that read it."""
        out: dict[str, list[KsRef]] = {}
        for ref, why in self.unresolved:
            out.setdefault(why, []).append(ref)
        return out

    def lines(self) -> list[str]:
        """Summary lines after the verdict line (none when everything was judged)."""
        out = []
        if self.roots_how == "fallback":
            out.append("  roots: no flux bootstrap (flux-system Kustomization), FluxInstance or bootstrap script found: "
                       "every Kustomization no build produces is taken as a cluster root; `coredns-gen guard --discover` "
                       "shows them with the evidence, `--write` names them in .coredns-gen.yaml guard.clusters")
        for why in self.identity:
            out.append(f"  this repository: {why}")
        if self.not_judged:
            shown = "; ".join(f"{ref} [{ref.cluster}]: {why}" for ref, why, _, _ in self.not_judged[:_SHOWN])
            more = f" (+{len(self.not_judged) - _SHOWN} more in --format json)" if len(self.not_judged) > _SHOWN else ""
            out.append(f"  not judged: {len(self.not_judged)} Kustomizations whose source is not this repository: {shown}{more}")
        if self.unreached:
            more = f" (+{len(self.unreached) - _SHOWN} more)" if len(self.unreached) > _SHOWN else ""
            out.append(f"  unreached: {len(self.unreached)} files with Flux Kustomizations no cluster applies: "
                       f"{', '.join(self.unreached[:_SHOWN])}{more}")
            out += [f"    {path}: {fix}" for path, fix in sorted(self.fixes.items()) if path in self.unreached][:_SHOWN]
        if self.operator:
            shown = "; ".join(f"{kind} {name}: {why}" for kind, name, _, why in self.operator[:_SHOWN])
            more = f" (+{len(self.operator) - _SHOWN} more in --format json)" if len(self.operator) > _SHOWN else ""
            out.append(f"  not judged: {len(self.operator)} Flux Operator objects whose output is not rendered here: "
                       f"{shown}{more}")
        sources = self.unresolved_sources()
        if sources:
            shown = "; ".join(f"{why} ({len(refs)} Kustomizations)" for why, refs in list(sources.items())[:_SHOWN])
            more = f" (+{len(sources) - _SHOWN} more)" if len(sources) > _SHOWN else ""
            out.append(f"  unresolved: {len(sources)} substituteFrom sources could not be read: {shown}{more}")
        for cluster in self.empty_clusters:
            out.append(f"  judged nothing in cluster {cluster}: none of its Kustomizations could be built from this repository")
        return out


def measure(head: Revision, base: Revision, unreached: list[str], how: How,
            where: dict[KsRef, tuple[str, int]], *, unread: list[str] | None = None, holding: list[str] | None = None,
            nothing: Nothing | None = None, identity: list[str] | None = None,
            fixes: dict[str, str] | None = None) -> Coverage:
    """Coverage of one run; `where` gives the file and line each Kustomization is written at, the
    rest is said as the run found it (the fields of Coverage)."""
    not_judged: list[tuple[KsRef, str, str, int]] = []
    unresolved: list[tuple[KsRef, str]] = []
    for ref in sorted(head.nodes):
        node = head.nodes[ref]
        if node.external:
            file, line = where.get(ref, (node.file or "", 1))
            not_judged.append((ref, node.why_external or "its source is not this repository", file, line))
        for why in node.unresolved:
            if (ref, why) not in unresolved:
                unresolved.append((ref, why))
    operator: list[tuple[str, str, KsRef, str]] = []
    for ref in sorted(head.nodes):
        for kind, name, why in head.nodes[ref].build.operator:
            if not any(e[:2] == (kind, name) for e in operator):
                operator.append((kind, name, ref, why))
    judged = {r.cluster for rev in (head, base) for r, n in rev.nodes.items() if not n.external}
    empty = [cluster for cluster in sorted({r.cluster for r in head.roots} | {r.cluster for r in base.roots})
             if cluster not in judged]
    return Coverage(not_judged=not_judged, unreached=list(unreached), unread=list(unread or ()),
                    holding=list(holding or ()), unresolved=unresolved, empty_clusters=empty, roots_how=how,
                    operator=operator, identity=list(identity or ()), nothing=nothing, fixes=dict(fixes or {}))


@dataclass(frozen=True)
class Nothing:
    """A run (or a shard) whose clusters exist but where no Kustomization could be judged: every
    source is another repository as far as this clone knows (a mirror, a renamed repository), or
    every build fails here at both revisions (roots whose `spec.path` this repository does not have,
    as in a sample whose bootstrap URL is a placeholder and whose Flux folder is a folder of it).
    Such a gate would pass every change, so it is bad input with the fix (`error`); a shard's
    travels in its envelope and guard-merge raises it when no shard judged anything. A change
    that touches no cluster of a fleet that builds is not this: its clusters are not explored."""

    clusters: int
    reasons: tuple[str, ...]
    source: tuple[str, str, str]  # the first not-judged Kustomization's source: kind, namespace, name
    remotes: tuple[str, ...]
    why: Literal["source", "build"] = "source"  # build: some Kustomizations are this repository's, none builds
    folder: str = ""  # a folder of this repository that holds the roots' spec.path, when one does

    def error(self) -> UsageError:
        shown = "; ".join(self.reasons[:2]) + (f" (+{len(self.reasons) - 2} more)" if len(self.reasons) > 2 else "")
        kind, namespace, name = self.source
        known = ", ".join(self.remotes) or "none"
        clusters = f"{self.clusters} cluster{'s' if self.clusters != 1 else ''}"
        if self.why == "build":
            where = (f"their source's artifact looks like the folder {self.folder} of this repository: name it in "
                     f".coredns-gen.yaml guard.sources: [{{source: {kind}/{namespace}/{name}, path: {self.folder}}}]"
                     if self.folder else
                     "run the guard in the repository the clusters sync, or make their roots' spec.path a folder of "
                     f"this one (or name the folder their source is in .coredns-gen.yaml guard.sources: "
                     f"[{{source: {kind}/{namespace}/{name}, path: <folder>}}])")
            return UsageError(
                f"judged nothing: no Kustomization of the {clusters} found builds from this repository at base or "
                f"head ({shown}), so no change could be refused", key="--repo",
                hint=f"{where}; a change that touches no cluster of a fleet that builds passes as it should")
        return UsageError(
            f"judged nothing: no Kustomization of the {clusters} found has a "
            f"source that is this repository "
            f"({shown}); this clone's remotes: {known}", key="--repo",
            hint=f"if that source is this repository under another URL (a mirror, a renamed repository), add the URL "
                 f"as a remote (`git remote add upstream <url>`), or name it in .coredns-gen.yaml guard.sources: "
                 f"[{{source: {kind}/{namespace}/{name}, path: ./}}] (the folder its artifact is)")

    @staticmethod
    def of_all(parts: list[Nothing]) -> Nothing:
        """The shards' together (each judged nothing), as one run over their clusters says it."""
        reasons = tuple(dict.fromkeys(r for part in parts for r in part.reasons))
        why: Literal["source", "build"] = "build" if any(p.why == "build" for p in parts) else "source"
        folder = next((p.folder for p in parts if p.folder), "")
        return Nothing(sum(p.clusters for p in parts), reasons, parts[0].source, parts[0].remotes, why, folder)


def judged_nothing(base: Revision, head: Revision, remotes: set[str], tree: Tree | None = None) -> Nothing | None:
    """What a run whose clusters exist judged nothing of, or None (it judged something, or there
    is no cluster). A Kustomization judges something when its source is this repository and it
    builds at base or at head (a failing one's children are followed, and judge if they build);
    `tree` (head's) is searched for the folder that holds a root's missing `spec.path`."""
    revisions = (head, base)
    if not any(r for rev in revisions for r in rev.roots):
        return None
    built: dict[KsRef, bool] = {}
    for rev in revisions:
        for ref, node in rev.nodes.items():
            built[ref] = built.get(ref, False) or (not node.external and node.build.error is None)
    if any(built.values()):
        return None
    unjudged = [n for rev in revisions for _, n in sorted(rev.nodes.items())]
    failing = [(ref, n) for rev in revisions for ref, n in sorted(rev.nodes.items()) if not n.external]
    clusters = len({r.cluster for rev in revisions for r in rev.roots})
    source = unjudged[0].ks.source if unjudged else ("GitRepository", "flux-system", "flux-system")
    if not failing:
        reasons = tuple(dict.fromkeys(n.why_external or "its source is not this repository" for n in unjudged))
        return Nothing(clusters, reasons, (source[0], source[1], source[2]), tuple(sorted(remotes)))
    reasons = tuple(dict.fromkeys(f"Kustomization {ref} [{ref.cluster}]: {shorten(cause(n.build.error or ''), 100)}"
                                  for ref, n in failing))
    first = failing[0][1]
    folder = _holding(tree, first.ks.path) if tree is not None and NO_PATH in (first.build.error or "") else ""
    return Nothing(clusters, reasons, first.ks.source, tuple(sorted(remotes)), "build", folder)


def _holding(tree: Tree, path: str) -> str:
    """The shallowest folder of `tree` under which `path` (a root's spec.path) is a folder, or ""."""
    rel = path.strip("/").removeprefix("./").strip("/")
    if not rel:
        return ""
    found = sorted((p.split(f"/{rel}/", 1)[0] for p in tree.blobs if f"/{rel}/" in f"/{p}" and
                    not p.startswith(f"{rel}/")), key=lambda f: (f.count("/"), f))
    return found[0] if found else ""
