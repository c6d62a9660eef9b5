"""Find what the input files hold for cluster DNS: the objects coredns-gen can import, and the
ones it cannot say (named, never dropped in silence).

Read: ConfigMaps `coredns` (its `Corefile`) and `coredns-custom` (every key), RKE2's
HelmChartConfig kube-system/rke2-coredns, an ACK `Addon` of the EKS coredns add-on or a bare
add-on configurationValues document (a YAML or JSON object with `corefile`), and plain Corefile
files. A ConfigMap without a namespace is taken as kube-system's (a Flux Kustomization's
`targetNamespace` puts it there). A coredns HelmRelease or HelmChart (the upstream CoreDNS
chart installed beside a platform's own DNS) is reported as something import cannot express.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Iterator

from gen.adopt.differences import Difference, Held
from gen.errors import Problem, UsageError
from gen.inputfile import read_user_file
from gen.lint.effective import managed_corefile
from gen.lint.reader import YAML_SUFFIXES, ManifestError, manifest_documents
from gen.platforms import dns_objects
from gen.platforms.base import ObjectRef

NAMES = ("coredns", "coredns-custom")
RKE2_CHART_CONFIGMAP = "rke2-coredns-rke2-coredns"  # the ConfigMap the rke2-coredns chart renders


def _files(paths: list[Path]) -> Iterator[Path]:
    for path in paths:
        if not os.path.lexists(path):
            raise UsageError(Problem(f"{path} does not exist", file=str(path), key="PATH",
                                     hint="pass the manifests that hold cluster DNS (a ConfigMap, a HelmChartConfig, "
                                          "an add-on's configurationValues), a folder of them, or `kubectl get cm,deploy -o yaml` output"))
        if os.path.isdir(path):
            yield from sorted(p for p in path.rglob("*") if p.is_file() and ".git" not in p.parts and (
                p.suffix in YAML_SUFFIXES or p.name == "Corefile" or p.suffix == ".Corefile"))
        else:
            yield path


def _plain(doc: Any) -> Any:
    """ruamel's nodes as plain data (str, int, dict, list)."""
    return json.loads(json.dumps(doc, default=str))


def _add(held: Held, obj: dict[str, Any], where: str) -> None:
    if obj.get("kind") == "Addon":  # the add-on's values document and an ACK Addon carrying the same values are one
        same = [o for o in held.objects if o.get("kind") == "Addon" and _addon_values(o) == _addon_values(obj)]
        if same and "clusterName" in (obj.get("spec") or {}):  # the ACK Addon says more: it stands for both
            held.objects.remove(same[0])
        elif same:
            return
    held.objects.append(obj)
    held.origins[id(obj)] = where


def _addon_values(obj: dict[str, Any]) -> Any:
    try:
        return json.loads(str((obj.get("spec") or {}).get("configurationValues") or "{}"))
    except ValueError:
        return str((obj.get("spec") or {}).get("configurationValues"))


def _readable(obj: dict[str, Any], file: str, where: str) -> None:
    """The values a platform renders its Corefile from must read as the platform reads them.

    Raises:
        ManifestError: they do not (YAML for RKE2's valuesContent, a JSON object for EKS).
    """
    try:
        managed_corefile(obj)
    except ValueError as err:
        line = int(where.rsplit(":", 1)[1])
        key = "spec.valuesContent" if obj.get("kind") == "HelmChartConfig" else "spec.configurationValues"
        raise ManifestError(Problem(str(err), file=file, line=line, key=key,
                                    hint="fix the values as the platform reads them")) from None


