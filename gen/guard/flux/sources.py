"""Which Flux sources deliver this repository, and the artifact (view) each one delivers.

A Kustomization is judged only when its source is this repository at the revision under
judgement; every other one is listed as not judged, with the reason. This repository is:
- the source of a cluster's bootstrap Kustomization (`flux bootstrap` wrote it here);
- a GitRepository whose URL is one of this repository's remotes (any spelling) or the
  bootstrap source's URL, on the same ref;
- an OCIRepository whose artifact is a folder of this repository, recognised by
  `.coredns-gen.yaml` (`guard.sources: [{source: OCIRepository/ns/name, path: kubernetes/}]`)
  or by what the repository's CI files push: `flux push artifact oci://… --path=DIR`, or the
  Flux distribution's push action (`with: {repository: …, path: …}`);
- an ExternalArtifact whose ArtifactGenerator copies only from such sources.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gen.config import SourceEntry
from gen.guard.flux import generator, views
from gen.guard.flux.sourceignore import IGNORE_FILE, KeptStore, Push
from gen.guard.repo.manifests import file_docs, try_docs
from gen.guard.repo.marks import Marked
from gen.guard.repo.revision import Tree, normalize_url

SourceRef = tuple[str, str, str]  # kind, namespace, name
ClusterSources = dict[SourceRef, dict[str, Any]]  # source objects a cluster's builds hold

SOURCE_KINDS = {"GitRepository", "OCIRepository", "Bucket", "ArtifactGenerator"}
_MARKS = (b"source.toolkit.fluxcd.io", b"source.extensions.fluxcd.io")
_PUSH = re.compile(r"flux\s+push\s+artifact\s+[\"']?(?P<url>oci://[^\s\"']+)(?P<rest>[^\n]*)")
_PATH = re.compile(r"--path[=\s]+[\"']?(?P<path>[^\s\"']+)")
_IGNORES = re.compile(r"--(?P<flag>add-ignore-paths|ignore-paths)(?:=|\s+)(?:\"(?P<dq>[^\"]*)\"|'(?P<sq>[^']*)'|(?P<bare>[^\s\"']*))")
_VAR = re.compile(r"\$\{\{[^}]*\}\}|\$\{[^}]*\}|\$\([^)]*\)|\$[A-Za-z_][A-Za-z0-9_]*")
_CI_FILES = re.compile(r"(^|/)(\.github/workflows/[^/]+\.ya?ml|\.gitlab-ci\.ya?ml|Taskfile[^/]*\.ya?ml|"
                       r"\.taskfiles/.+\.ya?ml|Makefile|justfile|[^/]+\.sh)$")


# Said of a source that is certainly another repository (not a mirror or a fork of this one): the
# Kustomizations on it read no file of this repository (gen/guard/unjudged.py).
ELSEWHERE = "no file of this repository is in it"
# Said of an ExternalArtifact whose ArtifactGenerator fails before it (a folder it copies is gone, a
# glob matches nothing): source-watcher builds nothing from that artifact on, so the cluster keeps an
# artifact of an earlier revision, and what this revision holds lands all at once when it is fixed.
GENERATOR_FAILS = "so the cluster keeps an artifact of an earlier revision until the generator is fixed"
NO_BRANCH = "a revision of no branch (--base names a commit or a tag)"  # the ref of a script's bootstrap is unknown


def elsewhere(url: str, remotes: AbstractSet[str], kind: str) -> str:
    """Why `url` is certainly another repository's ("" when it may be this one under another
    name: a mirror elsewhere, a fork, a rename, an artifact of this repository's CI).
    - git, on the host of a remote: both owner and name differ from every remote there (a fork
      keeps the name, a rename keeps the owner or the name);
    - OCI on ghcr.io: an owner that is no GitHub remote's (a workflow's token writes only its own
      owner's packages)."""
    host, _, path = normalize_url(url).partition("/")
    owner, _, name = path.partition("/")
    if not remotes or not owner or not name:
        return ""
    mine = [r.split("/", 2) for r in remotes if r.count("/") >= 2]
    if kind == "GitRepository":
        same_host = [(o, n) for h, o, n in mine if h == host]
        if same_host and all(o != owner and n != name for o, n in same_host):
            return f"{ELSEWHERE} (owner and name differ from every remote on {host})"
    if kind == "OCIRepository" and host == "ghcr.io":
        owners = {o.lower() for h, o, _ in mine if h == "github.com"}
        if owners and owner.lower() not in owners:
            return f"{ELSEWHERE} (a ghcr.io package of {owner}, and no remote is {owner}'s)"
    return ""


