"""`coredns-gen import`: read, say as values, prove by rendering, report.

The contract (docs/migrate.md): the values are written only when the proof shows the render
loads what CoreDNS loads now, or with `--allow-loss` when every difference is named; what
differs is listed key by key and as a line diff of the Corefile CoreDNS would load.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gen import yamlio
from gen.render import artifact
from gen.comments import comment
from gen.adopt import fluxbuild, mapping
from gen.adopt.differences import Difference, Held
from gen.adopt.prove import canonical, compare_others, prove, rendered_objects
from gen.adopt.read import read_inputs
from gen.corefile import CorefileError, parse_directives
from gen.errors import Problem, RenderedValuesError, UsageError, ValuesError
from gen.platforms import k3s, require, rke2 as rke2_platform
from gen.platforms.base import COREDNS_CONFIGMAP, ObjectRef, Platform
from gen.render.cluster import render_cluster
from gen.render.render_check import place
from gen.spec import default_overlay
from gen.render.values import SCHEMA, values_from_data
from gen.versions import parse_version

_NAME = re.compile(r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")
SHOWN = "<imported values>"
_TOP = re.compile(r"^(zones|overrides|servers)\[(\d+)\]")


@dataclass
class ImportResult:
    values_text: str | None  # None: no values file renders on this version (the differences say why)
    differences: list[Difference] = field(default_factory=list)
    diff: str = ""  # line diff of the Corefile CoreDNS would load, input -> render
    read: list[str] = field(default_factory=list)  # the objects imported, with file:line
    notes: list[str] = field(default_factory=list)  # what was left alone, and why
    placed: list[str] = field(default_factory=list)  # where each part of the input went in the values

    @property
    def same(self) -> bool:
        return self.values_text is not None and not self.differences and not self.diff


def _data(cluster: str, platform: Platform, release: str) -> dict[str, Any]:
    return {"cluster": cluster, "platform": platform.NAME, "platformVersion": release}


def _upstream_required(base: dict[str, Any]) -> bool:
    try:
        values_from_data(base, SHOWN)
    except ValuesError as err:
        return any(p.key == "upstream" for p in err.problems)
    return False


def _configmap_data(held: Held, name: str) -> dict[str, str] | None:
    for obj in held.objects:
        if obj.get("kind") == "ConfigMap" and (obj.get("metadata") or {}).get("name") == name:
            return {str(k): str(v) for k, v in (obj.get("data") or {}).items()}
    return None


def _map(held: Held, platform: Platform, release: str, base: dict[str, Any]) -> mapping.Mapped:
    version = parse_version(platform.stand_in(release) or release)
    data: dict[str, Any] = dict(base)
    diffs: list[Difference] = []
    placed: list[str] = []
    owned = _owned(held, platform, release)
    main = _configmap_data(held, "coredns")
    corefile_text = main.get("Corefile") if main is not None else None
    where = "Corefile"
    for obj in held.objects:
        if obj.get("kind") == "HelmChartConfig":
            corefile_text, where = _rke2(obj, data, release), "Corefile of the rke2-coredns chart"
        elif obj.get("kind") == "Addon":
            corefile_text, where = _eks(obj, data), "corefile of the EKS add-on configurationValues"
    if main is not None and owned:  # a zone file for the `file` plugin, say: the render writes only the Corefile
        diffs += [Difference(f"ConfigMap kube-system/coredns key {key}", f"{len(text)} characters",
                             "the render writes only its Corefile: no values key says it") for key, text in sorted(main.items()) if key != "Corefile"]
    if corefile_text is None and owned and main is None and _configmap_data(held, "coredns-custom") is not None \
            and not any(o.get("kind") in ("HelmChartConfig", "Addon") for o in held.objects):
        # (only coredns-custom given: CoreDNS loads the platform's Corefile, as it wrote it)
        corefile_text, where = platform.stock_corefile(version, "cluster.local"), f"{platform.NAME} {release} stock Corefile"
        if corefile_text is not None:
            placed.append(f"ConfigMap kube-system/coredns is not among the inputs: the {where} is read as the one the "
                          "cluster runs (pass the coredns ConfigMap, or a dump of it, if it was changed)")
    if corefile_text is not None and owned:
        found = mapping.main_corefile(corefile_text, platform, version, where, upstream_required=_upstream_required(base))
        data.update(found.data)
        diffs += found.differences
        placed += [f"{where} -> {', '.join(k for k in ('clusterDomain', 'upstream', 'defaultBlock', 'servers') if k in found.data) or 'the stock default block'}"
                   f"{', zones: ' + ', '.join(z['zone'] for z in found.data.get('zones', [])) if found.data.get('zones') else ''}"]
    for obj in held.others:
        ref = ObjectRef(str(obj.get("kind")), "kube-system", str((obj.get("metadata") or {}).get("name")))
        if ref.kind == "HorizontalPodAutoscaler" and ref in platform.OWNS:
            data["autoscaling"] = mapping.autoscaling_of(obj)
            placed.append(f"{ref} -> autoscaling")
        elif ref == k3s.ALERT and platform.NAME == k3s.NAME:
            data["alert"] = mapping.alert_of(obj)
            placed.append(f"{ref} -> alert")
    custom = _configmap_data(held, "coredns-custom")
    if custom:
        overrides = any(p.suffix == ".override" for p in platform.import_points(version)) and not owned
        found = mapping.custom_keys(custom, platform, version, overrides=overrides)
        for key, value in found.data.items():
            if isinstance(value, list):
                data[key] = [*data.get(key, []), *value]
            elif key not in data:
                data[key] = value
        diffs += found.differences
        placed += found.placed
    return mapping.Mapped(data, diffs, placed)


def _owned(held: Held, platform: Platform, release: str) -> bool:
    """The repository owns the whole Corefile: the coredns ConfigMap (Talos, kubeadm), the chart
    values (RKE2) or the add-on's configurationValues (EKS). A platform that imports no
    coredns-custom key (EKS, RKE2) takes every change through the whole Corefile, so the one a
    cluster's dump shows is what the values must say."""
    return COREDNS_CONFIGMAP in platform.OWNS or any(o.get("kind") in ("HelmChartConfig", "Addon") for o in held.objects) \
        or not platform.import_points(parse_version(platform.stand_in(release) or release))


