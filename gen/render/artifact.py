"""Whether Flux's artifact holds what `render` writes: source-controller's ignore rules, asked of
source-controller's own code.

kustomize-controller builds from the artifact source-controller makes of a revision, never from
the whole repository: every `.sourceignore` and the GitRepository's `spec.ignore` leave files
out, and a `spec.sparseCheckout` leaves every path it does not name off the disk before that
(sparse_keeps). An overlay (or the Flux file) they leave out renders, commits, and is never
applied, so render refuses it at the values file, naming the rule. The answer comes from the helper
(`coredns-gen-corefile artifact`, fluxcd/pkg/sourceignore, as the guard asks it), which also says
which pattern decides (the last one that matches, as gitignore's matcher decides).
"""

from __future__ import annotations

import functools
import os
from typing import NamedTuple

import yaml

from gen.tools import ask_artifact

IGNORE_FILE = ".sourceignore"
_SKIP = {".git"}  # LoadIgnorePatterns never reads below .git


def sparse_keeps(path: str, sparse: tuple[str, ...]) -> bool:
    """Whether a GitRepository's `spec.sparseCheckout` checks `path` out: source-controller trims a
    leading `./` from each entry and hands them to go-git, whose index keeps an entry whose name
    starts with one of them (plumbing/format/index Index.SkipUnless: a plain prefix, not a folder
    match) and marks every other one skip-worktree, so it is never on disk nor in the artifact."""
    return any(path.startswith(entry) for entry in sparse)


class Rule(NamedTuple):
    """Where the pattern that leaves a file out is written: a .sourceignore's repository path
    and line, a GitRepository manifest's `spec.ignore` line, or source-controller's own
    defaults (`file` "defaults" or "vcs", line 0)."""

    file: str
    line: int
    pattern: str

    def __str__(self) -> str:
        if self.line == 0:
            return f"source-controller's default exclusion `{self.pattern}`"
        return f"{self.file}:{self.line} `{self.pattern}`"


class Source(NamedTuple):
    """A GitRepository written in the repository: where, and its spec.ignore (None: not set)."""

    file: str
    line: int  # of spec.ignore's first pattern line, else of the object
    name: str
    namespace: str | None
    ignore: str | None
    sparse: tuple[str, ...] | None = None  # spec.sparseCheckout, each entry's `./` trimmed
    sparse_line: int = 0  # of spec.sparseCheckout


class Tree(NamedTuple):
    ignore_files: dict[str, str]  # repository path of each .sourceignore -> its text
    sources: tuple[Source, ...]


def _git_repositories(rel: str, text: str) -> list[Source]:
    """The GitRepository objects of one manifest file (a file YAML cannot read holds none we can use)."""
    out = []
    try:
        nodes = list(yaml.compose_all(text, Loader=yaml.CSafeLoader))
    except (yaml.YAMLError, RecursionError):  # (nesting past libyaml's or Python's limit: no object we can use)
        return []
    for node in nodes:
        if not isinstance(node, yaml.MappingNode):
            continue
        top = {k.value: v for k, v in node.value if isinstance(k, yaml.ScalarNode)}
        kind, api = top.get("kind"), top.get("apiVersion")
        if not (isinstance(kind, yaml.ScalarNode) and kind.value == "GitRepository" and isinstance(api, yaml.ScalarNode)
                and api.value.startswith("source.toolkit.fluxcd.io/")):
            continue
        meta, spec = top.get("metadata"), top.get("spec")
        fields = {k.value: v for k, v in meta.value if isinstance(k, yaml.ScalarNode)} if isinstance(meta, yaml.MappingNode) else {}
        name, namespace = fields.get("name"), fields.get("namespace")
        if not isinstance(name, yaml.ScalarNode):
            continue
        ignore, line = None, node.start_mark.line + 1
        sparse: tuple[str, ...] | None = None
        sparse_line = 0
        if isinstance(spec, yaml.MappingNode):
            for k, v in spec.value:
                if isinstance(k, yaml.ScalarNode) and k.value == "ignore" and isinstance(v, yaml.ScalarNode):
                    ignore = v.value
                    block = v.style in ("|", ">")  # a block scalar's text starts on the line after its indicator
                    line = v.start_mark.line + (2 if block else 1)
                elif isinstance(k, yaml.ScalarNode) and k.value == "sparseCheckout" and isinstance(v, yaml.SequenceNode):
                    entries = tuple(e.value.removeprefix("./") for e in v.value if isinstance(e, yaml.ScalarNode))
                    sparse, sparse_line = (entries or None), k.start_mark.line + 1
        out.append(Source(rel, line, name.value, namespace.value if isinstance(namespace, yaml.ScalarNode) else None, ignore,
                          sparse, sparse_line))
    return out


@functools.lru_cache(maxsize=8)
def tree(repo: str) -> Tree:
    """Every .sourceignore of the working tree and every GitRepository its manifests define
    (read once per run: a fleet asks for each cluster)."""
    ignore_files: dict[str, str] = {}
    sources: list[Source] = []
    for folder, dirs, names in os.walk(repo):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP)
        rel_folder = os.path.relpath(folder, repo).replace(os.sep, "/")
        prefix = "" if rel_folder == "." else rel_folder + "/"
        for name in sorted(names):
            path = os.path.join(folder, name)
            if name == IGNORE_FILE and os.path.isfile(path):
                with open(path, encoding="utf-8", errors="replace") as handle:
                    ignore_files[prefix + name] = handle.read()
            elif name.endswith((".yaml", ".yml")) and os.path.isfile(path):
                with open(path, "rb") as raw:
                    data = raw.read()
                if b"GitRepository" in data:
                    sources += _git_repositories(prefix + name, data.decode("utf-8", "replace"))
    return Tree(ignore_files, tuple(sources))


