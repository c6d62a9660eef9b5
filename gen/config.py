"""The repository config file `.coredns-gen.yaml`: what a GitOps repo tells every command once.

    values:            # globs of values files, used when `render` gets no VALUES arguments
      - dns/*.yaml
    guard:
      allow: []        # deliberate removals the guard reports as allowed (see docs/guard.md)
      scope: all       # all (default): refuse every ConfigMap removal; dns: only cluster DNS objects
      clusters:        # optional: the clusters, when `flux bootstrap` files do not say it
        - name: prod
          root: clusters/prod/flux-system/gotk-sync.yaml   # file with its root Flux Kustomization
          platform: talos                                   # optional: what the cluster runs
        - name: lab                # or: the folder a bootstrap outside git applies (flux bootstrap
          path: clusters/lab       # --path=clusters/lab; `apply: kubectl` for kubectl apply -k)
      sources:         # optional: sources whose artifact is a folder of this repository
        - source: OCIRepository/flux-system/flux-system
          path: kubernetes/
    lint:
      plugins: [k8s_gateway]   # plugins compiled into your CoreDNS build (lint accepts them)

Hooks and CI call `coredns-gen render --check` without arguments and find the files here.
"""

from __future__ import annotations

import os
import posixpath
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from gen.boundary import GIT, Boundary, Outside, inside
from gen.errors import Problem, UsageError, quote
from gen.document import read_mapping

CONFIG_NAME = ".coredns-gen.yaml"


@dataclass(frozen=True)
class ClusterEntry:
    """A cluster the user names: its root file (repo-relative posix), or the folder its bootstrap
    applies from outside git (`path`, with `apply` flux or kubectl), and, optionally, platform."""

    name: str
    root: str
    platform: str | None = None
    path: str | None = None  # when set, `root` is empty: the cluster is this folder's bootstrap
    apply: str = "flux"  # flux: a Flux Kustomization of `path` (prunes); kubectl: kubectl apply -k


@dataclass(frozen=True)
class SourceEntry:
    """A Flux source (`Kind/namespace/name`) whose artifact is `path` of this repository."""

    kind: str
    namespace: str
    name: str
    path: str  # repo-relative posix folder, "" for the root


@dataclass(frozen=True)
class Config:
    values: tuple[str, ...] = ()
    guard_allow: tuple[str, ...] = ()
    guard_clusters: tuple[ClusterEntry, ...] = ()
    guard_sources: tuple[SourceEntry, ...] = ()
    guard_scope: Literal["all", "dns"] = "all"
    guard_charts: dict[str, str] = field(default_factory=dict)  # chart origin url -> the mirror standing in for it
    lint_plugins: tuple[str, ...] = ()
    raw: Any = None  # the document with `.lc` positions, for line numbers in later checks


