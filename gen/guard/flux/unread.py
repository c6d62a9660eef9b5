"""Kustomizations built without a `substituteFrom` source the guard cannot read, and whether it matters.

kustomize-controller reads every `postBuild.substituteFrom` ConfigMap and Secret from the cluster:
it fails the build when one is missing and not `optional`, and substitutes a SOPS Secret's real
values. The guard reads them from the repository (substitution.py); one it cannot read (SOPS-
encrypted, not in the repository, defined differently by several files) is left out of the build,
and its variables come out empty. That build is exact only when no object of it uses a variable
such a source may set; which variables the build uses is Flux's own parser's answer (the
helper's `vars`, tools/helper/build/vars.go), and which ones the source may set follows Flux's
order: `substituteFrom` in order, later sources over earlier ones, inline `substitute` over all.
A Kustomization whose build uses one is not judged (gen/guard/unjudged.py): a change to a file it
may read is refused by not-judged-touched, with the source, why, and how to make it readable.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from typing import Any, Callable

from gen.errors import ToolError
from gen.guard.flux.knowledge import RepoValues, gather, lookup
from gen.guard.flux.roots import Candidate
from gen.guard.model import KsRef, Node, Revision
from gen.guard.repo.revision import Tree
from gen.tools import HELPER_BUILD_HINT, helper_binary

SOPS = "SOPS-encrypted"  # substitution.data_of's reason for a Secret it cannot decrypt
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
        if self.why == SOPS:
            return (f"keep the variables the build needs that are not secret in a ConfigMap of the repository "
                    f"instead of SOPS Secret {self.name}")
        if self.why == NOT_FOUND:
            return (f"commit {self.kind} {self.name} where a build of this cluster applies it, or mark its substituteFrom "
                    f"entry `optional: true` if the cluster may lack it")
        return f"make {self.kind} {self.name} readable from the repository"


@dataclass(frozen=True)
class Blind:
    """A Kustomization built at one revision without some of its substitution inputs."""

    label: str
    ks: KsRef
    unread: tuple[Unread, ...]
    used: tuple[str, ...] = ()  # the variables its build uses that an unread source may set
    error: str = ""  # why Flux's parser could not say which variables it uses

    @property
    def exact(self) -> bool:
        return not self.used and not self.error

    def reason(self) -> str:
        sources = ", ".join(str(u) for u in self.unread)
        if self.error:
            return (f"its postBuild substitutes from {sources}, which cannot be read here, and which variables its "
                    f"build uses is unknown ({self.error})")
        shown = ", ".join("${" + v + "}" for v in self.used[:5]) + (" …" if len(self.used) > 5 else "")
        return (f"its postBuild substitutes from {sources}, which cannot be read here, and its build uses {shown} "
                "that it may set")

    def fix(self) -> str:
        return "; ".join(dict.fromkeys(u.fix() for u in self.unread))


def blind_spots(revision: Revision, other: Revision, candidates: list[Candidate], repo: RepoValues,
                view: Callable[[str], Tree]) -> list[Blind]:
    """Every judged Kustomization of `revision` built without a source it substitutes from, with the
    variables its build uses that such a source may set (none: judged exactly). One whose build is
    the same at `other` (the same spec, values and files read) is left out: the change touches
    nothing it reads, and what its values are changes nothing the change does."""
    nodes = [(ref, node) for ref, node in sorted(revision.nodes.items())
             if not node.external and node.build.error is None and node.unresolved
             and not _same(node, other.nodes.get(ref))]
    if not nodes:
        return []
    knowledge = gather(revision, candidates)
    out: list[Blind] = []
    asked: list[tuple[KsRef, Node, tuple[Unread, ...], list[frozenset[str] | Unread]]] = []
    for ref, node in nodes:
        find = lookup(knowledge[ref.cluster], repo) if ref.cluster in knowledge else None
        order: list[frozenset[str] | Unread] = []  # each source as Flux reads it: its keys, or unread
        for kind, name, optional in node.ks.substitute_from:
            data = find((kind, ref.namespace, name)) if find is not None else None
            if isinstance(data, dict):
                order.append(frozenset(data))
            elif data is None and optional:
                continue  # Flux skips a missing optional source; the guard takes it as missing
            else:
                why = data or NOT_FOUND
                keys = _sops_keys(revision, ref, kind, name, repo) if why == SOPS else None
                order.append(Unread(kind, f"{ref.namespace}/{name}", why, keys))
        unread = tuple(u for u in order if isinstance(u, Unread))
        if unread:
            asked.append((ref, node, unread, order))
    answers = _used_vars([(node, view(node.view)) for _, node, _, _ in asked])
    for (ref, node, unread, order), answer in zip(asked, answers, strict=True):
        if isinstance(answer, str):
            out.append(Blind(revision.label, ref, unread, error=answer))
            continue
        inline = {k for k, _ in node.ks.substitute or ()}
        used = tuple(v for v in answer if v not in inline and _unknown(v, order))
        out.append(Blind(revision.label, ref, unread, used))
    return out


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
    for field in ("data", "stringData"):
        value = obj.get(field)
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
