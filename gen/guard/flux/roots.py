"""The clusters of a repository: the Flux Kustomizations a bootstrap applies from outside git.

A cluster is what its bootstrap applies, and only what that reaches is in the cluster:
- `flux bootstrap`'s `flux-system` Kustomization (`clusters/<name>/flux-system/gotk-sync.yaml`,
  or what bootstrap will write there when the repository commits that file as a placeholder);
- a Flux Operator `FluxInstance` (or the `flux-instance` Helm chart's values), whose
  `spec.sync` makes a `flux-system` Kustomization of `sync.path` from `sync.kind` `sync.url`;
- a script or tool of the repository that bootstraps, applies a folder or installs a FluxInstance
  (gen/guard/flux/bootstraps.py: Taskfile, helmfile, Makefile, shell, CI, OpenTofu), or creates
  an Azure Flux extension configuration (Bicep, ARM, Terraform, `az k8s-configuration flux create`);
- the root files named in `.coredns-gen.yaml` (`guard.clusters`), or every Kustomization under
  `--path`, when the user says where the clusters are.
Only when none of these exists are the Kustomizations no build produces taken as roots, the
guard's older reading, and the summary says so on its first line. Even then a guess is never a
file in a hidden folder (`.archive/`), a file its own folder's kustomization.yaml leaves out (an
entry commented out), or a Kustomization without a sourceRef (a patch); and a guessed root on
another repository's source is never built from this one. A Kustomization file that no cluster's
builds reach is in no cluster: it is listed as unreached and never built.
"""

from __future__ import annotations

import dataclasses
import posixpath
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Literal

from gen.config import ClusterEntry
from gen.guard.flux.bootstraps import Evidence, templated
from gen.guard.flux.fluxspec import is_flux_kustomization, parse_ks
from gen.guard.flux.identity import renamed_here
from gen.guard.repo.manifests import file_docs, try_docs
from gen.guard.repo.marks import Marked, Marks
from gen.guard.model import FluxKs
from gen.guard.repo.revision import Tree, normalize_url

How = Literal["bootstrap", "config", "path", "fallback"]
# CI variables naming the repository the pipeline runs in (GitHub Actions, GitLab CI, Azure Pipelines)
CI_SELF = re.compile(r"github\.(?:event\.repository\.(?:html_|clone_|ssh_)?url|repository\b)|GITHUB_REPOSITORY\b|"
                     r"CI_PROJECT_URL|CI_REPOSITORY_URL|CI_PROJECT_PATH\b|Build\.Repository\.Uri|BUILD_REPOSITORY_URI",
                     re.I)
INSTANCE_GROUP = "fluxcd.controlplane.io"
_INSTANCE_MARKS = (INSTANCE_GROUP.encode(), b"flux-instance")
_MARKS = (b"kustomize.toolkit.fluxcd.io", *_INSTANCE_MARKS)  # files that can hold a root


@dataclass
class Candidate:
    """A Flux Kustomization written in a file (or made by a FluxInstance written there)."""

    ks: FluxKs
    file: str | None
    namespace_given: bool = True
    # what the bootstrap creates besides the Kustomization (a FluxInstance's source object)
    source_object: dict[str, Any] | None = None
    not_ours: str = ""  # the bootstrap's source is another repository: why
    evidence: Evidence | None = None  # a script or tool that applies it (no Flux object written)
    guessed: bool = False  # the fallback's guess: its source must prove to be this repository
    identity: str = ""  # its source's URL is none of the remotes, yet this repository: the evidence


@dataclass
class Roots:
    roots: list[Candidate] = field(default_factory=list)
    how: How = "bootstrap"
    # the old reading: a candidate another build produces is not a root (known after building)
    drop_produced: bool = False


def is_bootstrap(c: Candidate) -> bool:
    name = posixpath.basename(c.file or "")
    return (c.ks.ref.namespace, c.ks.ref.name) == ("flux-system", "flux-system") or \
        name in ("gotk-sync.yaml", "gotk-sync.yml")