def _document(held: Held, doc: Any, file: str) -> None:
    line = int(getattr(getattr(doc, "lc", None), "line", 0) or 0) + 1
    where = f"{file}:{line}"
    kind = str(doc.get("kind") or "")
    meta = doc.get("metadata") if isinstance(doc.get("metadata"), dict) else {}
    name, namespace = str(meta.get("name") or ""), str(meta.get("namespace") or "")
    spec = doc.get("spec") if isinstance(doc.get("spec"), dict) else {}
    api = str(doc.get("apiVersion") or "")
    if kind == "ConfigMap" and name in NAMES and namespace in ("", "kube-system"):
        obj = _plain(doc)
        obj.setdefault("metadata", {})["namespace"] = "kube-system"
        _add(held, obj, where)
    elif kind == "ConfigMap" and name == RKE2_CHART_CONFIGMAP and namespace in ("", "kube-system"):
        # what the rke2-coredns chart rendered (a cluster's dump): the Corefile CoreDNS loads, read as the main one
        obj = _plain(doc)
        obj["metadata"] = {"name": "coredns", "namespace": "kube-system"}
        _add(held, obj, f"{where}, ConfigMap {RKE2_CHART_CONFIGMAP}")
    elif kind == "HelmChartConfig" and name == "rke2-coredns" and namespace in ("", "kube-system") and api.startswith("helm.cattle.io/"):
        obj = _plain(doc)
        obj["metadata"]["namespace"] = "kube-system"
        _readable(obj, file, where)
        _add(held, obj, where)
    elif kind == "Addon" and api.startswith("eks.services.k8s.aws/") and spec.get("name") == "coredns":
        obj = _plain(doc)
        _readable(obj, file, where)
        _add(held, obj, where)
    elif not kind and isinstance(doc.get("corefile"), str):  # an EKS add-on configurationValues document
        _add(held, {"apiVersion": "eks.services.k8s.aws/v1alpha1", "kind": "Addon",
                    "metadata": {"name": "coredns", "namespace": "kube-system"},
                    "spec": {"name": "coredns", "configurationValues": json.dumps(_plain(doc))}}, where)
    elif kind in ("HelmRelease", "HelmChart") and "coredns" in json.dumps(_plain(spec.get("chart") or spec.get("chartRef") or name)):
        held.unsupported.append(Difference(f"{kind} {namespace or '-'}/{name} ({where})", "the CoreDNS Helm chart",
                                           "coredns-gen configures the platform's own CoreDNS, not a chart installed "
                                           "beside it: nothing of it is imported"))
    elif ObjectRef(kind, namespace or "kube-system", name) in dns_objects():
        obj = _plain(doc)
        obj.setdefault("metadata", {})["namespace"] = namespace or "kube-system"
        held.others.append(obj)
        held.origins[id(obj)] = where
    elif kind == "Kustomization" and api.startswith("kustomize.toolkit.fluxcd.io/"):
        obj = _plain(doc)
        held.flux.append(obj)
        held.origins[id(obj)] = where
    elif kind and not api.startswith("kustomize.config.k8s.io/"):  # (a kustomization.yaml is a build file, not an object)
        held.skipped.append(f"{kind} {namespace or '-'}/{name} ({where})")


def read_inputs(paths: list[Path]) -> Held:
    """Every cluster DNS object in `paths` (files or folders).

    Raises:
        UsageError: a path does not exist.
        ManifestError: a file is not a regular UTF-8 text file or not YAML.
    """
    held = Held()
    for path in _files(paths):
        file = str(path)
        is_yaml = path.suffix in YAML_SUFFIXES
        text = read_user_file(path, file, error=ManifestError, yaml=is_yaml)
        held.files.append(file)
        if not is_yaml:
            _add(held, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "coredns", "namespace": "kube-system"},
                        "data": {"Corefile": text}}, f"{file}:1")
            continue
        docs = manifest_documents(text, file)
        held.documents[file] = len(docs)
        for doc in docs:
            _document(held, doc, file)
    _one_each(held)
    return held


def _one_each(held: Held) -> None:
    """One cluster's objects: the same object twice (a repository file and a dump, two overlays)
    would leave one of them unread.

    Raises:
        UsageError: naming both places.
    """
    seen: dict[tuple[str, str], str] = {}
    problems = []
    for obj in [*held.objects, *held.others]:
        ref = (str(obj.get("kind")), str((obj.get("metadata") or {}).get("name")))
        where = held.origins[id(obj)]
        if ref in seen:
            file, _, rest = where.partition(", ")[0].rpartition(":")
            problems.append(Problem(f"{ref[0]} {ref[1]} is here and at {seen[ref]}: import reads one cluster at a time",
                                    file=file, line=int(rest) if rest.isdigit() else None, key="PATH",
                                    hint="pass the files of one cluster"))
        seen.setdefault(ref, where)
    if problems:
        raise UsageError(problems)