def git_revision(ref: object) -> tuple[str, str]:
    """Which revision a GitRepository's `spec.ref` checks out, in one spelling: `commit` takes
    precedence over every other field, then `name`, `semver`, `tag`, `branch` (source-controller's
    GitRepositoryRef API), and `name: refs/heads/X` is branch X's head as `branch: X` is (the Flux
    Operator writes a FluxInstance's `sync.ref` as `name`), `refs/tags/X` tag X's."""
    if not isinstance(ref, dict):
        return ("other", repr(ref))
    if ref.get("commit"):
        return ("commit", str(ref["commit"]))
    name = str(ref.get("name") or "")
    for prefix, kind in (("refs/heads/", "branch"), ("refs/tags/", "tag")):
        if name.startswith(prefix):
            return (kind, name[len(prefix):])
    if name:
        return ("name", name)
    for kind in ("semver", "tag", "branch"):
        if ref.get(kind):
            return (kind, str(ref[kind]))
    return ("other", "")


def _sparse(value: object) -> tuple[str, ...] | None:
    """A GitRepository's spec.sparseCheckout as source-controller hands it to the clone (each
    entry's leading `./` trimmed: gitrepository_controller.go gitCheckout); None when not set."""
    if not isinstance(value, list) or not value:
        return None
    return tuple(str(entry).removeprefix("./") for entry in value)


def _included(value: object) -> str:
    """A GitRepository's spec.include, said: `<source> -> <toPath>` each ("" when none). The
    default toPath is the included GitRepository's name (GitRepositoryInclude.GetToPath)."""
    if not isinstance(value, list):
        return ""
    said = []
    for entry in value:
        entry = entry if isinstance(entry, dict) else {}
        name = str((entry.get("repository") or {}).get("name") or "") if isinstance(entry.get("repository"), dict) else ""
        said.append(f"GitRepository {name or '?'} -> {entry.get('toPath') or name or '?'}/")
    return ", ".join(said)


@dataclass(frozen=True)
class Delivery:
    """A source's verdict: the view id it delivers, or why it is not this repository."""

    view: str | None
    reason: str = ""


def _api_group(obj: dict[str, Any]) -> str:
    return str(obj.get("apiVersion") or "").rsplit("/", 1)[0]


def source_key(obj: Any, default_namespace: str = "") -> SourceRef | None:
    if not isinstance(obj, dict) or obj.get("kind") not in SOURCE_KINDS:
        return None
    if _api_group(obj) not in ("source.toolkit.fluxcd.io", "source.extensions.fluxcd.io"):
        return None
    meta = obj.get("metadata") or {}
    return str(obj["kind"]), str(meta.get("namespace") or default_namespace), str(meta.get("name") or "")


def _wildcard(url: str) -> re.Pattern[str]:
    """A pattern for an OCI URL written in CI, where each CI expression matches anything."""
    url = normalize_url(_VAR.sub("\0", url))
    return re.compile(".+".join(re.escape(p) for p in url.split("\0")) + r"\Z")


def _folder(raw: str) -> str:
    text = raw.strip().strip("\"'")
    return "" if text in (".", "./", "") else text.removeprefix("./").strip("/")


def push_flags(rest: str) -> Push:
    """The ignore flags of one `flux push artifact` command line, as the CLI's flag parser reads
    them (string slices: comma-separated, the first --ignore-paths replaces the default, each
    further one appends)."""
    ignore: list[str] | None = None
    add: list[str] = []
    for match in _IGNORES.finditer(rest):
        value = next(v for v in (match["dq"], match["sq"], match["bare"]) if v is not None)
        items = [v.strip() for v in value.split(",")] if value else []
        if match["flag"] == "ignore-paths":
            ignore = (ignore or []) + items
        else:
            add += items
    return Push(None if ignore is None else tuple(ignore), tuple(add))