def _stock_note(held: Held, platform: Platform, release: str) -> str:
    """A note when the platform's Corefile in the input is not the stock one coredns-gen holds
    (lint, verify and the guard judge with the stock one)."""
    text = (_configmap_data(held, "coredns") or {}).get("Corefile", "")
    stock = platform.stock_corefile(parse_version(platform.stand_in(release) or release), "cluster.local") or ""
    try:
        same = canonical(text, "input") == canonical(stock, "stock")
    except CorefileError:
        same = False
    return "" if same else (f"ConfigMap kube-system/coredns is {platform.NAME}'s own and stays as it is; it is not the "
                            f"{platform.NAME} {release} stock Corefile coredns-gen holds, which lint, verify and the guard judge with")


def _rke2(obj: dict[str, Any], data: dict[str, Any], release: str) -> str:
    from_content = yamlio.load_all_safe(str((obj.get("spec") or {}).get("valuesContent") or ""))
    content = from_content[0] if from_content and isinstance(from_content[0], dict) else {}
    rke2: dict[str, Any] = {}
    if isinstance(content.get("nodelocal"), dict) and "enabled" in content["nodelocal"]:
        rke2["nodelocal"] = {k: v for k, v in content["nodelocal"].items() if k in ("enabled", "ipvs")}
    if isinstance(content.get("autoscaler"), dict):
        rke2["autoscaler"] = {k: v for k, v in content["autoscaler"].items()
                              if k in ("enabled", "min", "max", "coresPerReplica", "nodesPerReplica", "preventSinglePointFailure")}
    if rke2:
        data["rke2"] = rke2
    return rke2_platform.corefile_of(str((obj.get("spec") or {}).get("valuesContent") or ""), release)


