"""Load a values file (ruamel round-trip, so every problem has a line), validate it, freeze it.

Schema-expressible checks live in schema/values.schema.json; cross-field and platform checks
(known versions, the `next` gate, addresses) live here. Every problem in a file is reported at
once, one `file:line:col: key: problem — fix` line each, then the load fails with ValuesError.
"""

from __future__ import annotations

import json
import os
import re
from importlib import resources
from pathlib import Path, PurePosixPath
import typing
from typing import Any, Iterator

from gen import fluxvars, yamlio
from gen.render import addresses, injection, labels
from gen.boundary import Boundary, inside
from gen.render.checks import check_values, refused_platform
from gen.document import quick_document, read_document, read_text
from gen.errors import Problem, ValuesError, quote
from gen.platforms import assumed, default_coredns_version
from gen.schema_errors import SchemaChecker, key_path, locate
from gen.spec import (cache_lines, forward_option_lines, unset_forward_options, Ack, DefaultBlock, Policy, Alert, Autoscaling, Eks, Flux, FluxSource, Nodelocal, Override, PLACEHOLDER_RESOLVER, Server, RESOLV_CONF, Rke2,
                      Upstream, Values, Zone, default_overlay)

SCHEMA: dict[str, Any] = json.loads(
    resources.files("gen").joinpath("schema/values.schema.json").read_text(encoding="utf-8")
)
_CHECKER = SchemaChecker(SCHEMA)


def preload_schema() -> None:
    """The compiled values schema, loaded now (see templating.preload)."""
    _CHECKER.checker.compile()


def position(path: Path, shown: str, keys: list[Any]) -> tuple[int | None, int | None]:
    """Line and column of a key in a file that already validated (for cross-file problems)."""
    return locate(read_document(path, shown), keys)


# Line breaks (YAML's too: NEL, LS, PS) and other control characters; a tab may indent an override line.
_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]")


def _control_characters(data: Any, shown: str, reported: set[str]) -> Iterator[Problem]:
    """Every value lands on one line of a Corefile or a path: a line break inside one would end
    it early (injection) or make a file name nobody can type. Keys already reported by the
    schema (whose patterns refuse these too) are not reported twice."""
    stack: list[tuple[list[Any], Any]] = [([], data)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, dict):
            stack.extend(([*path, k], v) for k, v in node.items())
            texts = [(k, [*path, k]) for k in node if isinstance(k, str) and not k.isprintable()]  # label names
        elif isinstance(node, list):
            stack.extend(([*path, i], v) for i, v in enumerate(node))
            continue
        else:
            texts = [(node, path)] if isinstance(node, str) and not node.isprintable() else []
        for text, where in texts:
            found = _CONTROL.search(text)
            key = key_path(where)
            if found and key not in reported:
                what = "a line break" if found[0] in "\n\r\x85\u2028\u2029" else f"the control character U+{ord(found[0]):04X}"
                line, col = locate(data, where)
                yield Problem(f"{quote(text)} contains {what}", file=shown, line=line, col=col, key=key,
                              hint="write it on one line, without control characters")


def _valid(data: Any, shown: str) -> Values | None:
    """The fast loader's document, frozen, when every check passes; None when one fails. A
    schema failure is not explained here (explaining needs positions: another document)."""
    if not _CHECKER.checker.is_valid(data):
        return None
    return _check(data, shown, all_printable=True, schema_valid=True)[0]


def _check(data: Any, shown: str, *, all_printable: bool = False, schema_valid: bool = False) -> tuple[Values | None, list[Problem]]:
    """`all_printable`: the fast loader already saw every string printable (no walk needed);
    `schema_valid`: this very document already passed the schema (validated once, not twice)."""
    refused = refused_platform(data, shown)
    if refused is not None:
        return None, [refused]
    problems = [] if schema_valid else _CHECKER.problems(data, shown)
    problems += fluxvars.check(data, shown, {p.key for p in problems if p.key})
    problems += addresses.check_addresses(data, shown, {p.key for p in problems if p.key})
    problems += injection.check(data, shown, {p.key for p in problems if p.key})
    problems += labels.check(data, shown)
    if not all_printable:
        problems += _control_characters(data, shown, {p.key for p in problems if p.key})
    if problems:
        return None, problems
    values = _freeze(data, shown)
    problems = check_values(values, data)
    return (None, problems) if problems else (values, [])


def values_from_data(data: Any, shown: str) -> Values:
    """Validate and freeze a values mapping built in memory (`coredns-gen import` proves what it
    writes by rendering it), with every check a values file gets.

    Raises:
        ValuesError: with every problem found (keys as a values file would show them).
    """
    values, problems = _check(data, shown)
    if problems:
        raise ValuesError(sorted(problems, key=Problem.sort_key))
    assert values is not None
    return values


