"""Checks only the rendered output can answer, reported as bad input at the values file.

Each rendered Corefile and coredns-custom fragment is parsed back and compared with what the
values asked for (gen.render.structure): any difference is bad input at the value's line.

Every rendered object must fit in what Kubernetes stores: a ConfigMap holds at most 1 MiB of
data (keys and values, `validation.ValidateConfigMap`), and no object we write may be bigger
than that either. A value that is too big shows only once rendered; the problem then names the
part of the values file that holds most of the bytes.
"""

from __future__ import annotations

import json
from typing import Any, Iterator, Sequence

from gen import fluxvars
from gen.render import structure
from gen.errors import Problem, RenderedValuesError
from gen.platforms import get
from gen.platforms.base import COREDNS_CONFIGMAP
from gen.rendered import Obj, RenderedFile, configmap_data
from gen.schema_errors import key_path, locate
from gen.spec import Values
from gen.versions import parse_version

MAX_OBJECT = 1024 * 1024  # bytes: Kubernetes' ConfigMap limit (MaxSecretSize), and ours for any object


def _size(obj: Obj) -> int:
    if obj.get("kind") == "ConfigMap":  # exactly what the API server adds up
        return sum(len(str(k).encode()) + len(str(v).encode()) for part in ("data", "binaryData")
                   for k, v in (obj.get(part) or {}).items())
    return len(json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode())


def oversized(values: Values, file: str, objects: Sequence[Obj], text: str) -> Iterator[tuple[None, Problem]]:
    """Objects over MAX_OBJECT; `text` is their rendered file, whose size bounds them all (the
    exact sizes are computed only when the file is big)."""
    if len(text) * 4 <= MAX_OBJECT and len(text.encode()) <= MAX_OBJECT:  # (a UTF-8 character is at most 4 bytes)
        return
    for obj in objects:
        size = _size(obj)
        if size > MAX_OBJECT:
            meta = obj.get("metadata") or {}
            what = "bytes of data" if obj.get("kind") == "ConfigMap" else "bytes"
            yield None, Problem(
                f"the rendered {obj.get('kind')} {meta.get('namespace')}/{meta.get('name')} ({file}) would hold "
                f"{size:,} {what}; Kubernetes stores at most {MAX_OBJECT:,} (1 MiB) in one {obj.get('kind')}",
                file=values.source, hint="shorten or drop the values that fill it; this part of the file holds the most")


STRUCTURE_HINT = ("write the value as plain text that stays one Corefile token (override lines as whole directives); "
                  "if it already is, this is a coredns-gen bug: please report it with the values file")


def owned_corefile(values: Values, files: list[RenderedFile]) -> structure.Owned | None:
    """The whole Corefile the render owns, if any (a platform without coredns-custom imports, or
    one whose `coredns` ConfigMap the repo owns: kubeadm): the rendered `coredns` ConfigMap's
    (Talos, kubeadm), else the one the platform loads from what we
    render (EKS configurationValues, the RKE2 chart's values)."""
    platform = get(values.platform)
    release = parse_version(values.platform_version)
    if platform.import_points(release) and COREDNS_CONFIGMAP not in platform.OWNS:
        return None  # the platform's Corefile, our coredns-custom keys (judged one by one)
    stock = platform.stock_of(values.platform_version, values.cluster_domain)  # the platform's own text for that domain
    if stock is None:
        return None
    written = configmap_data(files, "coredns").get("Corefile")
    if written is not None:
        return structure.Owned(f"Corefile of ConfigMap kube-system/coredns ({structure.file_of(files, 'coredns')})", written, stock)
    where = f"Corefile {values.platform} loads from {files[0].path}" if files else "Corefile"
    return structure.Owned(where, platform.main_corefile(values), stock)


def check(values: Values, files: list[RenderedFile]) -> None:
    """Raise RenderedValuesError for every problem the rendered files show: an object too big,
    a Corefile whose structure is not what the values asked for (gen.render.structure)."""
    found: list[tuple[Sequence[Any] | None, Problem]] = [item for f in files for item in oversized(values, f.path, f.objects, f.text)]
    port = get(values.platform).SERVER_PORT
    owned = owned_corefile(values, files)
    if fluxvars.uses_variables(values):  # proven with every Flux variable as one placeholder word
        values, files = fluxvars.in_values(values, fluxvars.in_text), [_with_words(f) for f in files]
        owned = None if owned is None else owned._replace(text=fluxvars.in_text(owned.text))
    for diff, what in structure.differences(values, files, owned, port):
        found.append((diff.origin, Problem(f"the rendered {what} would not mean what the values say: {diff.what}",
                                           file=values.source, hint=STRUCTURE_HINT)))
    if found:
        raise RenderedValuesError(found)


def _with_words(file: RenderedFile) -> RenderedFile:
    """A rendered file whose ConfigMaps' keys and texts read every Flux variable as one word."""
    objects = tuple({**o, "data": {fluxvars.in_text(str(k)): fluxvars.in_text(str(v)) for k, v in (o.get("data") or {}).items()}}
                    if o.get("kind") == "ConfigMap" else o for o in file.objects)
    return file._replace(objects=objects)


def _weight(node: Any) -> int:
    """Characters of text under a node (keys included): what makes a rendered object big."""
    total, stack = 0, [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            total += sum(len(str(k)) for k in item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        else:
            total += len(str(item))
    return total


def largest_part(data: Any) -> list[Any]:
    """The deepest key that holds more than half of the text of the key above it."""
    path: list[Any] = []
    node = data
    while isinstance(node, (dict, list)) and node:
        children = list(node.items()) if isinstance(node, dict) else list(enumerate(node))
        weights = [(_weight(child), key) for key, child in children]
        weight, key = max(weights, key=lambda w: w[0])
        if weight * 2 <= sum(w for w, _ in weights):
            break
        path.append(key)
        node = node[key]
    return path


def place(err: RenderedValuesError, data: Any) -> list[Problem]:
    """The error's problems with the line, column and key of the values they come from."""
    out = []
    for keys, problem in err.found:
        path = largest_part(data) if keys is None else list(keys)
        line, col = locate(data, path)
        out.append(Problem(problem.problem, file=problem.file, line=line, col=col, key=key_path(path) or problem.key,
                           hint=problem.hint))
    return out
