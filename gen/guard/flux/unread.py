"""Kustomizations built without a `substituteFrom` source the guard cannot read, and whether it matters.

kustomize-controller reads every `postBuild.substituteFrom` ConfigMap and Secret from the cluster:
it fails the build when one is missing and not `optional`, and substitutes a SOPS Secret's real
values. The guard reads them from the repository (substitution.py); one it cannot read (SOPS-
encrypted, made by an ExternalSecret, not in the repository, defined differently by several files)
is left out of the first build, and its variables come out empty. Which variables the build uses
is Flux's own parser's answer (the helper's `vars`, tools/helper/build/vars.go), and which ones such
a source may set follows Flux's order: `substituteFrom` in order, later sources over earlier ones,
inline `substitute` over all. A build that uses none of them is exact.

One that uses some is built twice more as Flux builds it, each such variable set to one of two
placeholders no repository writes (gen/guard/flux/placeholders.py). What Flux deletes depends only
on what the two builds must agree on: the objects' identities (apiVersion, kind, namespace, name),
Flux's markers on them, the fields of a child Flux Kustomization (path, sourceRef, namespaces,
postBuild: what it builds), of a HelmRelease that name its release and chart, of a Flux source or
Flux Operator object, the data of a ConfigMap or Secret a Kustomization of the cluster substitutes
from, and the files the build read. When they agree, the variable only feeds values
(`calibre.${SECRET_DOMAIN}`): the Kustomization is judged on the first build, and findings and the
Corefile view show the placeholder as `${SECRET_DOMAIN}`. Where a placeholder reaches only plain objects' identities
and the change touches none of the unread sources, the variable has one value at both revisions: it
is judged from its first build with placeholders at both (same_value_at_both). Elsewhere, where a
placeholder reaches one of them, the Kustomization is not judged (gen/guard/unjudged.py): a change to what it reads is refused by
not-judged-touched, naming the variable, the field, the source and how to make it readable.
"""

from __future__ import annotations

import json
import posixpath
import subprocess
from dataclasses import dataclass, field, replace
from typing import Any, Callable

from gen.errors import ToolError
from gen.guard.flux.knowledge import NO_DECRYPTION, RepoValues, gather, lookup
from gen.guard.flux.secrets import KEY_ENV, KEY_FILE_ENV, key_given
from gen.guard.flux.substitution import SOPS
from gen.guard.flux.roots import Candidate
from gen.guard.flux.placeholders import PREFIX, Which, placeholder, shown, variables_in
from gen.guard.model import FLUX_GROUP, HELM_GROUP, Build, KsRef, Node, Revision
from gen.guard.repo.revision import Tree
from gen.tools import HELPER_BUILD_HINT, helper_binary

NOT_FOUND = "not in this repository"


@dataclass(frozen=True)
class Unread:
    """One `substituteFrom` source that cannot be read here."""

    kind: str
    name: str
    why: str
    keys: frozenset[str] | None  # the variables it sets, when known (a SOPS Secret's keys are plain text)

    def __str__(self) -> str:
        return f"{self.kind} {self.name} ({self.why})"

    def fix(self) -> str:
        if self.why.startswith(NO_DECRYPTION):
            applier = self.why[len(NO_DECRYPTION):].strip()
            return (f"add `spec.decryption: {{provider: sops, secretRef: {{name: sops-age}}}}` to Kustomization {applier}: "
                    f"kustomize-controller refuses to apply SOPS Secret {self.name} without it")
        if self.why.startswith(SOPS):
            given = ("" if key_given() else
                     f", or give the guard the CI's age key ({KEY_ENV} or {KEY_FILE_ENV}) to decrypt it as Flux does")
            return (f"keep the variables the build needs that are not secret in a ConfigMap of the repository "
                    f"instead of SOPS Secret {self.name}{given}")
        if self.why == NOT_FOUND:
            return (f"commit {self.kind} {self.name} where a build of this cluster applies it, or mark its substituteFrom "
                    f"entry `optional: true` if the cluster may lack it")
        return f"make {self.kind} {self.name} readable from the repository"