_CI_ENDINGS = (".yml", ".yaml", "Makefile", "justfile", ".sh")  # what _CI_FILES can match, tested first


def is_ci_file(path: str) -> bool:
    """Whether a repository file is one where CI or a script may push an OCI artifact of it (a YAML
    path can only with one of these words in it: asked first of a fleet's 10^4 paths)."""
    if not path.endswith(_CI_ENDINGS):
        return False
    if path.endswith((".yml", ".yaml")) and not ("flows/" in path or ".gitlab-ci." in path or "Taskfile" in path
                                                 or ".taskfiles/" in path):
        return False
    return _CI_FILES.search(path) is not None


_GITHUB_REPO = re.compile(r"\$\{\{\s*github\.(repository|repository_owner|event\.repository\.name)\s*\}\}")
_CONTINUED = re.compile(r"\\\n[ \t]*")  # a shell line continued on the next


def _spell(said: dict[str, str], match: re.Match[str]) -> str:
    return said[match[1]]


def _github_context(text: str, remotes: AbstractSet[str]) -> list[str]:
    """`${{ github.repository }}` and `${{ github.repository_owner }}` are this repository's: one
    text per GitHub remote with them spelled out (an OCI URL built from them names this
    repository's artifact, never another one of the owner's). No GitHub remote: left as written."""
    if not _GITHUB_REPO.search(text):
        return [text]
    out = []
    for remote in sorted(remotes):
        host, _, path = remote.partition("/")
        owner, _, name = path.partition("/")
        if host == "github.com" and owner and name and "/" not in name:
            said = {"repository": path, "repository_owner": owner, "event.repository.name": name}
            out.append(_GITHUB_REPO.sub(functools.partial(_spell, said), text))
    return out or [text]


def push_conventions(tree: Tree, remotes: AbstractSet[str] = frozenset()) -> list[tuple[re.Pattern[str], str, Push]]:
    """(OCI URL pattern, repo folder, ignore flags) for every artifact the repository's CI pushes: a
    `flux push artifact oci://… --path=DIR` command, or a step of the Flux distribution's push
    action (`uses: controlplaneio-fluxcd/distribution/actions/push`, `with: {repository, path}`;
    pushed with the CLI's default ignore paths)."""
    found = []
    for path in sorted(p for p in tree.blobs if is_ci_file(p)):
        text = tree.read(path).decode("utf-8", "replace")
        if "push artifact" in text:
            text = _with_env(_CONTINUED.sub(" ", text), path)
            masked = "\n".join(_VAR.sub("\0", t) for t in _github_context(text, remotes))  # CI expressions (`${{ … }}`, `$(…)`, `$VAR`) match anything
            for match in _PUSH.finditer(masked):
                folder = _PATH.search(match["rest"])
                if folder is not None:
                    found.append((_wildcard(match["url"]), _folder(folder["path"].replace("\0", "")),
                                  push_flags(match["rest"])))
        if "/actions/push" in text and path.endswith((".yaml", ".yml")):
            for doc in try_docs(text) or []:
                for step in _steps(doc):
                    with_ = step.get("with") or {}
                    if "distribution/actions/push" in str(step.get("uses") or "") and isinstance(with_, dict) \
                            and with_.get("repository"):
                        for repository in _github_context(str(with_["repository"]), remotes):
                            found.append((_wildcard("oci://" + repository), _folder(str(with_.get("path") or ".")),
                                          Push()))
    return found


def _with_env(text: str, path: str) -> str:
    """A workflow's text with `$NAME` / `${NAME}` spelled out from its `env:` maps (workflow,
    jobs, steps): `flux push artifact "$OCI_REPO:…"` names the URL its `env:` sets."""
    if not path.endswith((".yaml", ".yml")):
        return text
    env: dict[str, str] = {}
    for doc in try_docs(text) or []:
        if not isinstance(doc, dict):
            continue
        maps = [doc.get("env")]
        for job in (doc.get("jobs") or {}).values() if isinstance(doc.get("jobs"), dict) else []:
            if isinstance(job, dict):
                maps.append(job.get("env"))
                maps += [step.get("env") for step in job.get("steps") or [] if isinstance(step, dict)]
        for m in maps:
            if isinstance(m, dict):
                env.update({str(k): str(v) for k, v in m.items() if isinstance(v, (str, int)) and str(k) not in env})
    if not env:
        return text
    return re.sub(r"\$\{(\w+)\}|\$(\w+)", lambda m: env.get(m[1] or m[2], m[0]), text)