def _eks(obj: dict[str, Any], data: dict[str, Any]) -> str | None:
    spec = obj.get("spec") or {}
    values = json.loads(str(spec.get("configurationValues") or "{}"))
    extra = {k: v for k, v in values.items() if k != "corefile"}
    if extra:
        data.setdefault("eks", {})["configurationValues"] = extra
    if "clusterName" in spec:  # an ACK Addon: eks.ack (the proof compares the rest of its spec)
        ack = {"clusterName": spec["clusterName"], "namespace": (obj.get("metadata") or {}).get("namespace") or "kube-system",
               "resolveConflicts": spec.get("resolveConflicts") or "OVERWRITE"}
        data.setdefault("eks", {})["ack"] = ack
    corefile = values.get("corefile")
    return corefile if isinstance(corefile, str) else None


def _override_lines(override: dict[str, Any]) -> tuple[str, ...]:
    """The lines an override that is not imported held, as the proof's diff shows them."""
    try:
        return mapping.lines_of(parse_directives("\n".join(override.get("lines") or []) + "\n", filename="override"))
    except CorefileError:
        return tuple(line.strip() for line in override.get("lines") or [])


def _drop(data: dict[str, Any], problems: list[Problem], upstream_said: bool) -> tuple[list[Difference], bool]:
    """Take out of `data` each part a problem names, as a difference; False when a problem names
    nothing that can be taken out (no values file renders: the differences say why)."""
    drops: dict[str, set[int]] = {}
    dropped: set[str] = set()
    diffs: list[Difference] = []
    for problem in problems:
        key = problem.key or ""
        found = _TOP.match(key)
        top = key.split(".")[0].split("[")[0]
        if found:
            items = data.get(found[1]) or []
            index = int(found[2])
            if index < len(items):
                drops.setdefault(found[1], set()).add(index)
                what = items[index].get("zone") or items[index].get("name") or " ".join(items[index].get("zones") or [])
                diffs.append(Difference(f"{found[1]}[{index}] ({what})", key, f"not imported: {problem.problem}",
                                        lines=_override_lines(items[index]) if found[1] == "overrides" else ()))
                continue
        if top == "upstream" and not upstream_said:
            return diffs, False  # the mapping named the field it needs (upstream.resolvConf)
        if top in ("upstream", "defaultBlock", "rke2", "eks", "clusterDomain", "autoscaling", "alert", "flux") and (top in data or top in dropped):
            data.pop(top, None)
            dropped.add(top)
            diffs.append(Difference(top, key, f"not imported: {problem.problem}"))
            continue
        diffs.append(Difference("the imported values", key or "-", problem.problem))
        return diffs, False
    for name, indexes in drops.items():
        data[name] = [z for i, z in enumerate(data[name]) if i not in indexes]
        if not data[name]:
            del data[name]
    return diffs, True


def _applying(held: Held, repo: Path) -> tuple[dict[str, Any], str] | None:
    """The Flux Kustomization among the inputs whose `path` holds the DNS objects' files (the
    deepest, when several do), with where it is written."""
    folders = set()
    for obj in [*held.objects, *held.others]:
        file = held.origins[id(obj)].partition(", ")[0].rpartition(":")[0]
        folders.add(posixpath.normpath(os.path.relpath(os.path.dirname(os.path.abspath(file)), repo).replace(os.sep, "/")))
    found = []
    for ks in held.flux if folders else []:
        path = str((ks.get("spec") or {}).get("path") or "")
        folder = posixpath.normpath(path.lstrip("/")) if path else ""
        if folder and all(f == folder or f.startswith(folder + "/") or folder == "." for f in folders):
            found.append((len(folder), ks))
    if not found:
        return None
    found.sort(key=lambda f: -f[0])
    if len(found) > 1 and found[0][0] == found[1][0]:
        return None
    return found[0][1], held.origins[id(found[0][1])]


