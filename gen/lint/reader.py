"""Turn the paths a user gives `lint` into Corefile units and manifests, keeping line numbers.

A Corefile is linted as written; a ConfigMap as CoreDNS sees it through its mount
(gen/lint/inputs.py). A folder is a rendered overlay: every YAML and Corefile in it. Positions
inside a ConfigMap are mapped to the YAML line where the Corefile line sits, so a reviewer can
jump straight to it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Iterator

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError
from ruamel.yaml.scalarstring import LiteralScalarString

from gen import yamlio
from gen.corefile import Source
from gen.errors import GenError, Problem, UsageError
from gen.inputfile import read_user_file
from gen.lint.inputs import ConfigMapDoc, Inputs, WorkloadDoc
from gen.platforms import eks, rke2
from gen.platforms.base import COREFILE_KINDS, PLATFORM_ANNOTATION, RELEASE_ANNOTATION

YAML_SUFFIXES = (".yaml", ".yml", ".json")
# k3s ships templates (`clusterIP: %{CLUSTER_DNS}%`) that are not YAML until k3s substitutes them.
_K3S_PLACEHOLDER = re.compile(r"^(\s*(?:- )?[\w.-]+:\s+)(%\{[A-Z_]+\}%\S*)\s*$", re.MULTILINE)


class ManifestError(GenError):
    """A manifest `lint` was given is not valid YAML."""


def _expand(paths: list[Path]) -> Iterator[Path]:
    for path in paths:
        if not os.path.lexists(path):
            raise UsageError(Problem(f"{path} does not exist", file=str(path), key="FILE",
                                     hint="pass a Corefile, a ConfigMap/Deployment manifest or an overlay folder"))
        if os.path.isdir(path):
            found = sorted(p for p in path.rglob("*") if p.is_file() and (
                p.suffix in YAML_SUFFIXES or p.name == "Corefile" or p.suffix == ".Corefile"))
            yield from found
        else:
            yield path


def _line_of(node: Any, key: Any) -> int:
    try:
        return int(node.lc.key(key)[0]) + 1
    except (AttributeError, KeyError, TypeError):
        return int(getattr(getattr(node, "lc", None), "line", 0) or 0) + 1


def _source_for(data: Any, key: str, file: str, lines: list[str]) -> Source:
    value = data[key]
    key_line = _line_of(data, key)
    text = str(value)
    if isinstance(value, LiteralScalarString):
        header = int(data.lc.value(key)[0])  # 0-based line of the `|` indicator
        indent = 0
        for raw in lines[header + 1:]:
            if raw.strip():
                indent = len(raw) - len(raw.lstrip(" "))
                break
        return Source(text, file, line_offset=header + 1, col_offset=indent, label=key)
    return Source(text, file, fixed_line=key_line, label=key)


def _documents(text: str, file: str) -> list[Any]:
    yaml = YAML(typ="rt", pure=True)
    text = _K3S_PLACEHOLDER.sub(lambda m: f'{m.group(1)}"{m.group(2)}"', text)
    line, col = yamlio.deepest(text, yamlio.MAX_DEPTH)  # ruamel would run out of stack on it
    if line is not None:
        raise ManifestError(Problem(f"nested more than {yamlio.MAX_DEPTH} levels deep", file=file, line=line, col=col,
                                    key="yaml", hint="a manifest nests a few levels; this is not a Kubernetes object"))
    try:
        docs = [d for d in yaml.load_all(text) if d is not None]
        yamlio.refuse_alias_bombs(docs)
    except MarkedYAMLError as err:
        mark = err.problem_mark
        raise ManifestError(Problem(f"not valid YAML: {err.problem}", file=file,
                                    line=mark.line + 1 if mark else None, col=mark.column + 1 if mark else None,
                                    key="yaml", hint="fix the YAML syntax")) from None
    except yamlio.AliasBombError as err:
        raise ManifestError(Problem(str(err), file=file, key="yaml",
                                    hint="write the objects out; a manifest does not need aliases")) from None
    out: list[Any] = []
    for doc in docs:
        if isinstance(doc, dict) and doc.get("kind") == "List" and isinstance(doc.get("items"), list):
            out.extend(i for i in doc["items"] if isinstance(i, dict))
        elif isinstance(doc, dict):
            out.append(doc)
    return out


def manifest_documents(text: str, file: str) -> list[Any]:
    """The objects of a manifest file (a `kind: List` unpacked), as lint reads them.

    Raises:
        ManifestError: the text is not YAML, or nested too deep.
    """
    return _documents(text, file)


def _add_manifest(inputs: Inputs, text: str, file: str) -> None:
    lines = text.splitlines()
    for doc in _documents(text, file):
        meta = doc.get("metadata") or {}
        name, ns = str(meta.get("name", "")), str(meta.get("namespace", "") or "")
        line = int(doc.lc.line) + 1
        notes = meta.get("annotations") if isinstance(meta, dict) else None
        if doc.get("kind") in COREFILE_KINDS and isinstance(notes, dict) and isinstance(notes.get(PLATFORM_ANNOTATION), str):
            inputs.rendered_for.append((notes[PLATFORM_ANNOTATION], str(notes.get(RELEASE_ANNOTATION) or ""), file))
        if doc.get("kind") == "ConfigMap":
            data = doc.get("data") or {}
            sources = {str(k): _source_for(data, k, file, lines) for k in data if isinstance(data[k], str)}
            inputs.configmaps.append(ConfigMapDoc(name, ns, file, line, sources,
                                                  {str(k): _line_of(data, k) for k in data}))
        elif doc.get("kind") == "Deployment":
            inputs.deployments.append(WorkloadDoc(name, ns, file, line, doc))
        elif doc.get("kind") == "HelmChartConfig" and (ns, name) == ("kube-system", "rke2-coredns"):
            inputs.corefiles.append(_chart_corefile(doc, file))
        elif doc.get("kind") == "Addon" and str(doc.get("apiVersion", "")).startswith("eks.services.k8s.aws/") \
                and (doc.get("spec") or {}).get("name") == "coredns":
            _add_addon_corefile(inputs, doc.get("spec") or {}, "configurationValues", file, str((doc.get("spec") or {}).get("configurationValues") or "{}"))
        elif "kind" not in doc and isinstance(doc.get("platform"), str) and isinstance(doc.get("cluster"), str):
            inputs.values_files.append(file)  # a values file: what lint reads is its render
        elif "kind" not in doc and isinstance(doc.get("corefile"), str):  # an EKS add-on configurationValues file
            inputs.corefiles.append(Source(str(doc["corefile"]), file, fixed_line=_line_of(doc, "corefile"), label="EKS add-on corefile"))


def _add_addon_corefile(inputs: Inputs, node: Any, key: str, file: str, text: str) -> None:
    """EKS: the `corefile` an ACK Addon's configurationValues sets (none: the add-on keeps its own)."""
    line = _line_of(node, key)
    try:
        corefile = eks.corefile_of(text)
    except ValueError as err:
        raise ManifestError(Problem(str(err), file=file, line=line, key=f"spec.{key}",
                                    hint="write the add-on's configurationValues as one JSON object")) from None
    if corefile is not None:
        inputs.corefiles.append(Source(corefile, file, fixed_line=line, label="EKS add-on corefile"))