def _steps(doc: Any) -> list[dict[str, Any]]:
    jobs = doc.get("jobs") if isinstance(doc, dict) else None
    out: list[dict[str, Any]] = []
    for job in (jobs or {}).values() if isinstance(jobs, dict) else []:
        for step in (job or {}).get("steps") or [] if isinstance(job, dict) else []:
            if isinstance(step, dict):
                out.append(step)
    return out


class Sources:
    """Decides, at one revision, which sources are this repository, and makes their views."""

    def __init__(self, tree: Tree, label: str, remotes: set[str], configured: tuple[SourceEntry, ...],
                 workdir: Path, marked: Marked, store: KeptStore | None = None, synced_branch: str | None = None,
                 like: Sources | None = None) -> None:
        """`like`: another revision's Sources of the same run (base, for head), whose answers that
        depend only on files this revision has the same serve it (a fleet's head edits a few files)."""
        self.tree = tree
        self.remotes: set[str] = remotes
        self.like = like if like is not None and like.remotes == remotes else None
        # the paths whose blob (or presence) differs from `like`'s revision
        self._differ = frozenset(p for p, _ in tree.blobs.items() ^ self.like.tree.blobs.items()) \
            if self.like is not None else None
        # the branch the judged revisions are of (--base's), for a bootstrap that does not say its own
        self.synced_branch = synced_branch
        self.marked = marked  # the run's memo of which blobs mention what (gen/guard/repo/marks.py)
        self.label = label
        self.configured = {(e.kind, e.namespace, e.name): e.path for e in configured}
        self.workdir = workdir
        self.pushes: list[tuple[re.Pattern[str], str, Push]] = \
            self.like.pushes if self.like is not None and self._differ is not None \
            and not any(is_ci_file(p) for p in self._differ) else push_conventions(tree, remotes)
        self.store = store  # source-controller's answers kept between runs (flux/sourceignore.py)
        self._views: dict[str, Tree | None] = {}
        self._index: dict[str, list[dict[str, Any]]] | None = None  # kind -> objects, in file order
        self._named: dict[str, dict[tuple[str, str], list[dict[str, Any]]]] = {}  # kind -> by (name, namespace)
        self._layouts: dict[str, list[generator.Layout | str]] = {}  # an ArtifactGenerator's layouts, by spec and sources

    # -- views ------------------------------------------------------------------------------
    def view(self, view_id: str) -> Tree:
        found = self._views.get(view_id)
        assert found is not None, view_id
        return found

    def git_view(self, spec_ignore: str | None, sparse: tuple[str, ...] | None = None) -> str:
        """The artifact of this revision a GitRepository with this spec.ignore and sparseCheckout delivers."""
        view_id = "git" if spec_ignore is None and sparse is None else \
            "git:" + hashlib.sha256(repr((spec_ignore, sparse)).encode()).hexdigest()[:12]
        if view_id not in self._views:
            self._views[view_id] = self._as_like(view_id) or \
                views.artifact(self.tree, "", spec_ignore, self.store, sparse=sparse)
        return view_id

    def _as_like(self, view_id: str) -> Tree | None:
        """The whole revision's artifact without spec.ignore, when `like`'s is its revision's own
        folder (nothing ignored) and this revision has the very paths, symlinks and .sourceignore
        files: source-controller's answer is a function of those alone (gen/guard/flux/sourceignore.py)."""
        other = self.like._views.get(view_id) if self.like is not None and view_id == "git" else None
        if other is None or self.like is None or self._differ is None or other.root != self.like.tree.root \
                or self.tree.links or self.like.tree.links \
                or any(p not in self.tree.blobs or p not in self.like.tree.blobs or p.endswith(IGNORE_FILE)
                       for p in self._differ):
            return None
        return Tree(self.tree.commit, self.tree.root, dict(self.tree.blobs), self.tree.entries, {},
                    checkout=self.tree.checkout)

    def _folder_view(self, folder: str, push: Push | None = None, spec_ignore: str | None = None) -> str | None:
        """A folder of the revision as an artifact (`push`: as `flux push artifact` pushes it)."""
        view_id = f"dir:{folder}"
        if push is not None or spec_ignore is not None:
            view_id += ":" + hashlib.sha256(repr((push, spec_ignore)).encode()).hexdigest()[:12]
        if view_id not in self._views:
            self._views[view_id] = views.artifact(self.tree, folder, spec_ignore, self.store, push)
        return view_id if self._views[view_id] is not None else None

    # -- lookup -----------------------------------------------------------------------------
    def _lookup(self, ref: SourceRef, known: ClusterSources) -> dict[str, Any] | None:
        """The source object: from the cluster's builds, else the one file in the repo that
        defines it (builds that produce no Kustomization are not run in untouched clusters)."""
        if ref in known:
            return known[ref]
        if ref[0] not in self._named:  # a fleet asks hundreds of times: indexed once per kind
            named = self._named[ref[0]] = {}
            for doc in self._indexed(ref[0]):
                meta = doc.get("metadata") or {}
                named.setdefault((str(meta.get("name") or ""), str(meta.get("namespace") or "")), []).append(doc)
        named = self._named[ref[0]]
        pick = named.get((ref[2], ref[1])) or named.get((ref[2], ""), [])  # its namespace, else none given
        return pick[0] if len(pick) == 1 else None

    def _indexed(self, kind: str) -> list[dict[str, Any]]:
        """Every source object of `kind` written in the repository's files, in path order."""
        if self._index is None:
            self._index = {}
            for path in sorted(self.tree.blobs):
                if path.endswith((".yaml", ".yml")) and self.marked(self.tree, path, _MARKS):
                    for doc in file_docs(self.tree, path) or []:
                        key = source_key(doc)
                        if key is not None:
                            self._index.setdefault(key[0], []).append(doc)
        return self._index.get(kind, [])

    def foreign(self, ref: SourceRef, known: ClusterSources) -> str:
        """Why a guessed root's own source is another repository ("" when nothing says so): a
        GitRepository written here with a URL that is none of this clone's remotes. A guessed
        root is no bootstrap, so its source is not this repository by being its source."""
        if ref in self.configured or ref[0] != "GitRepository" or not self.remotes:
            return ""
        obj = self._lookup(ref, known)
        url = str(((obj or {}).get("spec") or {}).get("url") or "")
        if obj is None or not url or normalize_url(url) in self.remotes:
            return ""
        other = elsewhere(url, self.remotes, ref[0])
        return f"source {ref[0]} {ref[1]}/{ref[2]} is not this repository ({url})" + (f": {other}" if other else "")

    def deliver(self, ref: SourceRef, root: SourceRef, known: ClusterSources, depth: int = 0) -> Delivery:
        """Is `ref` this repository at this revision, and which view does it deliver?"""
        kind, namespace, name = ref
        where = f"{kind} {namespace}/{name}"
        if ref in self.configured:
            oci = kind == "OCIRepository"  # pushed how is not said: with the CLI's defaults
            ignore = ((self._lookup(ref, known) or {}).get("spec") or {}).get("ignore") if oci else None
            view = self._folder_view(self.configured[ref], Push() if oci else None,
                                     ignore if isinstance(ignore, str) else None)
            return Delivery(view) if view else Delivery(None, f"{where}: folder {self.configured[ref]!r} of "
                                                              f".coredns-gen.yaml guard.sources is not in this revision")
        obj = self._lookup(ref, known)
        spec = (obj or {}).get("spec") or {}
        if kind == "GitRepository":
            ignore = spec.get("ignore") if isinstance(spec.get("ignore"), str) else None
            sparse = _sparse(spec.get("sparseCheckout"))
            included = _included(spec.get("include"))
            if included:  # (checked out, then the includes copied in, then archived: reconcileInclude)
                return Delivery(None, f"source {where} copies other sources' artifacts into its own "
                                      f"(spec.include: {included}), which this repository does not hold")
            if ref == root:
                return Delivery(self.git_view(ignore, sparse))
            if obj is None:
                return Delivery(None, f"source {where} is not defined in this repository")
            url = normalize_url(str(spec.get("url") or ""))
            root_obj = self._lookup(root, known) if root[0] == "GitRepository" else None
            root_spec = (root_obj or {}).get("spec") or {}
            ours = self.remotes | ({normalize_url(str(root_spec["url"]))} if root_spec.get("url") else set())
            if url not in ours:
                other = elsewhere(url, self.remotes, kind)
                return Delivery(None, f"source {where} is not this repository ({spec.get('url')})" +
                                (f": {other}" if other else ""))
            if root_spec.get("ref") and spec.get("ref") and git_revision(spec["ref"]) != git_revision(root_spec["ref"]):
                return Delivery(None, f"source {where} tracks {spec.get('ref')} of this repository, "
                                      f"not the revision its cluster syncs")
            if spec.get("ref") and not root_spec.get("ref") and git_revision(spec["ref"]) != ("branch", self.synced_branch):
                # the bootstrap does not say which revision the cluster syncs (a placeholder, a script):
                # the branch judged is --base's; another ref of this repository is another revision
                judged = f"branch {self.synced_branch} (--base)" if self.synced_branch else \
                    NO_BRANCH
                return Delivery(None, f"source {where} tracks {spec.get('ref')} of this repository, and what is "
                                      f"judged is {judged}")
            return Delivery(self.git_view(ignore, sparse))
        if kind == "OCIRepository":
            url = normalize_url(str(spec.get("url") or ""))
            ignore = spec.get("ignore") if isinstance(spec.get("ignore"), str) else None
            for pattern, folder, push in self.pushes:
                if url and pattern.match(url):
                    view = self._folder_view(folder, push, ignore)
                    if view:
                        return Delivery(view)
            other = elsewhere(url, self.remotes, kind)
            if other:
                return Delivery(None, f"source {where} is another repository's OCI artifact ({spec.get('url')}): {other}")
            return Delivery(None, f"source {where} is an OCI artifact; which folder of this repository it is "
                                  "built from is not known (map it in .coredns-gen.yaml guard.sources, or push it "
                                  "with `flux push artifact --path=DIR` in this repository's CI)")
        if kind == "ExternalArtifact":
            return self._external(ref, root, known, depth)
        return Delivery(None, f"source {where} is not this repository")

    def external_files(self, ref: SourceRef, root: SourceRef, known: ClusterSources) -> frozenset[str]:
        """The repository files that the ArtifactGenerators making ExternalArtifact `ref` copy from
        sources of this repository, whether or not every source of theirs is this repository: what
        of a chart made of it comes from here (nothing is laid out on disk)."""
        _, namespace, name = ref
        gens = [obj for key, obj in sorted(known.items()) if key[0] == "ArtifactGenerator" and key[1] == namespace] or \
            [obj for obj in self._indexed("ArtifactGenerator")
             if str((obj.get("metadata") or {}).get("namespace") or namespace) == namespace]
        out: set[str] = set()
        for gen in gens:
            spec = gen.get("spec") or {}
            arts = [a for a in spec.get("artifacts") or [] if isinstance(a, dict) and a.get("name") == name]
            if not arts:
                continue
            aliases: dict[str, Tree] = {}
            for src in spec.get("sources") or []:
                if isinstance(src, dict):
                    sref = (str(src.get("kind") or ""), str(src.get("namespace") or namespace), str(src.get("name") or ""))
                    got = self.deliver(sref, root, known, 1)
                    if got.view is not None:
                        aliases[str(src.get("alias") or "")] = self.view(got.view)
            for op in (op for art in arts for op in art.get("copy") or []):
                laid = generator.lay_out(aliases, [op])
                if isinstance(laid, generator.Layout):
                    out.update(view.repo_path(path) for view, path in laid.files.values())
        return frozenset(out)

    def _external(self, ref: SourceRef, root: SourceRef, known: ClusterSources, depth: int) -> Delivery:
        """The ArtifactGenerator output `ref`: the cluster's own generator, else the repository's
        only one that makes it (each cluster of a fleet may split the repository its own way)."""
        kind, namespace, name = ref
        where = f"{kind} {namespace}/{name}"

        def makes(gen: dict[str, Any]) -> list[dict[str, Any]]:
            arts = (gen.get("spec") or {}).get("artifacts") or []
            return [a for a in arts if isinstance(a, dict) and a.get("name") == name]

        def in_namespace(gen: dict[str, Any]) -> bool:
            return str((gen.get("metadata") or {}).get("namespace") or namespace) == namespace

        found = [(obj, art) for key, obj in sorted(known.items())
                 if key[0] == "ArtifactGenerator" and key[1] == namespace for art in makes(obj)]
        if not found:
            found = [(obj, art) for obj in self._indexed("ArtifactGenerator") if in_namespace(obj) for art in makes(obj)]
            if len({json.dumps(a, sort_keys=True) for _, a in found}) > 1:
                return Delivery(None, f"source {where}: {len(found)} ArtifactGenerators of this repository make it "
                                      "differently, and none is in this cluster's builds")
        if not found:
            return Delivery(None, f"source {where}: no ArtifactGenerator of this repository makes it")
        gen, art = found[0]
        spec = gen.get("spec") or {}
        aliases: dict[str, Tree] = {}
        chosen: list[str] = []
        missing: dict[str, str] = {}  # alias -> why its source is not this repository
        for src in spec.get("sources") or []:
            if not isinstance(src, dict) or depth > 3:
                continue
            sref = (str(src.get("kind") or ""), str(src.get("namespace") or namespace), str(src.get("name") or ""))
            got = self.deliver(sref, root, known, depth + 1)
            if got.view is not None:
                aliases[str(src.get("alias") or "")] = self.view(got.view)
                chosen.append(f"{src.get('alias')}={got.view}")
            else:
                missing[str(src.get("alias") or "")] = got.reason
        for op in art.get("copy") or []:
            alias = str(op.get("from") or "")[1:].partition("/")[0] if isinstance(op, dict) else ""
            if alias in missing:
                return Delivery(None, f"source {where}: its ArtifactGenerator copies from @{alias}, which is not a "
                                      f"source of this repository ({missing[alias]})")
        layouts = self._generated(gen, aliases, chosen)
        arts = [a for a in spec.get("artifacts") or [] if isinstance(a, dict)]
        meta = gen.get("metadata") or {}
        who = f"ArtifactGenerator {meta.get('namespace') or namespace}/{meta.get('name')}"
        failing = _first_failure(arts, layouts, art)
        if failing is not None:
            # source-watcher builds the artifacts in order and stops at the first that fails: this
            # one and every later one keep the artifact they had (the controller's reconcile)
            failed, why = failing
            return Delivery(None, f"source {where}: {who} fails on artifact {failed} ({why}), {GENERATOR_FAILS}")
        digest = hashlib.sha256(json.dumps([art, chosen], sort_keys=True).encode()).hexdigest()[:12]
        view_id = f"ea:{namespace}/{name}:{digest}"
        if self._views.get(view_id) is None:
            laid = layouts[next(i for i, a in enumerate(arts) if a is art)]
            assert isinstance(laid, generator.Layout)
            self._views[view_id] = views.materialize(laid, self.workdir / self.label / view_id.replace("/", "_").replace(":", "_"),
                                                     self.tree.commit, self.store)
        return Delivery(view_id)

    def _generated(self, gen: dict[str, Any], aliases: dict[str, Tree], chosen: list[str]) -> list[generator.Layout | str]:
        """Each artifact of an ArtifactGenerator laid out from these sources, in its order (once a run)."""
        key = hashlib.sha256(json.dumps([gen.get("spec"), chosen], sort_keys=True, default=str).encode()).hexdigest()
        found = self._layouts.get(key)
        if found is None:
            arts = [a for a in (gen.get("spec") or {}).get("artifacts") or [] if isinstance(a, dict)]
            found = self._layouts[key] = [generator.lay_out(aliases, list(a.get("copy") or [])) for a in arts]
        return found


def _first_failure(arts: list[dict[str, Any]], layouts: list[generator.Layout | str],
                   art: dict[str, Any]) -> tuple[str, str] | None:
    """The first artifact up to `art` (in the generator's order) whose layout fails, and why."""
    for earlier, laid in zip(arts, layouts, strict=True):
        if isinstance(laid, str):
            return str(earlier.get("name")), laid
        if earlier is art:
            break
    return None