@dataclass(frozen=True)
class Reach:
    """A variable that may come from an unread source, and a field a verdict depends on it reaches."""

    var: str
    field: str  # e.g. "the namespace of ConfigMap ${SECRET_NS}/app" or "spec.path of Kustomization flux-system/x"


@dataclass(frozen=True)
class Blind:
    """A Kustomization built at one revision without some of its substitution inputs."""

    label: str
    ks: KsRef
    unread: tuple[Unread, ...]
    used: tuple[str, ...] = ()  # the variables its build uses that an unread source may set
    error: str = ""  # why Flux's parser could not say which variables it uses, or a build with placeholders failed
    reaches: tuple[Reach, ...] = ()  # where a placeholder reached a field a verdict depends on
    # the build it is judged with: its objects as Flux builds them with a placeholder for each of `used`
    judged_with: Build | None = field(default=None, compare=False)
    # folders whose files it may read besides what its builds read (a child's spec.path a variable reaches)
    folders: tuple[str, ...] = ()
    # where the placeholders reach only the identities of plain objects (no Flux object, no file read):
    # its first build with placeholders, which judges it when the value is the same at both revisions
    identities_only: Build | None = field(default=None, compare=False)

    @property
    def exact(self) -> bool:
        """Its build uses no variable an unread source may set: judged as built."""
        return not self.used and not self.error

    @property
    def judged(self) -> bool:
        """Judged: exactly, or with placeholders that reach nothing a verdict depends on."""
        return not self.error and not self.reaches

    def reason(self) -> str:
        sources = ", ".join(str(u) for u in self.unread)
        if self.error:
            return (f"its postBuild substitutes from {sources}, which cannot be read here, and which variables its "
                    f"build uses, or where they reach, is unknown ({self.error})")
        shown = "; ".join(f"${{{r.var}}} reaches {r.field}" for r in self.reaches[:3]) + \
            (f" (+{len(self.reaches) - 3} more)" if len(self.reaches) > 3 else "")
        return (f"its postBuild substitutes from {sources}, which cannot be read here, and a variable it may set "
                f"decides what Flux applies: {shown}")

    def fix(self) -> str:
        return "; ".join(dict.fromkeys(u.fix() for u in self.unread))


Rebuild = Callable[[list[tuple[Node, tuple[dict[str, Any], ...]]]], list[Build]]