def load_values(path: Path, *, repo: Path, boundary: Boundary | None = None) -> Values:
    """Load, validate and freeze one values file.

    A valid file takes the libyaml fast path. A file libyaml read but that fails a check is
    read again by libyaml with positions; one libyaml cannot read (or that needs ruamel to say
    why) is re-read with ruamel round-trip, so every reported problem carries its line and column.
    The file is read at its resolved path, after the repository boundary (gen.boundary) let it.

    Raises:
        ValuesError: with every problem found in the file (exit 2).
    """
    shown = _shown(path, repo)
    real = inside(boundary or Boundary(repo), path, shown=shown, key="VALUES_FILE", error=ValuesError,
                  hint="keep values files in the GitOps repository as regular files (not symlinks that lead out "
                       "of it, not under .git), or pass --repo")
    text = read_text(Path(real), shown)
    quick = quick_document(text)
    if quick is not None:
        values = _valid(quick, shown)
        if values is not None:
            return values
        doc = yamlio.load_positioned(text)
        values, problems = _check(doc, shown, all_printable=True)
    else:
        doc = read_document(Path(real), shown, text)
        values, problems = _check(doc, shown)
    if problems:
        manifest = _manifest(doc, shown)
        raise ValuesError([manifest] if manifest else sorted(problems, key=Problem.sort_key))
    assert values is not None
    return values


def _manifest(doc: Any, shown: str) -> Problem | None:
    """One problem instead of every schema error when the file is a Kubernetes object (a
    ConfigMap, a Deployment): the user meant to check a Corefile, which is `lint --load`'s job."""
    if not isinstance(doc, dict) or "apiVersion" not in doc or "kind" not in doc:
        return None
    return Problem(f"{shown} is a Kubernetes manifest (kind: {doc['kind']}), not a coredns-gen values file",
                   file=shown, line=1, key="kind",
                   hint=f"to check the Corefile it holds in the real CoreDNS run `coredns-gen lint --load {shown}`; "
                        "verify takes a values file (start one with `coredns-gen new --platform NAME`)")


def _shown(path: Path, repo: Path) -> str:
    """The path users see in messages and headers: always relative to the repo root, as the
    user spelled it when that spelling is under the root as given (gen.boundary then decides
    whether the file it resolves to may be read).

    A values file outside the repository is refused: its absolute path would land in every
    generated header (a different checkout renders different bytes), and a GitOps repo that
    renders from files it does not hold cannot be reproduced from git.

    Raises:
        ValuesError: the file is outside the repository, or its name is not printable UTF-8.
    """
    root = os.path.abspath(repo)
    for absolute, base in _spellings(path, repo, root):
        inside = base.rstrip(os.sep) + os.sep
        if absolute.startswith(inside):
            shown = absolute[len(inside):].replace(os.sep, "/")
            if not shown.isprintable():  # it goes into every generated file's header comment (gen/comments.py)
                raise ValuesError(Problem(f"the file name {quote(shown)} holds a line break, a control character or "
                                          "bytes that are not UTF-8", key="VALUES_FILE",
                                          hint="rename the values file to a name of printable UTF-8 characters"))
            return shown
    raise ValuesError(Problem(f"is outside the repository {root}", file=os.path.abspath(path), key="VALUES_FILE",
                              hint="keep values files in the GitOps repository (e.g. dns/<cluster>.yaml), or pass --repo"))


def _spellings(path: Path, repo: Path, root: str) -> Iterator[tuple[str, str]]:
    """The file and the repo as given, then with symlinks resolved (only when needed: two
    realpath() calls cost half of reading the file)."""
    yield os.path.abspath(path), root
    yield os.path.realpath(path), os.path.realpath(repo)


def normal_posix(path: str) -> str:
    """str(PurePosixPath(path)), without building one for a path that is already written so
    (no empty or `.` part): a path object per file was a quarter of freezing a values file."""
    if path not in ("", ".") and "//" not in path and "/./" not in path and not path.startswith("./") \
            and not path.endswith(("/", "/.")):
        return path
    return str(PurePosixPath(path))


def _tuple(items: Any) -> tuple[str, ...]:
    return tuple(str(i) for i in items)