def left_out(files: list[str], ignore_files: dict[str, str], spec_ignore: str | None) -> dict[str, Rule | None]:
    """The files (repository paths) the artifact would not hold, each with the rule that leaves
    it out (None: the helper could not trace the patterns to their lines).

    Raises:
        ToolError: the helper is missing or failed (exit 3: the answer is source-controller's).
    """
    answer = ask_artifact({"id": "1", "files": sorted(files), "ignore_files": ignore_files,
                           "spec_ignore": spec_ignore, "explain": True},
                          "which files a GitRepository's artifact holds is source-controller's answer")
    kept = {str(p) for p in answer["kept"]} if isinstance(answer["kept"], list) else set()
    found = answer.get("excluded")
    traced: dict[str, object] = found if isinstance(found, dict) else {}
    out: dict[str, Rule | None] = {}
    for path in files:
        if path in kept:
            continue
        rule = traced.get(path)
        out[path] = Rule(str(rule["file"]), int(rule["line"]), str(rule["pattern"])) if isinstance(rule, dict) else None
    return out


class Asked(NamedTuple):
    """One values file's rendered paths and the source its Kustomization builds from."""

    source: str  # the values file, as shown
    folder: str  # the overlay folder
    files: tuple[str, ...]  # the overlay's rendered files
    output: str  # the Flux file
    kind: str  # of the source
    name: str
    namespace: str
    rendered: bool  # the source is rendered by coredns-gen (flux.source.url): no spec.ignore
    named: bool  # flux.source names it (else bootstrap's GitRepository flux-system)


def judge(asked: list[Asked], repo: str) -> tuple[list[tuple[Asked, str, str, Rule | None, str]], list[str]]:
    """((asked, path, what, rule, source) for each rendered path the artifact leaves out, notices).

    `what` is "overlay" or "flux.output"; `source` names the artifact. An OCIRepository's
    artifact is whatever `flux push artifact` was given: not judged, said in a notice. A
    GitRepository not written in the repository: its spec.ignore is unknown, only the
    .sourceignore files are judged, said in a notice when flux.source names it (bootstrap's
    flux-system is often made outside git: not said each render).
    """
    found: list[tuple[Asked, str, str, Rule | None, str]] = []
    notices: list[str] = []
    if not asked:
        return found, notices
    facts = tree(repo)
    groups: dict[tuple[str | None, str], list[tuple[Asked, str, str]]] = {}
    labels: dict[tuple[str | None, str], str] = {}
    sparse_of: dict[tuple[str | None, str], Source] = {}
    for a in asked:
        if a.kind != "GitRepository":
            notices.append(f"{a.source}: the {a.kind} {a.namespace}/{a.name} holds what `flux push artifact` was given: "
                           f"whether it holds {a.folder}/ is not checked")
            continue
        if a.rendered:
            specs: list[Source | None] = [None]
        else:
            specs = [s for s in facts.sources if s.name == a.name and s.namespace in (None, a.namespace)]
            if not specs and a.named:  # (bootstrap's flux-system, often defined outside git: judged by .sourceignore only)
                notices.append(f"{a.source}: GitRepository {a.namespace}/{a.name} is not defined in this repository: "
                               "its spec.ignore is not known, only the .sourceignore files were checked")
            specs = specs or [None]
        for spec in specs:
            ignore = None if spec is None else spec.ignore
            label = f"GitRepository {a.namespace}/{a.name}" + ("" if spec is None else f" ({spec.file})")
            key = (ignore, label)
            labels[key] = label
            if spec is not None and spec.sparse is not None:
                sparse_of[key] = spec
            for path, what in (*((f, "overlay") for f in a.files), (a.output, "flux.output")):
                if ".git" in path.lower().split("/"):
                    continue  # the writer refuses any path into .git, for what it is
                groups.setdefault(key, []).append((a, path, what))
    for key, items in groups.items():
        ignore, label = key
        spec = next((s for s in facts.sources if s.ignore == ignore and label.endswith(f"({s.file})")), None)
        out = left_out(sorted({path for _, path, _ in items}), facts.ignore_files, ignore)
        sparse = sparse_of.get(key)
        if sparse is not None and sparse.sparse is not None:
            said = "sparseCheckout: [" + ", ".join(sparse.sparse) + "]"
            out = {**out, **{path: Rule(sparse.file, sparse.sparse_line, said) for _, path, _ in items
                             if not sparse_keeps(path, sparse.sparse)}}
        reported: set[tuple[str, str]] = set()
        for a, path, what in items:
            if path in out and (a.source, what) not in reported:  # one problem per key
                reported.add((a.source, what))
                rule = out[path]
                if rule is not None and rule.file == "spec.ignore" and spec is not None:
                    rule = Rule(spec.file, spec.line + rule.line - 1, rule.pattern)
                found.append((a, path, what, rule, labels[key]))
    return found, notices