def instance_sync(doc: Any, tree: Tree | None = None, file: str = "") -> tuple[str, dict[str, Any]] | None:
    """(namespace, spec.sync) of a FluxInstance, or of a HelmRelease of the flux-instance chart
    with `instance.sync` in its values: its `valuesFrom` ConfigMaps (written beside it, or made by
    a configMapGenerator of its folder's kustomization) in order, then its inline values on top,
    as helm-controller merges them."""
    if not isinstance(doc, dict):
        return None
    api = str(doc.get("apiVersion") or "").rsplit("/", 1)[0]
    meta = doc.get("metadata") or {}
    spec = doc.get("spec") or {}
    if doc.get("kind") == "FluxInstance" and api == INSTANCE_GROUP:
        sync = spec.get("sync")
        return (str(meta.get("namespace") or "flux-system"), sync) if isinstance(sync, dict) else None
    if doc.get("kind") == "HelmRelease" and api == "helm.toolkit.fluxcd.io":
        chart = ((spec.get("chart") or {}).get("spec") or {}).get("chart") or (spec.get("chartRef") or {}).get("name")
        if not str(chart or "").endswith("flux-instance"):
            return None
        merged: dict[str, Any] = {}
        for ref in spec.get("valuesFrom") or [] if tree is not None else []:
            if isinstance(ref, dict) and ref.get("kind") == "ConfigMap" and tree is not None:
                merged.update(_values_from(tree, file, str(ref.get("name") or ""), str(ref.get("valuesKey") or "values.yaml")))
        inline = ((spec.get("values") or {}).get("instance") or {}).get("sync")
        merged.update(inline if isinstance(inline, dict) else {})
        sync = merged or None
        if isinstance(sync, dict):
            return str(spec.get("targetNamespace") or meta.get("namespace") or "flux-system"), sync
    return None


def _values_from(tree: Tree, file: str, name: str, key: str) -> dict[str, Any]:
    """`instance.sync` of the values a ConfigMap `name` holds under `key`, for a HelmRelease in
    `file`: a configMapGenerator of its folder's (or a parent's) kustomization, or a ConfigMap
    written in its folder."""
    folder = posixpath.dirname(file)
    for depth in range(3):
        own = tree.kustomization_file(folder)
        for doc in (file_docs(tree, own) or []) if own else []:
            for gen in (doc.get("configMapGenerator") or []) if isinstance(doc, dict) else []:
                if not isinstance(gen, dict) or gen.get("name") != name:
                    continue
                for entry in gen.get("files") or []:
                    entry_key, _, rel = str(entry).rpartition("=")
                    if (entry_key or posixpath.basename(rel)) == key:
                        target = posixpath.normpath(posixpath.join(folder, rel))
                        if tree.is_file(target):
                            return _sync_in(try_docs(tree.read(target).decode("utf-8", "replace")) or [])
        for path in tree.walk(folder) if depth == 0 else []:
            if posixpath.dirname(path) == folder and path.endswith((".yaml", ".yml")) and path != file:
                for doc in file_docs(tree, path) or []:
                    if isinstance(doc, dict) and doc.get("kind") == "ConfigMap" and \
                            (doc.get("metadata") or {}).get("name") == name:
                        return _sync_in(try_docs(str((doc.get("data") or {}).get(key) or "")) or [])
        if not folder:
            break
        folder = posixpath.dirname(folder)
    return {}


def _sync_in(docs: list[Any]) -> dict[str, Any]:
    for doc in docs:
        sync = ((doc.get("instance") or {}) if isinstance(doc, dict) else {}).get("sync")
        if isinstance(sync, dict):
            return sync
    return {}