def load_config(repo: Path) -> Config:
    """Read `.coredns-gen.yaml` at the repo root; an absent file is an empty config.

    Raises:
        UsageError: the file exists but is not what this docstring describes.
    """
    path = repo / CONFIG_NAME
    if not os.path.lexists(path):
        return Config()
    real = inside(repo, CONFIG_NAME, shown=CONFIG_NAME,
                  hint=f"make {CONFIG_NAME} a regular file of the repository (not a symlink that leads out of it)")
    data = read_mapping(Path(real), CONFIG_NAME)
    problems = []
    unknown = sorted(set(data) - {"values", "guard", "lint"})
    for key in unknown:
        line, col = data.lc.key(key)
        problems.append(Problem(f"unknown key '{key}'", file=CONFIG_NAME, line=line + 1, col=col + 1, key=key,
                                hint="allowed keys: values, guard, lint"))
    lint = data.get("lint") or {}
    plugins = lint.get("plugins", []) if isinstance(lint, dict) and set(lint) <= {"plugins"} else None
    if not isinstance(plugins, list) or not all(isinstance(p, str) and p for p in plugins):
        problems.append(Problem("expected `lint: {plugins: [NAME, ...]}`", file=CONFIG_NAME, key="lint",
                                hint="e.g. lint: {plugins: [k8s_gateway]}"))
        plugins = []
    values = data.get("values", [])
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        problems.append(Problem("expected a list of glob patterns", file=CONFIG_NAME, key="values", hint="e.g. values: [dns/*.yaml]"))
        values = []
    for i, pattern in enumerate(values):
        why = _outside(pattern)
        if why:
            line, col = data["values"].lc.item(i)
            problems.append(Problem(f"{quote(pattern)} {why}", file=CONFIG_NAME, line=line + 1, col=col + 1, key=f"values[{i}]",
                                    hint="write a glob relative to the repository root with forward slashes, e.g. dns/*.yaml"))
    guard = data.get("guard") or {}
    if not isinstance(guard, dict):
        problems.append(Problem("expected a mapping", file=CONFIG_NAME, key="guard", hint="e.g. guard: {allow: []}"))
        guard = {}
    for key in sorted(set(guard) - {"allow", "charts", "clusters", "sources", "scope"}):
        problems.append(Problem(f"unknown key '{key}'", file=CONFIG_NAME, key=f"guard.{key}",
                                hint="allowed keys: allow, charts, clusters, scope, sources"))
    charts = chart_mirrors(guard.get("charts") or {}, "guard.charts", problems)
    scope = guard.get("scope", "all")
    if scope not in ("all", "dns"):
        line = guard.lc.key("scope")[0] + 1 if hasattr(guard, "lc") else None
        problems.append(Problem(f"scope {quote(str(scope))} is not all or dns", file=CONFIG_NAME, line=line, key="guard.scope",
                                hint="write `scope: dns` to refuse only changes to cluster DNS objects, or `scope: all` (the default)"))
        scope = "all"
    allow = guard.get("allow", [])
    if not isinstance(allow, list) or not all(isinstance(a, str) for a in allow):
        problems.append(Problem("expected a list of object ids", file=CONFIG_NAME, key="guard.allow",
                                hint="e.g. allow: [kube-system_coredns-custom__ConfigMap]"))
        allow = []
    clusters = _entries(guard.get("clusters", []), "guard.clusters", {"name"}, {"root", "path", "apply", "platform"},
                        problems)
    sources = _entries(guard.get("sources", []), "guard.sources", {"source", "path"}, set(), problems)
    cluster_entries = []
    for i, c in enumerate(clusters):
        if ("root" in c) == ("path" in c) or c.get("apply", "flux") not in ("flux", "kubectl") or \
                ("apply" in c and "path" not in c):
            problems.append(Problem("give either root (the file of its root Flux Kustomization) or path (the folder its "
                                    "bootstrap applies, with apply: flux or kubectl)", file=CONFIG_NAME,
                                    key=f"guard.clusters[{i}]", hint="e.g. {name: prod, root: clusters/prod/flux-system/"
                                    "gotk-sync.yaml} or {name: lab, path: clusters/lab}"))
            continue
        if "path" in c:
            cluster_entries.append(ClusterEntry(c["name"], "", c.get("platform"),
                                                _repo_path(c["path"], f"guard.clusters[{i}].path", problems),
                                                c.get("apply", "flux")))
        else:
            cluster_entries.append(ClusterEntry(c["name"], _repo_path(c["root"], f"guard.clusters[{i}].root", problems),
                                                c.get("platform")))
    source_entries = []
    for i, entry in enumerate(sources):
        parts = entry["source"].split("/")
        if len(parts) != 3 or not all(parts):
            problems.append(Problem(f"'{entry['source']}' is not Kind/namespace/name", file=CONFIG_NAME,
                                    key=f"guard.sources[{i}].source", hint="e.g. source: OCIRepository/flux-system/flux-system"))
            continue
        source_entries.append(SourceEntry(parts[0], parts[1], parts[2],
                                          _repo_path(entry["path"], f"guard.sources[{i}].path", problems)))
    if problems:
        raise UsageError(problems)
    return Config(values=tuple(values), guard_allow=tuple(allow), guard_clusters=tuple(cluster_entries),
                  guard_sources=tuple(source_entries), guard_scope="dns" if scope == "dns" else "all",
                  guard_charts=charts, lint_plugins=tuple(plugins), raw=data)


ORIGINS = ("https://", "http://", "oci://")
MIRRORS = ("https://", "http://", "oci://", "oci+http://", "file:")


def chart_mirrors(raw: Any, key: str, problems: list[Problem], file: str | None = CONFIG_NAME) -> dict[str, str]:
    """`guard.charts` (or --chart-mirror): chart origin url -> the mirror the guard fetches from
    instead (a chart repository or registry url, `oci+http://` for a registry spoken to in plain
    HTTP, `file:FOLDER` for a folder holding a repository's index.yaml and archives)."""
    hint = ("e.g. charts: {oci://ghcr.io/bjw-s-labs/helm: oci://mirror.example.com/bjw-s, "
            "https://charts.example.org: file:ci/charts}")
    if not isinstance(raw, dict):
        problems.append(Problem("expected a mapping of chart origin url to mirror", file=file, key=key, hint=hint))
        return {}
    out: dict[str, str] = {}
    for origin, mirror in raw.items():
        if not isinstance(origin, str) or not origin.startswith(ORIGINS):
            problems.append(Problem(f"{quote(str(origin))} is not a chart repository url (https://, http:// or oci://)",
                                    file=file, key=key, hint=hint))
        elif not isinstance(mirror, str) or not mirror.startswith(MIRRORS) or mirror in MIRRORS:
            problems.append(Problem(f"the mirror of {quote(origin)} is not a url (https://, http://, oci://, oci+http://) "
                                    "or file:FOLDER", file=file, key=f"{key}.{origin}", hint=hint))
        else:
            out[origin.rstrip("/")] = mirror
    return out


