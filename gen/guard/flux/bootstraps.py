"""Bootstraps written outside Flux's objects: the scripts and tools in the repository that apply a
cluster's root.

Many repositories never commit `gotk-sync.yaml`: Flux is installed by a Taskfile, a helmfile, a
Makefile, a shell script, a CI workflow or OpenTofu. What those files run is evidence of where each
cluster starts, and the guard reads it instead of guessing a root per file:
- `flux bootstrap <provider> … --path=DIR` and `flux create kustomization NAME … --path=DIR`: a
  Flux Kustomization of `./DIR` from this repository (what bootstrap writes into gotk-sync.yaml);
- `kubectl apply -k DIR` / `--kustomize DIR` / `kustomize build DIR | kubectl apply -f -`: the
  objects of DIR's build, applied once without pruning; the Flux Kustomizations among them are
  the cluster's roots;
- `kubectl apply -f FILE` (or a folder of such files): the Flux Kustomizations written in the
  file, applied once as they are written, are the cluster's roots (a repository that bootstraps
  with `flux bootstrap --path=clusters/base` and then `kubectl apply -f clusters/$NAME/infra.yaml`);
- a `flux-instance` chart release in a helmfile, or in OpenTofu (`.tf`), whose values carry
  `instance.sync`: a FluxInstance, read as if it were written as one;
- an Azure Flux extension configuration (AKS, Azure Arc) in Bicep, an ARM template, Terraform's
  `azurerm_kubernetes_flux_configuration` or `az k8s-configuration flux create` (a script, a
  PowerShell file, a pipeline): a GitRepository `<configuration>` and a Kustomization
  `<configuration>-<kustomization>` per entry, in the configuration's namespace, pruning only where
  written (gen/guard/flux/fluxconfigs.py).
A variable in a path (`{{.CLUSTER}}`, `${CLUSTER}`, `$(…)`) matches every folder of the
repository the rest of the path fits: a Taskfile that bootstraps `clusters/{{.CLUSTER}}` is
evidence for each cluster folder. A line commented out (`#`), a kubectl dry run and `flux create …
--export` run nothing: no evidence.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Iterator, Literal

from gen.errors import Problem, UsageError
from gen.guard.repo.manifests import try_docs
from gen.guard.repo.revision import Tree
from gen.lazy import lazy_module

if TYPE_CHECKING:  # Azure's readers: imported when a script or template names a flux configuration
    from gen.guard.flux import fluxconfigs
    from gen.guard.flux.fluxconfigs import FluxConfig
else:
    fluxconfigs = lazy_module("gen.guard.flux.fluxconfigs")

Form = Literal["flux-bootstrap", "flux-create", "kubectl-apply", "kubectl-apply-file", "flux-instance-chart",
               "flux-configuration"]

SCRIPTS = re.compile(r"(^|/)(\.github/workflows/[^/]+\.ya?ml|\.gitlab-ci\.ya?ml|[Tt]askfile[^/]*\.ya?ml|"
                     r"\.taskfiles/.+\.ya?ml|Makefile|[^/]+\.mk|[Jj]ustfile|\.justfile|[^/]+\.just|[^/]+\.(?:sh|bash)|"
                     r"helmfile[^/]*\.ya?ml(?:\.gotmpl)?|[^/]+\.tf|"
                     r"[^/]+\.ps1|azure-pipelines[^/]*\.ya?ml|\.azure-pipelines/.+\.ya?ml|[^/]+\.bicep|[^/]+\.json)$")
# another project's files kept here (its scripts bootstrap its own example clusters, whose folder
# names, `clusters/staging`, a fleet may share)
# what a path SCRIPTS matches ends with: asked first of a fleet's 10^4 paths (the pattern costs ~2 us a path)
_SCRIPT_ENDINGS = (".yml", ".yaml", "Makefile", ".mk", "ustfile", ".just", ".sh", ".bash", ".gotmpl", ".tf", ".ps1",
                   ".bicep", ".json")


def is_script(path: str) -> bool:
    """SCRIPTS.search(path), without the regular expression for the paths that cannot match: a YAML
    path matches only with one of these words in it (written out: a loop costs more than the pattern)."""
    if not path.endswith(_SCRIPT_ENDINGS):
        return False
    if path.endswith((".yml", ".yaml")) and not ("flows/" in path or ".gitlab-ci." in path or "askfile" in path
                                                 or ".taskfiles/" in path or "helmfile" in path
                                                 or "azure-pipelines" in path):
        return False
    return SCRIPTS.search(path) is not None


_VENDORED = re.compile(r"(^|/)(vendor|third[_-]party|node_modules)/")
_VAR = "__var__"  # a template variable, masked in a helmfile read as YAML (NUL is no YAML character)
_ACTION_LINE = re.compile(r"^[ \t]*(?:\{\{[^}]*\}\}[ \t]*)+$", re.M)  # a line of template actions only
_TEMPLATE = re.compile(r"\{\{[^}]*\}\}|\$\{\{[^}]*\}\}|\$\{[^}]*\}|\$\([^)]*\)|\$[A-Za-z_][A-Za-z0-9_]*")
_BOOTSTRAP = re.compile(r"\bflux\s+bootstrap\s+[a-z]+\b(?P<rest>[^\n;&|]*)")
_CREATE = re.compile(r"\bflux\s+create\s+(?:kustomization|ks)\s+(?P<name>[A-Za-z0-9.-]+)(?P<rest>[^\n;&|]*)")
_PATH_FLAG = re.compile(r"--path[=\s]+[\"']?(?P<path>[^\s\"']+)")
_SOURCE_FLAG = re.compile(r"--source[=\s]+[\"']?(?P<source>[^\s\"']+)")
_APPLY_K = re.compile(r"\bkubectl\s+apply\b[^\n;&|]*?(?:-k|--kustomize)(?:=|\s+)[\"']?(?P<path>[^\s\"']+)")
_APPLY_F = re.compile(r"\bkubectl\s+apply\b(?P<flags>[^\n;&|]*?)(?:-f|--filename)(?:=|\s+)[\"']?(?P<path>[^\s\"']+)"
                      r"(?P<rest>[^\n;&|]*)")
_NAMESPACE_FLAG = re.compile(r"(?:^|\s)(?:-n|--namespace)(?:=|\s+)[\"']?(?P<namespace>[A-Za-z0-9.-]+)")
_RECURSIVE_FLAG = re.compile(r"(?:^|\s)(?:-R|--recursive(?:=true)?)(?=\s|$)")
_MANIFEST = (".yaml", ".yml", ".json")  # what kubectl apply -f reads of a folder
_BUILD_APPLY = re.compile(r"\bkustomize\s+build\s+[\"']?(?P<path>[^\s\"'|]+)[\"']?[^\n|]*\|\s*kubectl\s+apply\b")
# a comment to the end of the line (shell, Makefile, YAML, PowerShell, HCL): at a line's start or
# after a blank, so `$#`, `${#a}` and a URL's fragment stay
_COMMENT = re.compile(r"(?:^|(?<=[ \t]))#[^\n]*", re.M)
# kubectl's dry runs (`--dry-run`, `=client`, `=server`; the old `--server-dry-run`) apply nothing;
# `--dry-run=none` applies
_DRY_RUN = re.compile(r"(?:^|\s)--(?:dry-run(?:=(?:client|server|true))?|server-dry-run)(?=\s|$)")
_EXPORT_FLAG = re.compile(r"(?:^|\s)--export(?:=true)?(?=\s|$)")
_TF_SYNC = re.compile(r"\bsync\s*=\s*\{(?P<body>[^{}]*)\}")
_TF_FIELD = re.compile(r"\b(?P<key>kind|url|ref|path|name)\s*=\s*\"(?P<value>[^\"]*)\"")


def templated(text: str) -> bool:
    """Whether a value written in a script or template holds a variable."""
    return bool(_TEMPLATE.search(text))  # (which matches fluxconfigs.VAR, "${}", the readers' unwritten value)


@dataclass(frozen=True)
class Evidence:
    """One place a bootstrap is written: the file and line, what it runs, and the folder it applies
    (or, for a flux-instance chart, the `instance.sync` its values give)."""

    file: str
    line: int
    form: Form
    path: str  # repo folder synced or applied; "" for the repository root
    name: str = "flux-system"  # the Flux Kustomization (and GitRepository) it makes
    source: str = "flux-system"
    sync: tuple[tuple[str, str], ...] = ()  # a flux-instance chart's instance.sync, as written
    # an Azure fluxConfiguration: the tool that writes it, and what its objects are
    tool: fluxconfigs.Tool | None = None
    namespace: str = "flux-system"
    prune: bool = True
    url: str = ""
    ref: tuple[tuple[str, str], ...] = ()
    kind: str = "GitRepository"
    depends_on: tuple[str, ...] = ()
    variant: str = ""  # the value of the variables in its paths, when they fit several folders

    def describe(self) -> str:
        if self.form == "flux-configuration" and self.tool is not None:
            return (f"{self.file}:{self.line}: {fluxconfigs.TOOL_LABEL[self.tool]} fluxConfiguration "
                    f"{self.namespace}/{self.source}, Kustomization {self.name} of {self.path or './'}"
                    f"{'' if self.prune else ' (prune false)'}")
        what = {"flux-bootstrap": "flux bootstrap --path", "flux-create": "flux create kustomization --path",
                "kubectl-apply": "kubectl apply -k", "kubectl-apply-file": "kubectl apply -f",
                "flux-instance-chart": "flux-instance chart values",
                "flux-configuration": "fluxConfiguration"}[self.form]
        return f"{self.file}:{self.line}: {what} {self.path or './'}"


def scan(tree: Tree) -> list[Evidence]:
    """Every bootstrap the repository's scripts and tools run, in path and line order."""
    found: list[Evidence] = []
    folders = _Folders(tree)
    for path in sorted(p for p in tree.blobs if is_script(p)):  # (sorting a fleet's every path costs more)
        if _VENDORED.search(path):
            continue
        raw = tree.read(path).decode("utf-8", "replace")
        if not any(word in raw for word in ("flux", "kubectl", "kustomize")):
            continue
        if path.endswith((".json", ".bicep")):  # templates, not scripts: only Azure's fluxConfigurations
            if "fluxconfiguration" in raw.lower().replace("-", ""):
                try:
                    configs = (fluxconfigs.arm_configs if path.endswith(".json") else fluxconfigs.bicep_configs)(raw)
                except RecursionError:  # (the JSON decoder's stack limit, the Bicep reader's own)
                    raise UsageError(Problem("nested too deep to read (past Python's recursion limit): whether it "
                                             "creates a fluxConfiguration is unknown", file=path,
                                             hint="keep templates nested a few levels deep (Azure's own limits "
                                                  "are far below this); a generated file need not be committed"))\
                        from None
                found += [ev for c in configs for ev in _configuration(path, c, folders)]
            continue
        # shell (and PowerShell) continuation lines make one command; same length, so offsets stay the file's
        text = re.sub(r"[\\`]\r?\n", lambda m: " " * len(m[0]), raw)
        text = _COMMENT.sub(lambda m: " " * len(m[0]), text)  # a command commented out runs nothing
        for match in _BOOTSTRAP.finditer(text):
            flag = _PATH_FLAG.search(match["rest"])
            if flag is not None:
                found += _at(path, raw.count("\n", 0, match.start()) + 1, "flux-bootstrap", flag["path"], folders)
        for match in _CREATE.finditer(text):
            if _EXPORT_FLAG.search(match["rest"]):
                continue  # writes the object to stdout (a file), applies nothing
            flag = _PATH_FLAG.search(match["rest"])
            source = _SOURCE_FLAG.search(match["rest"])
            if flag is not None:
                src = (source["source"] if source else "flux-system").split("/")[-1]
                found += _at(path, raw.count("\n", 0, match.start()) + 1, "flux-create", flag["path"], folders,
                             name=match["name"], source=src)
        for pattern in (_APPLY_K, _BUILD_APPLY):
            for match in pattern.finditer(text):
                if _dry_run(text, match):
                    continue
                found += _at(path, raw.count("\n", 0, match.start()) + 1, "kubectl-apply", match["path"], folders,
                             relative_to=posixpath.dirname(path))
        for match in _APPLY_F.finditer(text):
            flags = f"{match['flags']} {match['rest']}"
            if _dry_run(text, match):
                continue
            namespace = _NAMESPACE_FLAG.search(flags)
            found += _applied_files(tree, path, raw.count("\n", 0, match.start()) + 1, match["path"],
                                    bool(_RECURSIVE_FLAG.search(flags)), namespace["namespace"] if namespace else "")
        if "flux-instance" in raw:
            found += _instance_chart(tree, path, raw)
        if "k8s-configuration" in raw:
            found += [ev for c in fluxconfigs.az_configs(text, raw) for ev in _configuration(path, c, folders)]
        if path.endswith(".tf") and "fluxconfiguration" in raw.lower().replace("_", ""):
            found += [ev for c in fluxconfigs.terraform_configs(raw) for ev in _configuration(path, c, folders)]
    unique: dict[tuple[str, str, str, str], Evidence] = {}
    for ev in found:
        unique.setdefault((ev.form, ev.path, ev.name, ev.variant), ev)  # the first place that says it
    return list(unique.values())