def blind_spots(revision: Revision, other: Revision, candidates: list[Candidate], repo: RepoValues,
                view: Callable[[str], Tree], rebuild: Rebuild) -> list[Blind]:
    """Every judged Kustomization of `revision` built without a source it substitutes from, with the
    variables its build uses that such a source may set (none: judged exactly) and where their
    placeholders reach (`rebuild` builds it again with the objects given). One whose build is the
    same at `other` (the same spec, values and files read) and that feeds no other judgement is
    left out: the change touches nothing it reads, and what its values are changes nothing the
    change does. One that feeds others (a child Kustomization's spec, a Flux source, the data a
    Kustomization substitutes) is not: a child the change touches is built from what it says."""
    held = _substituted(revision)
    nodes = [(ref, node) for ref, node in sorted(revision.nodes.items())
             if not node.external and node.build.error is None and node.unresolved
             and not (_same(node, other.nodes.get(ref)) and not _feeds_others(node, held[ref.cluster]))]
    if not nodes:
        return []
    knowledge = gather(revision, candidates)
    out: list[Blind] = []
    asked: list[tuple[KsRef, Node, tuple[Unread, ...], list[frozenset[str] | Unread], list[_Source]]] = []
    for ref, node in nodes:
        find = lookup(knowledge[ref.cluster], repo) if ref.cluster in knowledge else None
        order: list[frozenset[str] | Unread] = []  # each source as Flux reads it: its keys, or unread
        given: list[_Source] = []  # each source as the builds with placeholders are handed it
        for kind, name, optional in node.ks.substitute_from:
            data = find((kind, ref.namespace, name)) if find is not None else None
            if isinstance(data, dict):
                order.append(frozenset(data))
                given.append((kind, name, data))
            elif data is None and optional:
                continue  # Flux skips a missing optional source; the guard takes it as missing
            else:
                why = data or NOT_FOUND
                keys = _sops_keys(revision, ref, kind, name, repo) if why.startswith(SOPS) else None
                source = Unread(kind, f"{ref.namespace}/{name}", why, keys)
                order.append(source)
                given.append((kind, name, source))
        unread = tuple(u for u in order if isinstance(u, Unread))
        if unread:
            asked.append((ref, node, unread, order, given))
    answers = _used_vars([(node, view(node.view)) for _, node, _, _, _ in asked])
    placed: list[tuple[KsRef, Node, tuple[Unread, ...], tuple[str, ...]]] = []
    placed_requests: list[tuple[Node, tuple[dict[str, Any], ...]]] = []
    for (ref, node, unread, order, given), answer in zip(asked, answers, strict=True):
        if isinstance(answer, str):
            out.append(Blind(revision.label, ref, unread, error=answer))
            continue
        inline = {k for k, _ in node.ks.substitute or ()}
        used = tuple(v for v in answer if v not in inline and _unknown(v, order))
        if not used:
            out.append(Blind(revision.label, ref, unread))
            continue
        placed.append((ref, node, unread, used))
        placed_requests.extend((node, _objects(ref.namespace, given, used, which)) for which in _BOTH)
    builds = rebuild(placed_requests) if placed_requests else []
    sources = held
    for index, (ref, node, unread, used) in enumerate(placed):
        one, two = builds[2 * index], builds[2 * index + 1]
        if one.error is not None or two.error is not None:
            out.append(Blind(revision.label, ref, unread, used,
                             error=f"its build with placeholders failed: {one.error or two.error}"))
            continue
        first, second = verdict_fields(one, sources[ref.cluster]), verdict_fields(two, sources[ref.cluster])
        if first == second:
            judged = replace(node.build, objects=one.objects, operator=one.operator, generated=one.generated)
            out.append(Blind(revision.label, ref, unread, used, judged_with=judged))
            continue
        reaches, folders = _reaches(sorted(first - second), used)
        plain = _identities_only(first ^ second)
        out.append(Blind(revision.label, ref, unread, used, reaches=reaches, folders=folders,
                         identities_only=replace(node.build, objects=one.objects, operator=one.operator,
                                                 generated=one.generated) if plain else None))
    return out


def same_value_at_both(blind: tuple[Blind, ...], revisions: dict[str, Revision], trees: dict[str, Tree],
                       changed: frozenset[str]) -> tuple[Blind, ...]:
    """`blind`, with a Kustomization judged where its placeholders reach only plain objects'
    identities (`${SECRET_DOMAIN}-production`) and the variables have one value at both revisions.

    What Flux deletes is what base's build applied and head's does not: an object whose name holds
    the same unknown value at both revisions is the same object at both, kept, and one that leaves
    the build is deleted whatever the value. The value is the same when the change touches none of
    the sources it comes from: the same sources are unread at both revisions (the other revision
    judged, or reached alike), each is the same object in the cluster's builds at both revisions (a
    secretGenerator's encrypted input edited is another ciphertext), and no changed file names any
    of them (a SOPS Secret's file, an ExternalSecret that makes it: a re-encrypted file may hold
    another value). Both revisions are then
    judged from their first builds with placeholders, where one placeholder stands for one value.
    A variable that reaches a Flux object, a HelmRelease's release, the data another Kustomization
    substitutes or what the build reads still leaves it unjudged: those decide other builds."""
    spots = {(spot.label, spot.ks): spot for spot in blind}
    out = []
    for spot in blind:
        other = spots.get(("base" if spot.label == "head" else "head", spot.ks))
        if spot.judged or other is None or spot.identities_only is None or spot.unread != other.unread \
                or (not other.judged and other.identities_only is None) \
                or _names_any(trees, changed, {u.name.split("/", 1)[1] for u in spot.unread}) \
                or any(_held(revisions["base"], spot.ks, u) != _held(revisions["head"], spot.ks, u) for u in spot.unread):
            out.append(spot)
            continue
        out.append(replace(spot, reaches=(), folders=(), judged_with=spot.identities_only))
    return tuple(out)