def _entries(raw: Any, key: str, required: set[str], optional: set[str], problems: list[Problem]) -> list[dict[str, str]]:
    """A list of mappings with string values and exactly the keys given (required + optional)."""
    example = ", ".join(f"{k}: …" for k in sorted(required))
    if not isinstance(raw, list):
        problems.append(Problem("expected a list", file=CONFIG_NAME, key=key, hint=f"e.g. - {{{example}}}"))
        return []
    out = []
    for i, item in enumerate(raw):
        where = f"{key}[{i}]"
        if not isinstance(item, dict) or not all(isinstance(v, str) and v for v in item.values()):
            problems.append(Problem("expected a mapping of non-empty strings", file=CONFIG_NAME, key=where,
                                    hint=f"e.g. {{{example}}}"))
            continue
        missing, unknown = required - set(item), set(item) - required - optional
        if missing or unknown:
            problems.append(Problem(f"missing {', '.join(sorted(missing))}" if missing else f"unknown key {', '.join(sorted(unknown))}",
                                    file=CONFIG_NAME, key=where, hint=f"keys: {', '.join(sorted(required | optional))}"))
            continue
        out.append({str(k): str(v) for k, v in item.items()})
    return out


def _repo_path(raw: str, key: str, problems: list[Problem]) -> str:
    """A repo-relative posix path (the repository boundary holds: no absolute path, no `..`)."""
    norm = posixpath.normpath(raw.strip().removeprefix("./")) if raw.strip() not in ("", ".", "./") else "."
    if posixpath.isabs(raw) or "\\" in raw or norm == ".." or norm.startswith("../"):
        problems.append(Problem(f"'{raw}' is not a path inside the repository", file=CONFIG_NAME, key=key,
                                hint="give a path relative to the repository root, e.g. clusters/prod/flux-system/gotk-sync.yaml"))
        return ""
    return "" if norm == "." else norm


def _outside(pattern: str) -> str | None:
    """Why a glob could reach outside the repository root (None: it cannot)."""
    if "\\" in pattern:
        return "contains a backslash"
    if pattern.startswith("/") or os.path.isabs(pattern):
        return "is an absolute path"
    if ".." in pattern.split("/"):
        return "leaves the repository (`..`)"
    if not pattern.strip():
        return "is empty"
    return None


def values_from_config(repo: Path) -> list[Path]:
    """Expand the `values:` globs (sorted, de-duplicated) relative to the repo root. A glob that
    could leave the repository was refused by load_config; a match under a `.git` folder is
    not a values file; a match that resolves outside the repository (a symlink, or a folder
    that is one) or into `.git` is refused (exit 2) before anything reads it.

    Raises:
        UsageError: a match resolves outside the repository or into `.git`.
    """
    config = load_config(repo)
    boundary = Boundary(repo)
    found: set[Path] = set()
    problems = []
    for i, pattern in enumerate(config.values):
        for match in repo.glob(pattern):
            rel = match.relative_to(repo)
            if match.name.startswith(".") or any(part.lower() == GIT for part in rel.parts):
                continue
            try:
                boundary.real(rel)
            except Outside as why:
                problems.append(Problem(f"{quote(pattern)} matches {rel.as_posix()}, which {why}", file=CONFIG_NAME, key=f"values[{i}]",
                                        hint="remove the symlink, or narrow the glob so it matches files of the repository only"))
                continue
            try:
                mode = match.stat().st_mode
            except OSError:
                continue  # gone since the glob listed it, or a dangling link: nothing to render
            if stat.S_ISREG(mode):
                found.add(match)
            elif not stat.S_ISDIR(mode):  # a FIFO, socket or device: said, never opened or skipped silently
                problems.append(Problem(f"{quote(pattern)} matches {rel.as_posix()}, which is not a regular file "
                                        "(a FIFO, socket or device)", file=CONFIG_NAME, key=f"values[{i}]",
                                        hint="remove it, or narrow the glob so it matches values files only"))
    if problems:
        raise UsageError(problems)
    return sorted(found)