def _dry_run(text: str, match: re.Match[str]) -> bool:
    """Whether the kubectl command `match` starts is a dry run: its flags up to the command's end."""
    end = re.compile(r"[\n;&|]").search(text, match.end())
    return bool(_DRY_RUN.search(text[match.start():end.start() if end else len(text)]))


class _Folders:
    """Every folder of a revision, listed only when a script names one (a fleet has 10^4 files)."""

    def __init__(self, tree: Tree) -> None:
        self.tree = tree
        self._all: list[str] | None = None

    def __contains__(self, folder: str) -> bool:
        return folder == "" or self.tree.is_dir(folder)

    def __iter__(self) -> Iterator[str]:
        if self._all is None:
            out = {""}
            for path in self.tree.blobs:
                parts = path.split("/")[:-1]
                for i in range(1, len(parts) + 1):
                    out.add("/".join(parts[:i]))
            self._all = sorted(out)
        return iter(self._all)


def _at(file: str, line: int, form: Form, raw_path: str, folders: _Folders, name: str = "flux-system",
        source: str = "flux-system", relative_to: str = "") -> list[Evidence]:
    """Evidence for each existing folder `raw_path` names (a templated path: every fitting one)."""
    text = raw_path.strip().rstrip("/")
    if "://" in text or text.startswith("-"):
        return []
    candidates = [text] if not relative_to or text.startswith("/") else [text, posixpath.join(relative_to, text)]
    for candidate in candidates:
        if _TEMPLATE.search(candidate):
            regex = _folder_pattern(_TEMPLATE.sub("\0", candidate))
            hits = [f for f in folders if f and regex is not None and regex.match(f)]
        else:
            norm = posixpath.normpath(candidate.lstrip("/"))
            norm = "" if norm == "." else norm
            hits = [norm] if norm in folders and not norm.startswith("..") else []
        if hits:
            return [Evidence(file, line, form, hit, name, source) for hit in hits]
    return []