def _flux(held: Held, repo: Path, data: dict[str, Any]) -> tuple[list[Difference], list[str]]:
    """`flux:` from the Flux Kustomization that applies the input, when the input holds it."""
    applying = _applying(held, repo)
    if applying is None:
        return [], ([] if not held.flux else ["no Flux Kustomization among the inputs applies these files alone: "
                                              "`flux:` is left at its defaults (docs/migrate.md: keep the old one's name)"])
    ks, where = applying
    _refuse_umbrella(ks, where, held, repo)
    left = [f"not cluster DNS configuration, left alone: Kustomization {(k.get('metadata') or {}).get('name')} "
            f"({held.origins[id(k)]})" for k in held.flux if k is not ks]
    file = where.rpartition(":")[0]
    rel = os.path.relpath(os.path.abspath(file), repo).replace(os.sep, "/")
    output = rel if held.documents.get(file) == 1 else None
    applied, built_notes = fluxbuild.as_applied(ks, rel, [(k, held.origins[id(k)]) for k in held.flux if k is not ks], repo)
    if applied is not None and (applied[0].get("spec") or {}) != (ks.get("spec") or {}):
        spec, said = applied[0].get("spec") or {}, ks.get("spec") or {}
        changed = sorted(k for k in set(spec) | set(said) if spec.get(k) != said.get(k))
        built_notes.append(f"Flux Kustomization {(ks.get('metadata') or {}).get('name')} ({where}) is read as Flux applies it, "
                           f"built by the Kustomization at {applied[1]}: its patches set spec.{', spec.'.join(changed)}")
        ks = {**ks, "spec": spec}
    flux, diffs, notes = mapping.flux_of(ks, output if output and not output.startswith("../") else None, where)
    notes = built_notes + notes
    data["flux"] = flux
    return diffs, notes + left


_BUILD_FILES = ("kustomization.yaml", "kustomization.yml", "Kustomization")
_SHOWN_FILES = 3


def _refuse_umbrella(ks: dict[str, Any], where: str, held: Held, repo: Path) -> None:
    """Import keeps the applying Kustomization's name and repoints its `path` at the overlay (the
    one-commit switch of docs/migrate.md); for a Kustomization that applies more than cluster DNS
    (an `apps` umbrella) that prunes everything else it applies, so it is refused.

    Raises:
        UsageError: naming the files under its path that hold no cluster DNS object.
    """
    path = str((ks.get("spec") or {}).get("path") or "")
    folder = repo / posixpath.normpath(path.lstrip("/")) if path else repo
    dns = {os.path.abspath(held.origins[id(o)].partition(", ")[0].rpartition(":")[0]) for o in [*held.objects, *held.others]}
    other = sorted(os.path.relpath(p, repo).replace(os.sep, "/") for p in folder.rglob("*")
                   if p.is_file() and ".git" not in p.parts and p.suffix in (".yaml", ".yml") and p.name not in _BUILD_FILES
                   and os.path.abspath(p) not in dns) if folder.is_dir() else []
    if not other:
        return
    name = (ks.get("metadata") or {}).get("name")
    file, _, line = where.partition(", ")[0].rpartition(":")
    shown = ", ".join(other[:_SHOWN_FILES]) + (f" (+{len(other) - _SHOWN_FILES} more)" if len(other) > _SHOWN_FILES else "")
    raise UsageError(Problem(
        f"Flux Kustomization {name} applies more than cluster DNS: its path {path} also holds {shown}; import keeps its "
        f"name and points its path at the DNS overlay, and Flux would then prune all of that",
        file=file, line=int(line) if line.isdigit() else None, key="spec.path",
        hint=f"leave {os.path.basename(file)} out of the import (render then writes a Kustomization of its own: switch in two "
             f"commits, docs/migrate.md), or first move the DNS files under a Kustomization of their own"))