def instance_root(doc: Any, file: str, remotes: set[str], cluster: str = "", tree: Tree | None = None,
                  files: list[str] | None = None) -> Candidate | None:
    """The bootstrap Kustomization a FluxInstance's `spec.sync` makes, with its source object. A
    URL that is none of the remotes may still be this repository renamed (gen/guard/flux/identity.py),
    judged on `files` (else the tree's)."""
    found = instance_sync(doc, tree, file)
    if found is None:
        return None
    namespace, sync = found
    kind = str(sync.get("kind") or "GitRepository")
    name = str(sync.get("name") or "flux-system")
    url = str(sync.get("url") or "")
    source_spec: dict[str, Any] = {"url": url}
    ref = sync.get("ref")
    if isinstance(ref, str) and ref:
        source_spec["ref"] = {"tag": ref} if kind == "OCIRepository" else {"name": ref}
    source = {"apiVersion": "source.toolkit.fluxcd.io/v1", "kind": kind,
              "metadata": {"name": name, "namespace": namespace}, "spec": source_spec}
    ks = {"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
          "metadata": {"name": name, "namespace": namespace},
          "spec": {"path": str(sync.get("path") or "./"), "prune": True,
                   "sourceRef": {"kind": kind, "name": name, "namespace": namespace}}}
    not_ours = identity = ""
    if kind == "GitRepository" and remotes and normalize_url(url) not in remotes:
        here = files if files is not None else (tree.blobs if tree is not None else ())
        identity = renamed_here(url, remotes, here, str(sync.get("path") or "./"), file)
        if not identity:
            not_ours = f"FluxInstance in {file} syncs {url}, not this repository"
    elif kind not in ("GitRepository", "OCIRepository"):
        not_ours = f"FluxInstance in {file} syncs a {kind}, not this repository"
    return Candidate(parse_ks(ks, namespace, cluster=cluster or file), file, True, source, not_ours,
                     identity=identity)


def evidence_roots(evidence: list[Evidence], remotes: set[str], flux_files: list[str],
                   tree: Tree | None = None) -> list[Candidate]:
    """The roots the repository's scripts and tools apply; each cluster named by the folder it
    syncs (no file holds its root), or by the file `kubectl apply -f` applies, whose Flux
    Kustomizations are its roots as written. A folder applied with `kubectl apply -k` that holds
    no Flux Kustomization (Flux's own install) starts no cluster."""
    out: list[Candidate] = []
    for ev in evidence:
        cluster = ev.path or "."
        if ev.form == "kubectl-apply-file":
            for doc in (file_docs(tree, ev.path) or []) if tree is not None and tree.is_file(ev.path) else []:
                if is_flux_kustomization(doc):
                    given = bool((doc.get("metadata") or {}).get("namespace"))
                    out.append(Candidate(parse_ks(doc, ev.namespace, cluster=ev.path), ev.path, given, evidence=ev))
            continue
        if ev.form == "flux-instance-chart":
            doc = {"apiVersion": f"{INSTANCE_GROUP}/v1", "kind": "FluxInstance",
                   "metadata": {"name": "flux", "namespace": "flux-system"}, "spec": {"sync": dict(ev.sync)}}
            made = instance_root(doc, ev.file, remotes, cluster=cluster, files=flux_files)
            if made is not None:
                made.file, made.evidence = None, ev
                out.append(made)
            continue
        if ev.form == "flux-configuration":
            out.append(configuration_root(ev, remotes, flux_files))
            continue
        if ev.form == "kubectl-apply":
            lead = ev.path + "/" if ev.path else ""
            if not any(f.startswith(lead) for f in flux_files):
                continue
            ks = _bootstrap_ks("kubectl-apply", ev.path, ev.source, prune=False)
        else:
            ks = _bootstrap_ks(ev.name, ev.path, ev.source, prune=True)
        out.append(Candidate(parse_ks(ks, "flux-system", cluster=cluster), None, True, evidence=ev))
    return out