def _applied_files(tree: Tree, script: str, line: int, raw_path: str, recursive: bool,
                   namespace: str) -> list[Evidence]:
    """Evidence for each file of the repository that `kubectl apply -f raw_path` applies and that
    writes a Flux Kustomization (a templated path: every file it fits, a variable one folder
    name); a folder is its manifests (every level with `-R`). `path` is the file; `namespace` the
    one `-n` names ("": kubectl's context namespace, `default` unless the kubeconfig says)."""
    text = raw_path.strip()
    if "://" in text or text.startswith(("-", "/")) or not text:  # a URL, stdin, a path outside the repository
        return []
    text = text.rstrip("/")
    bases = [text, posixpath.join(posixpath.dirname(script), text)]
    for base in bases:
        if _TEMPLATE.search(base):
            regex = _folder_pattern(_TEMPLATE.sub("\0", base))
            named = [f for f in tree.blobs if regex is not None and regex.match(f)]
        else:
            norm = posixpath.normpath(base.lstrip("/"))
            norm = "" if norm == "." else norm
            if norm.startswith(".."):
                continue
            named = [norm] if norm in tree.blobs else []
            if not named and (norm == "" or tree.is_dir(norm)):
                lead = norm + "/" if norm else ""
                named = [f for f in tree.blobs if f.startswith(lead) and f.endswith(_MANIFEST)
                         and (recursive or "/" not in f[len(lead):])]
        hits = [f for f in sorted(named) if f.endswith(_MANIFEST) and b"kustomize.toolkit.fluxcd.io" in tree.read(f)]
        if named:
            return [Evidence(script, line, "kubectl-apply-file", f, namespace=namespace or "default") for f in hits]
    return []