def _held(revision: Revision, ks: KsRef, source: Unread) -> list[str]:
    """The unread source as the cluster's builds at `revision` hold it (each object as JSON, sorted)."""
    namespace, name = source.name.split("/", 1)
    return sorted(json.dumps(obj, sort_keys=True) for ref, node in revision.nodes.items() if ref.cluster == ks.cluster
                  for key, obj in node.build.objects.items()
                  if (key.group, key.kind, key.namespace, key.name) == ("", source.kind, namespace, name))


def _names_any(trees: dict[str, Tree], changed: frozenset[str], names: set[str]) -> bool:
    """Whether a changed file, at either revision, holds any of `names`."""
    wanted = [name.encode() for name in names]
    for tree in trees.values():
        for path in changed:
            if tree.is_file(path) and any(name in tree.read(path) for name in wanted):
                return True
    return False


def _identities_only(differ: frozenset[Field]) -> bool:
    """Whether the two builds with placeholders differ only in plain objects whose identity holds a
    placeholder: no Flux, Helm or source object, and the same files read."""
    for who, _, _ in differ:
        if not who or not variables_in(who):
            return False
        api = who.split(" ", 1)[0]
        group = api.split("/", 1)[0] if "/" in api else ""
        if group in (FLUX_GROUP, HELM_GROUP, *_SPEC_GROUPS):
            return False
    return True


_Source = tuple[str, str, "dict[str, str] | Unread"]  # kind, name, its data or why it cannot be read
_BOTH: tuple[Which, Which] = (1, 2)
# spec fields of a Flux Kustomization or source that decide nothing it applies or deletes
_SCHEDULE = frozenset({"interval", "retryInterval", "timeout", "healthChecks", "healthCheckExprs", "dependsOn",
                       "wait", "force"})
_RELEASE = ("releaseName", "targetNamespace", "storageNamespace", "chart", "chartRef", "kubeConfig")
_SPEC_GROUPS = ("source.toolkit.fluxcd.io", "source.extensions.fluxcd.io", "fluxcd.controlplane.io")
Field = tuple[str, str, str]  # (the object, the field, its value as JSON)


def _objects(namespace: str, given: list[_Source], used: tuple[str, ...], which: Which) -> tuple[dict[str, Any], ...]:
    """The ConfigMaps and Secrets of one build with placeholders, as the cluster would hold them:
    each readable source with its data, each unread one with the placeholder of every variable of
    `used` it may set (later sources over earlier ones, as Flux: none after it sets them)."""
    out = []
    for kind, name, data in given:
        if isinstance(data, Unread):
            data = {v: placeholder(v, which) for v in used if data.keys is None or v in data.keys}
        out.append({"apiVersion": "v1", "kind": kind, "metadata": {"name": name, "namespace": namespace},
                    "stringData" if kind == "Secret" else "data": dict(data)})
    return tuple(out)


def _substituted(revision: Revision) -> dict[str, frozenset[tuple[str, str, str]]]:
    """cluster -> the ConfigMaps and Secrets (kind, namespace, name) its Kustomizations substitute from."""
    out: dict[str, set[tuple[str, str, str]]] = {}
    for ref, node in revision.nodes.items():
        held = out.setdefault(ref.cluster, set())
        held.update((kind, ref.namespace, name) for kind, name, _ in node.ks.substitute_from)
    return {cluster: frozenset(refs) for cluster, refs in out.items()}