def configuration_root(ev: Evidence, remotes: set[str], files: list[str]) -> Candidate:
    """A Kustomization the Azure Flux extension makes for a fluxConfiguration, with the
    GitRepository named after the configuration; one cluster per configuration (its file and
    name, and the value of a path's variables where they fit several folders). Its source is this repository when the URL is a remote's (any spelling), or this
    repository renamed (gen/guard/flux/identity.py); a URL written as a variable is not known."""
    cluster = f"{ev.file}#{ev.source}" + (f"@{ev.variant}" if ev.variant else "")
    ref = dict(ev.ref)
    source_spec: dict[str, Any] = {"url": ev.url, **({"ref": ref} if ref else {})}
    source = {"apiVersion": "source.toolkit.fluxcd.io/v1", "kind": "GitRepository",
              "metadata": {"name": ev.source, "namespace": ev.namespace}, "spec": source_spec}
    spec: dict[str, Any] = {"path": "./" + ev.path, "prune": ev.prune,
                            "sourceRef": {"kind": "GitRepository", "name": ev.source, "namespace": ev.namespace}}
    if ev.depends_on:
        spec["dependsOn"] = [{"name": d} for d in ev.depends_on]
    ks = {"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
          "metadata": {"name": ev.name, "namespace": ev.namespace}, "spec": spec}
    not_ours = identity = ""
    where = f"fluxConfiguration {ev.namespace}/{ev.source} in {ev.file}"
    if ev.kind != "GitRepository":
        not_ours = f"{where} syncs a source of kind {ev.kind}, not known to be this repository"
    elif ev.url and templated(ev.url) and CI_SELF.search(ev.url):
        identity = f"{ev.url} is the URL of the repository whose CI runs {ev.file}"
    elif not ev.url or templated(ev.url):
        not_ours = f"{where} syncs a URL written as a variable ({ev.url or 'none written'}): not known to be this repository"
    elif remotes and normalize_url(ev.url) not in remotes:
        identity = renamed_here(ev.url, remotes, files, "./" + ev.path, ev.file)
        if not identity:
            not_ours = f"{where} syncs {ev.url}, not this repository"
    return Candidate(parse_ks(ks, ev.namespace, cluster=cluster), None, True, source, not_ours, evidence=ev,
                     identity=identity)


def _bootstrap_ks(name: str, path: str, source: str, prune: bool) -> dict[str, Any]:
    return {"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
            "metadata": {"name": name, "namespace": "flux-system"},
            "spec": {"path": "./" + path, "prune": prune, "sourceRef": {"kind": "GitRepository", "name": source}}}


def _already(ev: Candidate, boot: list[Candidate]) -> bool:
    """A script's root that a bootstrap written in git already is (same synced folder), or a
    folder it applies that holds that bootstrap's file (`kubectl apply -k clusters/x/flux-system`)."""
    assert ev.evidence is not None
    for b in boot:
        if ev.evidence.form == "kubectl-apply-file":
            if b.file == ev.file:  # `kubectl apply -f clusters/x/flux-system/gotk-sync.yaml`
                return True
            continue
        if b.ks.path == ev.ks.path and ev.evidence.form != "kubectl-apply":
            return True
        if ev.evidence.form == "kubectl-apply" and b.file and \
                (not ev.evidence.path or b.file.startswith(ev.evidence.path + "/")):
            return True
    return False


def same_clusters(base: list[Candidate], head: list[Candidate]) -> dict[str, str]:
    """Base cluster -> head cluster, for a cluster whose bootstrap is written another way at head
    (a script's `flux create kustomization` becomes a gotk-sync.yaml, a gotk-sync.yaml a
    FluxInstance, a bootstrap file moves): its roots are the same Kustomizations (namespace, name)
    syncing the same folders, so the same objects in the cluster reconcile head and prune what it
    drops. A cluster's name is its root's file (or a script's folder), so without this the base
    cluster would look gone (its objects orphaned) and the head one new (nothing compared). Only
    a one-to-one match counts: a cluster gone whose roots match no new cluster, or several, keeps
    its name."""
    def roots_of(cands: list[Candidate]) -> dict[str, frozenset[tuple[str, str, str]]]:
        out: dict[str, set[tuple[str, str, str]]] = {}
        for c in cands:
            out.setdefault(c.ks.ref.cluster, set()).add((c.ks.ref.namespace, c.ks.ref.name, c.ks.path))
        return {cluster: frozenset(roots) for cluster, roots in out.items()}

    before, after = roots_of(base), roots_of(head)
    gone = {cluster: roots for cluster, roots in before.items() if cluster not in after}
    new = {cluster: roots for cluster, roots in after.items() if cluster not in before}
    out: dict[str, str] = {}
    for cluster, roots in gone.items():
        hits = [other for other, theirs in new.items() if theirs == roots]
        if len(hits) == 1 and sum(1 for theirs in gone.values() if theirs == roots) == 1:
            out[cluster] = hits[0]
    return out