def _configuration(file: str, config: FluxConfig, folders: _Folders) -> list[Evidence]:
    """Evidence for each Kustomization of an Azure fluxConfiguration, named as the extension names
    its objects; a path written only as variables is none. A path with variables fitting several
    folders is one deployment per value (`./apps/${env}`: production, staging), each its own
    cluster (`variant`) with the configuration's other Kustomizations: one cluster never holds
    two Kustomizations of one name."""
    fixed: list[Evidence] = []
    variants: dict[str, list[Evidence]] = {}
    for ks in config.kustomizations:
        name = f"{config.name}-{ks.name}"
        deps = tuple(f"{config.name}-{d}" for d in ks.depends_on)
        path = (ks.path or ".").strip().rstrip("/") or "."
        pattern = _folder_pattern(_TEMPLATE.sub("\0", path)) if templated(path) else None
        for ev in _at(file, config.line, "flux-configuration", path, folders, name=name, source=config.name):
            ev = replace(ev, tool=config.tool, namespace=config.namespace, prune=ks.prune, url=config.url,
                         ref=config.ref, kind=config.kind, depends_on=deps)
            found = pattern.match(ev.path) if pattern is not None else None
            if found is None:
                fixed.append(ev)
            else:
                variants.setdefault(",".join(v.rstrip("/") for v in found.groups()), []).append(ev)
    if len(variants) <= 1:
        return fixed + [ev for evs in variants.values() for ev in evs]
    return [replace(ev, variant=value) for value, evs in sorted(variants.items()) for ev in fixed + evs]