def verdict_fields(build: Build, sources: frozenset[tuple[str, str, str]]) -> frozenset[Field]:
    """What of a build a verdict depends on: every object's identity, Flux's markers on it, the
    spec fields of Flux objects that decide what they build, apply and delete, the data of the
    ConfigMaps and Secrets a Kustomization of the cluster substitutes from, and the files it read."""
    out: set[Field] = {("", "the files its build reads", json.dumps(sorted(build.inputs)))}
    for key, obj in build.objects.items():
        who = f"{obj.get('apiVersion')} {key.kind} {key.namespace}/{key.name}"
        out.add((who, "", ""))
        meta = _mapping(obj.get("metadata"))
        for section in ("annotations", "labels"):
            values = _mapping(meta.get(section))
            out.update((who, f"metadata.{section}.{k}", json.dumps(v)) for k, v in values.items() if "fluxcd" in str(k))
        spec = _mapping(obj.get("spec"))
        names: tuple[str, ...] = ()
        if (key.group, key.kind) == (FLUX_GROUP, "Kustomization") or key.group in _SPEC_GROUPS:
            names = tuple(k for k in spec if k not in _SCHEDULE)
        elif (key.group, key.kind) == (HELM_GROUP, "HelmRelease"):
            names = tuple(k for k in _RELEASE if k in spec)
        out.update((who, f"spec.{k}", json.dumps(spec[k], sort_keys=True)) for k in names)
        if key.group == "" and (key.kind, key.namespace, key.name) in sources:
            out.update((who, k, json.dumps(obj.get(k), sort_keys=True)) for k in ("data", "stringData"))
    return frozenset(out)


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _reaches(fields: list[Field], used: tuple[str, ...]) -> tuple[tuple[Reach, ...], tuple[str, ...]]:
    """Where the first build's placeholders reached what the second build's did not say alike, and
    the folders a child Kustomization's `spec.path` they reach may point into."""
    reaches: dict[Reach, None] = {}
    folders: dict[str, None] = {}
    for who, name, value in fields:
        api, kind, where = who.split(" ", 2) if who else ("", "", "")
        if who and name and variables_in(who):
            continue  # its identity is reached: said once, not for each of its fields
        if who and not name:
            what, found = f"the identity (apiVersion, kind, namespace, name) of {kind} {shown(where)}", who
        elif who:
            what, found = f"{name} of {kind} {shown(where)}", name + value
        else:
            what, found = name, value
        # a variable Flux transformed (`${VAR^^}`) no longer shows its placeholder: any of them may
        for var in variables_in(found) or list(used):
            reaches[Reach(var, what)] = None
        if who and name == "spec.path" and kind == "Kustomization" and api.startswith(FLUX_GROUP + "/"):
            folders[_fixed_folder(str(json.loads(value)))] = None
    return tuple(reaches), tuple(folders)


def _fixed_folder(path: str) -> str:
    """The deepest folder of a `spec.path` that no placeholder decides ("" is the repository)."""
    fixed = path.split(PREFIX, 1)[0] if variables_in(path) else ""
    folder = posixpath.normpath("/" + posixpath.dirname(fixed)).strip("/")
    return "" if folder in (".", "..") or folder.startswith("../") else folder


def _feeds_others(node: Node, substituted: frozenset[tuple[str, str, str]]) -> bool:
    """Whether other Kustomizations are explored or built from this build's objects: a child Flux
    Kustomization (its path, source and substitutions decide its build), a Flux source,
    ArtifactGenerator or Flux Operator object (a child's artifact), a ConfigMap or Secret a
    Kustomization of the cluster substitutes from (its variables)."""
    if node.children:
        return True
    for key in node.build.objects:
        if key.group in _SPEC_GROUPS or (key.group, key.kind) == (FLUX_GROUP, "Kustomization"):
            return True
        if key.group == "" and (key.kind, key.namespace, key.name) in substituted:
            return True
    return False


def _same(node: Node, twin: Node | None) -> bool:
    return twin is not None and not twin.external and twin.build.fingerprint is not None and \
        twin.build.fingerprint == node.build.fingerprint


def _unknown(var: str, order: list[frozenset[str] | Unread]) -> bool:
    """Whether `var`'s value comes from an unread source: the last source that sets it, or may."""
    for source in reversed(order):
        if isinstance(source, Unread):
            if source.keys is None or var in source.keys:
                return True
        elif var in source:
            return False
    return False