def in_cluster(c: Candidate, cluster: str) -> Candidate:
    """The same candidate, named as a root of `cluster`."""
    return dataclasses.replace(c, ks=dataclasses.replace(c.ks, ref=c.ks.ref.in_cluster(cluster)))


# folder names that keep manifests out of use (`_archive/`, `deprecated/`): never a guessed root
_SHELVED = {"archive", "archived", "attic", "deprecated", "disabled", "unused"}


def guess_refused(tree: Tree, c: Candidate) -> str:
    """Why the fallback never takes this Kustomization as a root ("" when it may): evidence that
    nothing applies it."""
    file = c.file or ""
    folder = posixpath.dirname(file)
    if any(part.startswith(".") for part in folder.split("/") if part):
        return f"{file} is in a hidden folder"
    shelved = next((part for part in folder.split("/") if part.lstrip("_-").lower() in _SHELVED), None)
    if shelved is not None:
        return f"{file} is in a folder named {shelved} (kept, not applied)"
    kind, _, name = c.ks.source
    if not kind or not name:
        return f"{file}: Kustomization {c.ks.ref} has no sourceRef (a patch, not an object Flux applies)"
    own = tree.kustomization_file(folder)
    if own is not None and own != file:
        docs = file_docs(tree, own) or []
        listed = {str(r).removeprefix("./").rstrip("/") for d in docs if isinstance(d, dict)
                  for key in ("resources", "bases") for r in (d.get(key) or []) if isinstance(r, str)}
        if posixpath.basename(file) not in listed:
            return f"{file} is not listed in {own} (no build of its folder applies it)"
    if own is None:  # the nearest folder above with a kustomization.yaml lists neither it nor a folder holding it
        above = posixpath.dirname(folder)
        while folder and above != folder:
            found = tree.kustomization_file(above)
            if found is not None:
                rel = posixpath.relpath(file, above or ".")
                steps = rel.split("/")
                holders = {"/".join(steps[:i]) for i in range(1, len(steps) + 1)}
                docs = file_docs(tree, found) or []
                listed = {posixpath.normpath(str(r)).rstrip("/") for d in docs if isinstance(d, dict)
                          for key in ("resources", "bases", "components") for r in (d.get(key) or [])
                          if isinstance(r, str)}
                if docs and not holders & listed:
                    return f"{file} is not listed in {found} (no build of the folders above applies it)"
                break
            if not above:
                break
            above = posixpath.dirname(above)
    return ""