def _folder_pattern(pattern: str) -> re.Pattern[str] | None:
    """A templated path as a pattern over folders: a variable is one folder name, but a leading
    one (`{{.KUBERNETES_DIR}}/flux`) is any prefix; each variable's value is a group. A path of
    variables only says nothing."""
    parts = [p for p in pattern.split("/") if p not in ("", ".")]
    if not any(p and "\0" not in p for p in parts):
        return None
    out = []
    for index, part in enumerate(parts):
        if index == 0 and part == "\0":
            out.append("((?:.+/)?)")
            continue
        out.append("([^/]+)".join(re.escape(p) for p in part.split("\0")) + ("/" if index < len(parts) - 1 else ""))
    return re.compile("".join(out) + r"\Z")


def _instance_chart(tree: Tree, path: str, raw: str) -> list[Evidence]:
    """A flux-instance release in a helmfile (inline values or value files) or OpenTofu."""
    syncs: list[tuple[int, dict[str, Any]]] = []
    if path.endswith(".tf"):
        for match in _TF_SYNC.finditer(raw):
            fields = {m["key"]: m["value"] for m in _TF_FIELD.finditer(match["body"])}
            if "path" in fields:
                syncs.append((raw[: match.start()].count("\n") + 1, fields))
        for ref in re.finditer(r"(?:file|templatefile)\(\s*\"(?:\$\{path\.module\}/)?(?P<file>[^\"$]+)\"", raw):
            target = posixpath.normpath(posixpath.join(posixpath.dirname(path), ref["file"]))
            if tree.is_file(target):
                syncs += [(raw[: ref.start()].count("\n") + 1, s) for s in _values_syncs(tree.read(target).decode("utf-8", "replace"))]
    else:
        text = _TEMPLATE.sub(_VAR, _ACTION_LINE.sub("", raw)) if path.endswith(".gotmpl") else raw
        for doc in try_docs(text) or []:
            releases = doc.get("releases") if isinstance(doc, dict) else None
            for release in releases if isinstance(releases, list) else []:
                # the chart, or (a chart URL templated from the in-cluster manifests) the release's name
                if not isinstance(release, dict) or not (str(release.get("chart") or "").endswith("flux-instance")
                                                         or release.get("name") == "flux-instance"):
                    continue
                named = re.search(r"name:\s*[\"']?" + re.escape(str(release.get("name") or "flux-instance")) + r"\b", raw)
                line = named.start() if named else raw.find(str(release.get("name") or "flux-instance"))
                at = raw[: max(line, 0)].count("\n") + 1
                for value in release.get("values") or []:
                    if isinstance(value, dict):
                        syncs += [(at, s) for s in _sync_of(value)]
                    elif isinstance(value, str):
                        for name in _values_files(tree, path, value):
                            body = tree.read(name).decode("utf-8", "replace")
                            syncs += [(at, s) for s in _values_syncs(_TEMPLATE.sub("", body))]
    out = []
    for line, sync in syncs:
        spath = str(sync.get("path") or "")
        if _TEMPLATE.search(spath):
            continue
        pairs = tuple(sorted((str(k), str(v)) for k, v in sync.items() if isinstance(v, (str, int))))
        norm = posixpath.normpath("/" + spath).lstrip("/")
        out.append(Evidence(path, line, "flux-instance-chart", "" if norm == "." else norm,
                            str(sync.get("name") or "flux-system"), sync=pairs))
    return out