def _held_folder(held: Held, repo: Path) -> str | None:
    """The deepest folder holding every DNS object's file, as a repository path (None: outside
    the repository, or its root)."""
    folders = []
    for obj in [*held.objects, *held.others]:
        file = held.origins[id(obj)].partition(", ")[0].rpartition(":")[0]
        folders.append(posixpath.normpath(os.path.relpath(os.path.dirname(os.path.abspath(file)), repo).replace(os.sep, "/")))
    common = posixpath.commonpath(folders) if folders else "."
    return None if common in (".", "") or common.startswith("..") or ".git" in common.split("/") else common


def _overlay(held: Held, repo: Path, data: dict[str, Any]) -> list[str]:
    """`overlay:` beside the input when Flux's artifact would leave the default folder out (asked
    of source-controller's own rules, as render asks); the notes say so. The folder chosen is the
    one holding the input, which that artifact holds: the hand-written files there are deleted in
    the migration commit (render never overwrites a file it did not write)."""
    flux = data.get("flux") or {}
    source = flux.get("source") or {}
    kind, name = str(source.get("kind", "GitRepository")), str(source.get("name", "flux-system"))
    namespace = str(flux.get("namespace", "flux-system"))
    output = str(flux.get("output", f"clusters/{data['cluster']}/coredns.yaml"))

    def asked(folder: str) -> artifact.Asked:
        return artifact.Asked("imported values", folder, (f"{folder}/kustomization.yaml",), output, kind, name, namespace,
                              False, "source" in flux)

    default = default_overlay(str(data["platform"]), str(data["cluster"]))
    artifact.tree.cache_clear()  # (the repository as it is now: a run before may have seen it otherwise)
    found, _ = artifact.judge([asked(default)], str(repo))
    notes = []
    out = [f for f in found if f[2] == "flux.output"]
    if out:
        rule = out[0][3]
        notes.append(f"flux.output {output} would not be in the artifact of {out[0][4]}"
                     f"{f' (the rule {rule} leaves it out)' if rule else ''}: set flux.output to a file Flux applies "
                     "before rendering (pass the old Kustomization's file to import to keep its place)")
    if not any(f[2] == "overlay" for f in found):
        return notes
    rule, label = found[0][3], found[0][4]
    why = f"the rule {rule} leaves it out" if rule else "its ignore rules leave it out"
    beside = _held_folder(held, repo)
    if beside is None or any(f[2] == "overlay" for f in artifact.judge([asked(beside)], str(repo))[0]):
        return [*notes, f"the default overlay {default}/ would not be in the artifact of {label} ({why}) and no folder "
                        "beside the input is in it: set `overlay:` to a folder Flux delivers before rendering"]
    data["overlay"] = beside
    return [*notes, f"overlay: {beside} (beside the input): the default {default}/ would not be in the artifact of {label} "
                    f"({why}); delete the hand-written files in {beside}/ in the migration commit, render writes there"]