def choose(candidates: list[Candidate], instances: list[Candidate], configured: tuple[ClusterEntry, ...],
           under: tuple[str, ...], scripted: list[Candidate] | None = None,
           refused: Callable[[Candidate], str] | None = None) -> Roots:
    """The roots: the user's clusters, else every bootstrap (in git or in the repository's
    scripts), else (said so) the old reading, less what evidence says is never applied."""
    if configured:
        files = {c.root for c in configured if c.path is None}
        found = [c for c in candidates + instances if c.file in files]
        boots = {c.file for c in found if is_bootstrap(c) or c.source_object}
        # a root file's bootstrap, or, in a file without one, every Kustomization written there
        picked = [c for c in found if c.file not in boots or is_bootstrap(c) or c.source_object]
        picked += [configured_root(e) for e in configured if e.path is not None]
        # an Azure fluxConfiguration named by its file (every configuration there) or `file#configuration`
        picked += [c for c in scripted or [] if c.evidence is not None and c.evidence.form == "flux-configuration"
                   and (c.ks.ref.cluster in files or c.evidence.file in files)]
        return Roots(picked, "config")
    if under:
        def inside(c: Candidate) -> bool:
            return any(p == "" or c.file == p or (c.file or "").startswith(p.rstrip("/") + "/") for p in under)
        candidates = [c for c in candidates if inside(c)]
        instances = [c for c in instances if inside(c)]
        scripted = []  # --path: the user says where the clusters are
    boot = [c for c in candidates if is_bootstrap(c)] + instances
    boot += [c for c in scripted or [] if not _already(c, boot)]
    # `kubectl apply -f FILE` says that FILE is applied, not that nothing else is: a script that
    # applies one manifest (a test setup, a CI step) is no bootstrap of the fleet, so alone it
    # leaves the guessing on (it once made every other cluster unreached, and passed)
    applied = [c for c in boot if c.evidence is not None and c.evidence.form == "kubectl-apply-file"]
    if len(applied) < len(boot):
        return Roots(boot, "path" if under else "bootstrap")
    if under:
        return Roots(list(candidates), "path", drop_produced=True)
    guesses = [Candidate(c.ks, c.file, c.namespace_given, c.source_object, c.not_ours, guessed=True)
               for c in candidates if refused is None or not refused(c)]
    guessed = {(c.file, c.ks.ref.name, c.ks.ref.namespace) for c in guesses}
    guesses += [c for c in applied if (c.file, c.ks.ref.name, c.ks.ref.namespace) not in guessed]
    return Roots(guesses, "fallback", drop_produced=True)


def configured_root(entry: ClusterEntry) -> Candidate:
    """The root of a cluster `.coredns-gen.yaml` names by the folder its bootstrap applies."""
    folder = entry.path or ""
    if entry.apply == "kubectl":
        ks = _bootstrap_ks("kubectl-apply", folder, "flux-system", prune=False)
    else:
        ks = _bootstrap_ks("flux-system", folder, "flux-system", prune=True)
    return Candidate(parse_ks(ks, "flux-system", cluster=folder or "."), None, True)


def flux_files(tree: Tree, marked: Marked, like: tuple[Tree, list[str]] | None = None) -> list[str]:
    """The files of an artifact that can hold a root or a Flux Kustomization (by content, and
    placeholder gotk-sync.yaml files by name), without parsing any. `like` is another artifact
    with its answer (base, for head): a path with the same blob there has the same answer, so
    only the paths whose blob differs are asked (a fleet's head edits a few of 10^4 files)."""

    def holding(paths: list[str]) -> set[str]:
        yaml = [p for p in paths if p.endswith((".yaml", ".yml"))]
        found = marked.many(tree, yaml, _MARKS) if isinstance(marked, Marks) else \
            {p for p in yaml if marked(tree, p, _MARKS)}
        return found.union(p for p in yaml if p not in found and bootstrap_placeholder(p) is not None)

    if like is not None and like[0].blobs.keys() == tree.blobs.keys():
        other = like[0].blobs
        differ = [p for p, _ in tree.blobs.items() - other.items()]
        if len(differ) < len(tree.blobs) // 4:
            kept = set(like[1]).difference(differ)
            return sorted(kept.union(holding(differ)))
    return sorted(holding(list(tree.blobs)))


