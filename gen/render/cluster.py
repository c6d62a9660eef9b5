"""Render one cluster's files in memory: overlay manifests, kustomization.yaml, Flux objects.

Nothing here touches the disk except reading templates and package data; `writer` writes.
Every object is validated against its schema before it is returned, so a render either yields
files that pass strict validation or raises. Each file says who owns its path (`Owner`) and
carries the objects it holds.
"""

from __future__ import annotations

from gen import yamlio
from gen.render import render_check
from gen.errors import Problem, RenderedValuesError, ValuesError
from gen.render.flux_objects import render_flux
from gen.render.object_schemas import validate_object
from gen.platforms import get
from gen.platforms.base import COREFILE_KINDS, PLATFORM_ANNOTATION, RELEASE_ANNOTATION
from gen.rendered import Obj, Owner, RenderedFile, header
from gen.spec import Values, default_overlay


def render_overlay(values: Values) -> list[RenderedFile]:
    """Files of overlays/<platform>/<cluster>/, manifests in kustomization order, then
    kustomization.yaml.

    Raises:
        ValuesError: a rendered object fails its schema (a bug, reported like bad input).
    """
    platform = get(values.platform)
    folder = values.overlay_dir
    owner = Owner.OVERLAY if folder == default_overlay(values.platform, values.cluster) else Owner.CHOSEN
    manifests = platform.manifests(values)
    problems: list[Problem] = []
    files: list[RenderedFile] = []
    kubernetes = platform.kubernetes_version(values)
    top = header(values)
    for name, obj in manifests:
        _mark(obj, values)
        path = f"{folder}/{name}"
        problems += validate_object(obj, file=path, kubernetes=kubernetes)
        files.append(RenderedFile(path, top + yamlio.dump(obj), owner, (obj,)))
    for name, text in platform.documents(values):
        files.append(RenderedFile(f"{folder}/{name}", text, owner))
    kustomization: Obj = {
        "apiVersion": "kustomize.config.k8s.io/v1beta1",
        "kind": "Kustomization",
        "resources": [name for name, _ in manifests],
    }
    files.append(RenderedFile(f"{folder}/kustomization.yaml", top + yamlio.dump(kustomization), owner, (kustomization,)))
    if problems:
        raise ValuesError(problems)
    return files


def _mark(obj: Obj, values: Values) -> None:
    """Name the platform and release on an object holding Corefile text: `lint overlays/<p>/<c>`
    then judges the overlay in the stock Corefile and CoreDNS it was rendered for."""
    if obj.get("kind") not in COREFILE_KINDS:
        return
    annotations = obj.setdefault("metadata", {}).setdefault("annotations", {})
    annotations.setdefault(PLATFORM_ANNOTATION, values.platform)
    annotations[RELEASE_ANNOTATION] = values.platform_version


def render_cluster(values: Values) -> list[RenderedFile]:
    """The overlay plus the Flux objects that deliver it."""
    files = [*render_overlay(values), render_flux(values)]
    _target_namespace(values, files)
    render_check.check(values, files)
    return files


def _target_namespace(values: Values, files: list[RenderedFile]) -> None:
    """flux.targetNamespace moves every namespaced object of the overlay into that namespace:
    a coredns ConfigMap anywhere but where CoreDNS reads it is no configuration at all."""
    target = values.flux.target_namespace
    if not target:
        return
    moved = sorted({f"{o['kind']} {o['metadata']['namespace']}/{o['metadata']['name']}" for f in files if f.path != values.flux.output
                    for o in f.objects if (o.get("metadata") or {}).get("namespace") not in (None, target)})
    if moved:
        raise RenderedValuesError([(("flux", "targetNamespace"), Problem(
            f"Flux would move {', '.join(moved)} into namespace {target}, where CoreDNS does not read it",
            file=values.source, hint="remove flux.targetNamespace (every object the overlay holds names its namespace), "
                                     "or set it to that namespace"))])