def _chart_corefile(doc: Any, file: str) -> Source:
    """RKE2: the Corefile the rke2-coredns chart renders from this valuesContent (findings point
    at the valuesContent line: the Corefile itself is nowhere in the file)."""
    spec = doc.get("spec") or {}
    line = _line_of(spec, "valuesContent") if "valuesContent" in spec else int(doc.lc.line) + 1
    try:
        text = rke2.corefile_of(str(spec.get("valuesContent") or ""))
    except ValueError as err:
        raise ManifestError(Problem(str(err), file=file, line=line, key="spec.valuesContent",
                                    hint="fix the chart values (YAML, as `helm --values` reads it)")) from None
    return Source(text, file, fixed_line=line, label="rke2-coredns chart Corefile")


def load_inputs(paths: list[Path]) -> Inputs:
    """Read every path; Corefiles stay text, manifests are split into ConfigMaps and Deployments.

    Raises:
        UsageError: a path does not exist.
        ManifestError: a file is not a regular text file (a FIFO, binary, not UTF-8) or a YAML
            file does not parse.
        SystemFailure: a file cannot be read (permissions, I/O).
    """
    inputs = Inputs()
    for path in _expand(paths):
        file = str(path)
        text = read_user_file(path, file, error=ManifestError, yaml=path.suffix in YAML_SUFFIXES)
        inputs.files.append(file)
        if path.suffix in YAML_SUFFIXES:
            _add_manifest(inputs, text, file)
        else:
            inputs.corefiles.append(Source(text, file))
    return inputs