def _sops_keys(revision: Revision, ref: KsRef, kind: str, name: str, repo: RepoValues) -> frozenset[str] | None:
    """A SOPS Secret's data keys (SOPS encrypts values, never keys): from the cluster's builds, else
    the repository's files; None when several disagree or none is found."""
    docs = [obj for r, node in revision.nodes.items() if r.cluster == ref.cluster
            for key, obj in node.build.objects.items()
            if (key.kind, key.group, key.namespace, key.name) == (kind, "", ref.namespace, name)]
    docs = docs or repo.docs((kind, ref.namespace, name))
    found = {_keys(d) for d in docs}
    return found.pop() if len(found) == 1 else None


def _keys(obj: dict[str, Any]) -> frozenset[str]:
    out: set[str] = set()
    for section in ("data", "stringData"):
        value = obj.get(section)
        if isinstance(value, dict):
            out.update(str(k) for k in value)
    return frozenset(out)


def _used_vars(builds: list[tuple[Node, Tree]]) -> list[list[str] | str]:
    """Per build: the variables Flux's substitution looks up in it (the helper's `vars`), or why not."""
    if not builds:
        return []
    helper = helper_binary(build=True)
    if helper is None:
        raise ToolError("coredns-gen-helper is not installed: which variables a Flux Kustomization's build uses is "
                        "Flux's own parser's answer, asked through it", hint=HELPER_BUILD_HINT)
    lines = []
    for index, (node, tree) in enumerate(builds):
        root = tree.on_disk()
        kustomization: dict[str, Any] = json.loads(node.ks.build_spec) if node.ks.build_spec else {}
        lines.append(json.dumps({"id": str(index), "root": str(root),
                                 "dir": str(root / node.ks.path) if node.ks.path else str(root),
                                 "kustomization": kustomization, "objects": []}, separators=(",", ":")))
    try:
        proc = subprocess.run([str(helper), "vars"], input="\n".join(lines) + "\n", capture_output=True, text=True,
                              timeout=600, check=False)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise ToolError(f"cannot run {helper} vars: {err}", hint=HELPER_BUILD_HINT) from err
    answers: dict[str, list[str] | str] = {}
    try:
        for line in proc.stdout.splitlines():
            data = json.loads(line)
            answers[str(data["id"])] = str(data["error"]) if data.get("error") else [str(v) for v in data["vars"]]
    except (ValueError, KeyError, TypeError):
        answers = {}
    if proc.returncode != 0 or len(answers) != len(builds):
        raise ToolError(f"{helper} vars did not answer (exit {proc.returncode})", stderr=proc.stderr,
                        hint=f"rebuild it from this checkout: {HELPER_BUILD_HINT}")
    return [answers[str(i)] for i in range(len(builds))]


def exact_note(blind: list[Blind]) -> str | None:
    """One line for stderr: the Kustomizations judged exactly although a source could not be read."""
    exact = sorted({(spot.ks, str(spot.unread[0])) for spot in blind if spot.exact})
    if not exact:
        return None
    (first, source), more = exact[0], len({ks for ks, _ in exact}) - 1
    return (f"substituteFrom {source} cannot be read here, but the build of Kustomization {first} [{first.cluster}]"
            + (f" (and {more} more)" if more else "") + " uses none of the variables it may set: judged exactly")


def placeholder_note(blind: list[Blind]) -> str | None:
    """One line for stderr: the Kustomizations judged with placeholders for variables it cannot read."""
    held = sorted({(spot.ks, spot.used) for spot in blind if spot.judged and not spot.exact})
    if not held:
        return None
    (first, used), more = held[0], len({ks for ks, _ in held}) - 1
    names = ", ".join("${" + v + "}" for v in used[:3]) + (" …" if len(used) > 3 else "")
    return (f"the build of Kustomization {first} [{first.cluster}]" + (f" (and {more} more)" if more else "")
            + f" uses {names} of a substituteFrom source that cannot be read here, which reaches no identity or field "
            "a verdict depends on: judged with the variable as a placeholder")
