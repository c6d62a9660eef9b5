"""The Flux objects that deliver an overlay: a Kustomization, and a source when it lives elsewhere.

Defaults follow `flux bootstrap`: the GitRepository `flux-system` in namespace `flux-system`.
`prune: true` (the default of `flux.prune`) is deliberate: the DNS ConfigMaps themselves carry
`prune: disabled`, so Flux can still garbage-collect the HPA or PDB when they leave git, but
never the Corefile. With `flux.source` naming only `kind` and `name`, the Kustomization refers
to a source the repository already has and no source is rendered.
"""

from __future__ import annotations

import posixpath
from typing import Any, Mapping

from gen import yamlio
from gen.errors import Problem, ValuesError
from gen.render.object_schemas import validate_object
from gen.platforms.base import At
from gen.rendered import Obj, Owner, RenderedFile, header
from gen.spec import Values

_REF_KEYS = {"GitRepository": {"branch", "tag", "semver", "commit"}, "OCIRepository": {"tag", "semver", "digest"}}


def check(values: Values, data: Mapping[str, Any], at: At) -> list[Problem]:
    problems = []
    output = values.flux.output  # already normal: no `.` parts, no doubled slashes
    parts = output.split("/")
    if output.startswith("/") or ".." in parts or output == ".":
        problems.append(at(["flux", "output"], f"{values.flux.output} is outside the repository",
                           "give a path relative to the repository root, e.g. clusters/prod/coredns.yaml"))
    elif posixpath.splitext(output)[1] not in {".yaml", ".yml"}:
        problems.append(at(["flux", "output"], f"{values.flux.output} is not a .yaml file", "end the path with .yaml"))
    elif parts[0] == "overlays" or output.startswith(values.overlay_dir + "/"):
        where = "overlays/" if parts[0] == "overlays" else f"the overlay folder {values.overlay_dir}/"
        problems.append(at(["flux", "output"], f"the Flux objects cannot live inside {where}",
                           "write them where Flux looks for cluster objects, e.g. clusters/<cluster>/coredns.yaml"))
    problems += _overlay(values, data, at)
    src = values.flux.source
    if src is not None and src.url is None:
        for key in ("interval", "secretRef", "ref"):
            if key in data["flux"]["source"]:
                problems.append(at(["flux", "source", key], f"'{key}' describes a source coredns-gen renders, but without `url` "
                                   f"the source is the existing {src.kind} {src.name}, which is not rendered",
                                   f"remove '{key}' (set it on the {src.kind} itself), or give `url` to render a source"))
        if "name" not in data["flux"]["source"]:
            problems.append(at(["flux", "source"], "an existing source is named by `kind` and `name`; `name` is missing",
                               "add the source's metadata.name, e.g. `name: flux-system`, or give `url` to render a source",
                               key="flux.source.name"))
    elif src is not None and src.url is not None:
        allowed = _REF_KEYS[src.kind]
        for key, _ in src.ref:
            if key not in allowed:
                problems.append(at(["flux", "source", "ref", key], f"a {src.kind} ref cannot be a {key}",
                                   f"use one of {', '.join(sorted(allowed))}"))
        is_oci = src.url.startswith("oci://")
        if is_oci != (src.kind == "OCIRepository"):
            problems.append(at(["flux", "source", "url"], f"{src.url} does not fit kind {src.kind}",
                               "OCIRepository takes oci:// URLs; GitRepository takes https:// or ssh://"))
    return problems


def _overlay(values: Values, data: Mapping[str, Any], at: At) -> list[Problem]:
    """The overlay folder must be a folder of the repository that is not the Flux file's or a parent of it."""
    if "overlay" not in data:
        return []
    folder = values.overlay_dir
    parts = folder.split("/")
    if folder.startswith("/") or ".." in parts or folder == ".":
        return [at(["overlay"], f"{folder} is outside the repository or is its root",
                   "give a folder relative to the repository root, e.g. kubernetes/apps/kube-system/coredns")]
    if ".git" in parts:
        return [at(["overlay"], f"{folder} is inside .git", "give a folder of the working tree")]
    return []


def objects(values: Values) -> list[Obj]:
    f = values.flux
    meta = {"name": f.name, "namespace": f.namespace}
    docs: list[Obj] = []
    source_ref = {"kind": "GitRepository", "name": "flux-system"}
    if f.source is not None and f.source.url is None:  # an existing source: referenced, not rendered
        source_ref = {"kind": f.source.kind, "name": f.source.name}
    elif f.source is not None:
        spec: dict[str, Any] = {"interval": f.source.interval, "url": f.source.url}
        if f.source.ref:
            spec["ref"] = dict(f.source.ref)
        if f.source.secret_ref:
            spec["secretRef"] = {"name": f.source.secret_ref}
        docs.append({"apiVersion": "source.toolkit.fluxcd.io/v1", "kind": f.source.kind,
                     "metadata": {"name": f.source.name, "namespace": f.namespace}, "spec": spec})
        source_ref = {"kind": f.source.kind, "name": f.source.name}
    spec = {"interval": f.interval, "retryInterval": f.retry_interval, "timeout": f.timeout,
            "path": f.path, "prune": f.prune, "wait": f.wait, "sourceRef": source_ref}
    if f.target_namespace:
        spec["targetNamespace"] = f.target_namespace
    if f.common_labels or f.common_annotations:
        spec["commonMetadata"] = {**({"labels": dict(f.common_labels)} if f.common_labels else {}),
                                  **({"annotations": dict(f.common_annotations)} if f.common_annotations else {})}
    if f.substitute is not None:
        post: dict[str, Any] = {}
        if f.substitute:
            post["substitute"] = dict(f.substitute)
        if f.substitute_from:
            post["substituteFrom"] = [{"kind": k, "name": n, **({} if o is None else {"optional": o})}
                                      for k, n, o in f.substitute_from]
        spec["postBuild"] = post
    if f.depends_on:
        spec["dependsOn"] = [{"name": n, **({"namespace": ns} if ns else {})} for n, ns in f.depends_on]
    docs.append({"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization", "metadata": meta, "spec": spec})
    return docs


def render_flux(values: Values) -> RenderedFile:
    """The Flux file for one cluster, validated against the Flux CRD schemas."""
    path = values.flux.output
    docs = objects(values)
    problems = [p for d in docs for p in validate_object(d, file=path)]
    if problems:
        raise ValuesError(problems)
    return RenderedFile(path, header(values) + yamlio.dump_all(docs), Owner.SHARED, tuple(docs))