def likely_roots(files: list[str], tree: Tree, marked: Marked, configured: tuple[ClusterEntry, ...],
                 under: tuple[str, ...]) -> list[str]:
    """The files to read first: where the user says the clusters are, or where bootstraps write
    (a `flux-system` folder, gotk-sync.yaml, a FluxInstance). The rest of a fleet's thousands of
    Kustomization files are read by builds, and parsed only if no build reads them."""
    if configured:
        wanted = {c.root for c in configured}
        return [f for f in files if f in wanted]
    if under:
        return [f for f in files if any(not p or f == p or f.startswith(p.rstrip("/") + "/") for p in under)]
    named = {f for f in files if ("flux-system" in f and "flux-system" in f.split("/"))
             or (f.endswith(("gotk-sync.yaml", "gotk-sync.yml")) and posixpath.basename(f) in ("gotk-sync.yaml", "gotk-sync.yml"))}
    rest = [f for f in files if f not in named]
    instances = marked.many(tree, rest, _INSTANCE_MARKS) if isinstance(marked, Marks) else \
        {f for f in rest if marked(tree, f, _INSTANCE_MARKS)}
    return [f for f in files if f in named or f in instances]


# (artifact prefix, path, blob id) -> the Candidates its file writes, for a file that holds no
# FluxInstance or HelmRelease (what those make depends on other files): base and head share most
# root files, so head parses only those it changes (a fleet writes one root file per cluster)
CandidateMemo = dict[tuple[str, str, str], tuple[Candidate, ...]]
_OWN_KINDS = ("FluxInstance", "HelmRelease")  # what instance_root reads beyond the file itself


def find_candidates(tree: Tree, paths: list[str], remotes: set[str],
                    memo: CandidateMemo | None = None) -> tuple[list[Candidate], list[Candidate]]:
    """Flux Kustomizations written in these files of an artifact, and the roots FluxInstances make.
    `memo` keeps what a file that depends on nothing else writes, for another revision of the run
    (Candidates are never changed once made)."""
    found: list[Candidate] = []
    instances: list[Candidate] = []
    for path in paths:
        blob = None if memo is None or path in tree.links else tree.blobs.get(path)
        key = (tree.prefix, path, blob) if blob is not None else None
        if key is not None and memo is not None and key in memo:
            found.extend(memo[key])
            continue
        docs = file_docs(tree, path) or []
        mine: list[Candidate] = []
        alone = True  # the file's candidates depend on its bytes alone
        if not any(is_flux_kustomization(d) for d in docs):
            placeholder = bootstrap_placeholder(path)
            if placeholder is not None:
                mine.append(placeholder)
                docs = []
        for doc in docs:
            if is_flux_kustomization(doc):
                given = bool((doc.get("metadata") or {}).get("namespace"))
                # A root's file names its cluster: every cluster has its own flux-system.
                mine.append(Candidate(parse_ks(doc, "flux-system", cluster=path), path, given))
            elif isinstance(doc, dict) and doc.get("kind") in _OWN_KINDS:
                alone = False
                made = instance_root(doc, path, remotes, tree=tree)
                if made is not None:
                    instances.append(made)
        found.extend(mine)
        if key is not None and memo is not None and alone:
            memo[key] = tuple(mine)
    return found, instances


def bootstrap_placeholder(path: str) -> Candidate | None:
    """The root `flux bootstrap --path=DIR` writes into `DIR/flux-system/gotk-sync.yaml`, for a
    repository that commits that file as a placeholder (example and template repositories do:
    "This file will be generated automatically by flux bootstrap"): a GitRepository flux-system
    of this repository and a Kustomization flux-system of `./DIR`."""
    if not path.endswith(("gotk-sync.yaml", "gotk-sync.yml")):  # asked of every manifest of a fleet
        return None
    folder, name = posixpath.split(path)
    if name not in ("gotk-sync.yaml", "gotk-sync.yml") or posixpath.basename(folder) != "flux-system":
        return None
    cluster_dir = posixpath.dirname(folder)
    ks = {"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
          "metadata": {"name": "flux-system", "namespace": "flux-system"},
          "spec": {"path": "./" + cluster_dir, "prune": True,
                   "sourceRef": {"kind": "GitRepository", "name": "flux-system"}}}
    return Candidate(parse_ks(ks, "flux-system", cluster=path), path, True)