def _freeze(d: Any, shown: str) -> Values:
    up = d.get("upstream")
    upstream = None
    if up is not None:
        resolv_conf = bool(up.get("resolvConf", False))
        upstream = Upstream(
            resolvers=_tuple(up.get("resolvers", [])),
            # kept as the primary, resolv.conf is no fallback: only the fallback the user lists
            fallback=_tuple(up.get("fallback", [] if resolv_conf else [RESOLV_CONF])),
            fallback_on=_tuple(up.get("fallbackOn", ["SERVFAIL", "REFUSED"])),
            resolv_conf=resolv_conf,
            options=forward_option_lines(up.get("forward") or {}),
            policy=typing.cast(Policy, str(up.get("policy", "sequential"))),
            unset=unset_forward_options(up.get("forward") or {}),
        )
    block = d.get("defaultBlock")
    default_block = None if block is None else DefaultBlock(
        cache=cache_lines(block["cache"]) if "cache" in block else (),
        omit=_tuple(block.get("omit", [])), lines=_tuple(block.get("lines", [])))
    servers = tuple(Server(zones=tuple(str(z).rstrip(".").lower() or "." for z in s["zones"]), lines=_tuple(s["lines"]))
                    for s in d.get("servers", []))
    zones = tuple(
        Zone(zone=fluxvars.lower_outside(str(z["zone"]).rstrip(".")), upstreams=_tuple(z["upstreams"]),
             policy=str(z.get("policy", "sequential")),
             kind=str(z.get("kind", "stub")), fallback=_tuple(z.get("fallback", [])),
             fallback_on=_tuple(z.get("fallbackOn", ["SERVFAIL", "REFUSED"])), cache=int(z.get("cache", 30)),
             lines=_tuple(z.get("lines", [])), options=forward_option_lines(z.get("forward") or {}))
        for z in d.get("zones", [])
    )
    overrides = tuple(Override(name=str(o["name"]), lines=_tuple(o["lines"])) for o in d.get("overrides", []))
    a = d.get("autoscaling", {})
    autoscaling = Autoscaling(int(a.get("minReplicas", 2)), int(a.get("maxReplicas", 3)),
                              int(a.get("cpuUtilization", 80)), int(a.get("scaleDownWindowSeconds", 600)))
    al = d.get("alert", {})
    alert = Alert(bool(al.get("enabled", False)), str(al.get("for", "5m")), str(al.get("severity", "critical")),
                  tuple(sorted((str(k), str(v)) for k, v in al.get("labels", {}).items())))
    cluster, platform = str(d["cluster"]), str(d["platform"])
    f = d.get("flux", {})
    src = f.get("source")
    source = None
    if src is not None:
        url = src.get("url")
        source = FluxSource(kind=str(src["kind"]), name=str(src.get("name", f"coredns-{cluster}")),
                            url=None if url is None else str(url),
                            interval=str(src.get("interval", "5m")), secret_ref=src.get("secretRef"),
                            ref=tuple((str(k), str(v)) for k, v in src.get("ref", {}).items()))
    overlay = normal_posix(str(d.get("overlay", default_overlay(platform, cluster))))
    meta = f.get("commonMetadata", {})
    post = f.get("postBuild")
    flux = Flux(
        output=normal_posix(str(f.get("output", f"clusters/{cluster}/coredns.yaml"))),  # a/./b.yaml is a/b.yaml
        name=str(f.get("name", "coredns")), namespace=str(f.get("namespace", "flux-system")),
        path=str(f.get("path", f"./{overlay}")),
        interval=str(f.get("interval", "10m")), timeout=str(f.get("timeout", "5m")),
        retry_interval=str(f.get("retryInterval", "2m")), wait=bool(f.get("wait", True)),
        depends_on=tuple((str(x["name"]), x.get("namespace")) for x in f.get("dependsOn", [])),
        source=source,
        prune=bool(f.get("prune", True)), target_namespace=f.get("targetNamespace"),
        common_labels=tuple(sorted((str(k), str(v)) for k, v in meta.get("labels", {}).items())),
        common_annotations=tuple(sorted((str(k), str(v)) for k, v in meta.get("annotations", {}).items())),
        substitute=None if post is None else tuple(sorted((str(k), str(v)) for k, v in post.get("substitute", {}).items())),
        substitute_from=() if post is None else tuple((str(x["kind"]), str(x["name"]), x.get("optional"))
                                                      for x in post.get("substituteFrom", [])),
    )
    r = d.get("rke2", {})
    nodelocal = r.get("nodelocal")
    rke2 = Rke2(Nodelocal(bool(nodelocal["enabled"]), bool(nodelocal.get("ipvs", False))) if nodelocal is not None else None,
                tuple((str(k), v) for k, v in r.get("autoscaler", {}).items()))
    e = d.get("eks", {})
    ack = e.get("ack")
    configuration = e.get("configurationValues")
    eks = Eks(json.dumps(configuration, sort_keys=True) if configuration else "{}",  # (no encoder for the usual {})
              Ack(str(ack["clusterName"]), str(ack.get("namespace", "kube-system")), str(ack.get("resolveConflicts", "OVERWRITE")))
              if ack is not None else None)
    version = d.get("corednsVersion")
    coredns = str(version).lstrip("v") if version else default_coredns_version(platform, str(d["platformVersion"]))
    notice = assumed(platform, str(d["platformVersion"]), pinned=bool(version))
    notices: tuple[str, ...] = (f"{shown}: {notice}",) if notice else ()
    if upstream is not None and PLACEHOLDER_RESOLVER in upstream.resolvers:
        notices += (f"{shown}: upstream.resolvers: {PLACEHOLDER_RESOLVER} is the starter's placeholder (a documentation "
                    "address, RFC 5737): nothing answers there; put your DNS servers in its place",)
    return Values(
        source=shown, cluster=cluster, platform=platform, platform_version=str(d["platformVersion"]),
        coredns_version=coredns or "", cluster_domain=str(d.get("clusterDomain", "cluster.local")),
        flux=flux, upstream=upstream, zones=zones, overrides=overrides, autoscaling=autoscaling, alert=alert,
        rke2=rke2, eks=eks, notices=notices, overlay=overlay, default_block=default_block,
        servers=servers,
    )