def _values_files(tree: Tree, helmfile: str, value: str) -> list[str]:
    """The files a helmfile's `values:` entry names: relative to the helmfile, or, templated
    (`{{ $rootDir }}/kubernetes/clusters/{{ $clusterId }}/values.yaml`, variables masked as _VAR),
    every file it fits, a variable standing for one folder name and a leading one for the root."""
    # a plain helmfile.yaml (no .gotmpl) may still template a value file's path (helmfile renders
    # `values:` entries of a release): `{{ requiredEnv "ROOT_DIR" }}/…` is masked the same way
    value = _TEMPLATE.sub("\0", value.replace(_VAR, "\0"))
    if "\0" not in value:
        target = posixpath.normpath(posixpath.join(posixpath.dirname(helmfile), value))
        return next(([n] for n in (target, target.removesuffix(".gotmpl")) if tree.is_file(n)), [])
    parts = [p for p in value.split("/") if p not in ("", ".")]
    if parts and parts[0] == "\0":
        parts = parts[1:]  # a root directory variable: the repository's root
    if not parts or not any("\0" not in p for p in parts):
        return []
    regex = re.compile("/".join("[^/]+".join(re.escape(x) for x in p.split("\0")) for p in parts) + r"(?:\.gotmpl)?\Z")
    return sorted(f for f in tree.blobs if regex.match(f))


def _values_syncs(text: str) -> list[dict[str, Any]]:
    return [s for doc in try_docs(text) or [] if isinstance(doc, dict) for s in _sync_of(doc)]


def _sync_of(values: dict[str, Any]) -> list[dict[str, Any]]:
    sync = (values.get("instance") or {}).get("sync") if isinstance(values.get("instance"), dict) else None
    return [sync] if isinstance(sync, dict) and sync.get("path") is not None else []