def import_dns(paths: list[Path], platform_name: str, release: str, cluster: str, coredns_version: str | None = None,
               repo: Path | None = None) -> ImportResult:
    """The values file that renders what `paths` hold for cluster DNS, and what would differ.

    Raises:
        UsageError: a bad flag, a missing path, or nothing of cluster DNS in the paths.
        ManifestError, CorefileError: an input that does not read or parse (exit 2).
    """
    platform = require(platform_name, "--platform")
    problems = []
    if not _NAME.fullmatch(cluster):
        problems.append(Problem(f"{cluster!r} is not a DNS-1123 label", key="--cluster", hint="use lower-case letters, digits and '-'"))
    try:
        known = platform.stand_in(release)
    except ValueError:
        known = None
    if known is None:
        problems.append(Problem(f"{platform.NAME} release {release!r} is not one coredns-gen knows", key="--platform-version",
                                hint=f"use one of {platform.known_releases()}"))
    elif known != release:  # a render borrows a stand-in for a patch newer than the tables; import names the release it reads
        problems.append(Problem(f"{platform.NAME} release {release!r} is not a release coredns-gen's tables hold (`1.11` "
                                "names no release; a patch past the newest known is a typo or newer than the tables)",
                                key="--platform-version",
                                hint=f"pass the exact release the cluster runs, e.g. {known} (the nearest below it), one of "
                                     f"{platform.known_releases()}; a release newer than the tables: upgrade coredns-gen"))
    if problems:
        raise UsageError(problems)
    held = read_inputs(paths)
    if not held.objects and not held.unsupported:
        read_files = f"the {len(held.files)} files read" if len(held.files) > 3 else ", ".join(held.files) or "the paths given"
        raise UsageError(Problem(f"no cluster DNS configuration in {read_files}", key="PATH",
                                 hint="pass the file(s) holding ConfigMap kube-system/coredns or coredns-custom, the "
                                      "HelmChartConfig rke2-coredns or the EKS add-on's configurationValues; "
                                      "with none, start from `coredns-gen new`"))
    read = [f"{o.get('kind')} {(o.get('metadata') or {}).get('name')} ({held.origins[id(o)]})" for o in held.objects]
    base = _data(cluster, platform, release)
    if coredns_version:
        base["corednsVersion"] = coredns_version
    mapped = _map(held, platform, release, base)
    differences = [*held.unsupported, *mapped.differences]
    data = mapped.data
    flux_differences, flux_notes = _flux(held, Path.cwd() if repo is None else repo, data)
    differences += flux_differences
    flux_notes += _overlay(held, Path.cwd() if repo is None else repo, data)
    upstream_said = not any(d.need == "upstream.resolvConf" for d in differences)
    for _ in range(8):
        try:
            values = values_from_data(data, SHOWN)
            files = render_cluster(values)
        except RenderedValuesError as err:
            found = place(err, data)
        except ValuesError as err:
            found = list(err.problems)
        else:
            break
        dropped, rendered_at_all = _drop(data, found, upstream_said)
        differences += [d for d in dropped if d not in differences]
        if not rendered_at_all:
            return ImportResult(None, differences, read=read)
    else:
        return ImportResult(None, differences, read=read)
    rendered = rendered_objects(files, platform.documents(values))
    notes = [f"not cluster DNS configuration, left alone: {x}" for x in held.skipped] + flux_notes
    platforms_own = _configmap_data(held, "coredns") is not None and not _owned(held, platform, release)
    if platforms_own:  # the platform's own Corefile, which the render leaves as it is
        rendered += [o for o in held.objects if o.get("kind") == "ConfigMap" and (o.get("metadata") or {}).get("name") == "coredns"]
        notes.append(_stock_note(held, platform, release))
    proof = prove(held.objects, rendered, platform, release, differences)
    others, said = compare_others(held.others, rendered, platform)
    proof.differences.extend(others)
    notes += said
    return ImportResult(_text(data, held, differences + proof.differences), differences + proof.differences, proof.diff,
                        read, [n for n in notes if n], mapped.placed)


def _text(data: dict[str, Any], held: Held, differences: list[Difference]) -> str:
    sources = sorted({held.origins[id(o)].partition(", ")[0].rpartition(":")[0] for o in [*held.objects, *held.others]})
    head = [comment(f"Imported by `coredns-gen import` from {', '.join(sources) or 'nothing'}.")]
    if differences:
        head.append(comment("It does not render everything the input holds:"))
        head += [comment(f"  - {d}") for d in differences]
    order = list(SCHEMA["properties"])  # the schema's order: identity, DNS, then the rest
    ordered = {k: data[k] for k in sorted(data, key=lambda k: order.index(k) if k in order else len(order))}
    return "\n".join(head) + "\n" + yamlio.dump(ordered)
