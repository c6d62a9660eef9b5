"""The guard's result as a versioned JSON envelope (`guard --result FILE`), and shards merged back
into one verdict (`coredns-gen guard-merge`).

The envelope carries everything a verdict is made of: the rule findings, the run's stats, both
commits, what was not judged (coverage, with the files holding Flux Kustomizations that the
shard's clusters do not read) and which shard it is. The not-judged findings are
rebuilt from the merged coverage (one `vars-unresolved` finding counts its Kustomizations over
every shard), so every shard's file merged gives what one unsharded run gives. Merging refuses
files of different commits, a missing or repeated shard, and an unknown envelope version: a
merged verdict must never pass because a shard's file went missing. It refuses as well shards
judged otherwise (another coredns-gen or helper, another --path, --allow or inventory: a
cluster one shard skipped or allowed is judged by none), and a file changed after the guard
wrote it (its sha256 over the rest does not verify: a finding deleted by hand, a bit flipped on
the way). The digest has no secret: it catches edits and damage, not a forger (docs/guard.md).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Literal, Mapping, cast, get_args

from gen import __version__
from gen.errors import UsageError
from gen.finding import Finding, Severity
from gen.guard.corefile_view import ID as VIEW
from gen.guard.coverage import Coverage, Nothing
from gen.guard.flux.roots import How
from gen.guard.model import KsRef
from gen.guard.result import GuardResult
from gen.inputfile import read_user_file

FORMAT = "coredns-gen/guard-result"
VERSION = 3  # 2: coverage.unread/holding decide `unreached` in the merge; 3: judged_as, sha256
COVERAGE_RULES = ("not-judged", "unreached", "vars-unresolved", "operator-not-judged")


def _ref(ref: KsRef) -> dict[str, str]:
    return {"cluster": ref.cluster, "namespace": ref.namespace, "name": ref.name}


def dump_result(result: GuardResult) -> str:
    """The envelope of one run (sharded or not), keys in a fixed order."""
    cov = result.coverage
    doc = {
        "format": FORMAT,
        "version": VERSION,
        "generator": f"coredns-gen {__version__}",
        "commits": {"base": result.commits.get("base", ""), "head": result.commits.get("head", "")},
        "shard": {"index": result.shard.index, "count": result.shard.count, "fleet_clusters": result.shard.fleet_clusters}
        if result.shard else None,
        "stats": dict(sorted(result.stats.items())),
        "coverage": {
            "roots_how": cov.roots_how,
            "not_judged": [{"kustomization": _ref(r), "reason": why, "file": file, "line": line}
                           for r, why, file, line in cov.not_judged],
            "unreached": list(cov.unreached),
            "unread": list(cov.unread),
            "holding": list(cov.holding),
            "unresolved": [{"kustomization": _ref(r), "reason": why} for r, why in cov.unresolved],
            "empty_clusters": list(cov.empty_clusters),
            "operator": [{"kind": kind, "name": name, "kustomization": _ref(by), "reason": why}
                         for kind, name, by, why in cov.operator],
            "identity": list(cov.identity),
            "nothing": {"clusters": cov.nothing.clusters, "reasons": list(cov.nothing.reasons),
                        "source": list(cov.nothing.source), "remotes": list(cov.nothing.remotes),
                        "why": cov.nothing.why, "folder": cov.nothing.folder} if cov.nothing else None,
        },
        # the Corefile views travel as the findings they are (rule corefile-diff) and are split off again
        "findings": [f.as_dict() for f in sorted([*result.findings, *result.views], key=Finding.sort_key)
                     if f.rule not in COVERAGE_RULES],
        "judged_as": dict(sorted(result.judged_as.items())),
    }
    doc["sha256"] = _digest(doc)
    return json.dumps(doc, indent=2) + "\n"


def _digest(doc: dict[str, Any]) -> str:
    """The sha256 of an envelope without its own digest, over its canonical JSON."""
    rest = {k: v for k, v in doc.items() if k != "sha256"}
    return hashlib.sha256(json.dumps(rest, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


@dataclass
class _Part:
    name: str
    commits: dict[str, str]
    index: int
    count: int
    stats: dict[str, int]
    coverage: Coverage
    findings: list[Finding]
    generator: str
    judged_as: dict[str, Any]


ShardMerge = Callable[[list[Finding]], list[Finding]]


def merge_results(paths: list[Path], merges: Mapping[str, ShardMerge]) -> GuardResult:
    """One verdict from every shard's envelope; `merges` (gen.guard.rules.SHARD_MERGES) turns the
    shards' findings of a rule that speaks for the whole fleet into what one run says.

    Raises:
        UsageError: a file is unreadable or not an envelope, commits differ, or a shard is
            missing or given twice (exit 2).
    """
    if not paths:
        raise UsageError("no result files given", hint="pass every shard's --result file: coredns-gen guard-merge shard-*.json")
    parts = [_load(p) for p in paths]
    first = parts[0]
    seen: dict[int, str] = {}
    for part in parts:
        if part.commits != first.commits:
            raise UsageError(f"{part.name} judged {_pair(part.commits)}, {first.name} judged {_pair(first.commits)}",
                             file=part.name, hint="merge the shards of one run only (same --base and --head)")
        if part.count != first.count:
            raise UsageError(f"{part.name} is shard {part.index}/{part.count}, {first.name} one of {first.count}",
                             file=part.name, hint="merge the shards of one run only (same --shard N)")
        if (part.generator, part.judged_as) != (first.generator, first.judged_as):
            differs = "the coredns-gen" if part.generator != first.generator else \
                ", ".join(k for k in sorted(set(part.judged_as) | set(first.judged_as))
                          if part.judged_as.get(k) != first.judged_as.get(k))
            raise UsageError(f"{part.name} was judged with another {differs} than {first.name}: a cluster one shard "
                             "skipped or judged otherwise would be judged by none", file=part.name,
                             hint="run every shard with the same coredns-gen, helper, --path, --allow and --inventory")
        if part.index in seen:
            raise UsageError(f"shard {part.index}/{part.count} is given twice: {seen[part.index]} and {part.name}",
                             file=part.name, hint="pass each shard's file once")
        seen[part.index] = part.name
    missing = [str(k) for k in range(1, first.count + 1) if k not in seen]
    if missing:
        raise UsageError(f"shard {', '.join(missing)} of {first.count} missing: a verdict needs every shard",
                         key="guard-merge", hint="pass every shard's --result file (did a shard's job fail before writing it?)")
    judging = [part for part in parts if part.stats.get("clusters", 0)]
    if judging and all(part.coverage.nothing for part in judging):  # as one run over the fleet: bad input
        raise Nothing.of_all([part.coverage.nothing for part in judging if part.coverage.nothing]).error()
    stats: dict[str, int] = {}
    not_judged: list[tuple[KsRef, str, str, int]] = []
    unresolved: list[tuple[KsRef, str]] = []
    empty: list[str] = []
    operator: list[tuple[str, str, KsRef, str]] = []
    identity: list[str] = []
    how = first.coverage.roots_how
    findings: list[Finding] = []
    for part in parts:
        for key, value in part.stats.items():
            stats[key] = stats.get(key, 0) + value
        not_judged += part.coverage.not_judged
        unresolved += part.coverage.unresolved
        empty += part.coverage.empty_clusters
        operator += [e for e in part.coverage.operator if e not in operator]
        identity += [e for e in part.coverage.identity if e not in identity]
        if part.coverage.roots_how != "bootstrap":
            how = part.coverage.roots_how
        findings += part.findings
    # unreached: the files no shard's clusters read that hold Kustomizations (which the shard
    # their path hashes to says)
    unread = set.intersection(*(set(part.coverage.unread) for part in parts))
    unreached = sorted({p for part in parts for p in part.coverage.holding} & unread)
    # the orders one unsharded run gives (coverage.measure walks sorted Kustomizations and clusters)
    cov = Coverage(not_judged=sorted(not_judged, key=lambda e: e[0]), unreached=unreached, unread=sorted(unread),
                   holding=list(unreached), unresolved=sorted(unresolved, key=lambda e: e[0]),
                   empty_clusters=sorted(empty), roots_how=how, operator=operator, identity=identity)
    stats["unreached"] = len(cov.unreached)
    # a rule that names what the whole fleet builds from says it once, over every shard's clusters
    for rule, merge in sorted(merges.items()):
        findings = [f for f in findings if f.rule != rule] + merge([f for f in findings if f.rule == rule])
    findings += cov.findings()
    views = [f for f in findings if f.rule == VIEW]
    findings = [f for f in findings if f.rule != VIEW]
    return GuardResult(sorted(findings, key=Finding.sort_key), stats, dict(first.commits), cov,
                       views=sorted(views, key=Finding.sort_key))


def _pair(commits: dict[str, str]) -> str:
    return f"{commits.get('base', '')[:12]}..{commits.get('head', '')[:12]}"


def _ks(raw: dict[str, str]) -> KsRef:
    return KsRef(str(raw["cluster"]), str(raw["namespace"]), str(raw["name"]))


def _finding(raw: dict[str, Any]) -> Finding:
    column = raw["column"]
    return Finding(str(raw["rule"]), Severity(raw["severity"]), str(raw["file"]), int(raw["line"]), str(raw["message"]),
                   str(raw["hint"]), int(column) if column is not None else None,
                   {str(k): str(v) for k, v in raw["details"].items()})


def _load(path: Path) -> _Part:
    name = str(path)
    hint = "pass the files `guard --result FILE` wrote"
    text = read_user_file(path, name, error=UsageError, yaml=False, missing_hint=hint)  # (a FIFO, /dev/zero: refused)
    try:
        doc = json.loads(text)
    except ValueError as err:
        raise UsageError(f"{name} is not JSON: {err}", file=name, hint=hint) from None
    except RecursionError:  # the decoder's own stack limit: no guard result nests past a few levels
        raise UsageError(f"{name} is not a guard result: JSON nested too deep to read", file=name, hint=hint) from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise UsageError(f"{name} is not a guard result (no \"format\": \"{FORMAT}\")", file=name,
                         hint=f"{hint}, not `--format json` output")
    if doc.get("version") != VERSION:
        raise UsageError(f"{name} is guard result version {doc.get('version')!r}; this coredns-gen reads version {VERSION}",
                         file=name, hint="run the shards and the merge with the same coredns-gen")
    if doc.get("sha256") != _digest(doc):
        raise UsageError(f"{name} was changed after the guard wrote it (its sha256 does not verify)", file=name,
                         hint="merge the files `guard --result FILE` wrote, unedited; write a damaged one again")
    try:
        shard = doc["shard"]
        c = doc["coverage"]
        cov = Coverage(
            not_judged=[(_ks(e["kustomization"]), str(e["reason"]), str(e["file"]), int(e["line"])) for e in c["not_judged"]],
            unreached=[str(p) for p in c["unreached"]],
            unread=[str(p) for p in c["unread"]],
            holding=[str(p) for p in c["holding"]],
            unresolved=[(_ks(e["kustomization"]), str(e["reason"])) for e in c["unresolved"]],
            empty_clusters=[str(p) for p in c["empty_clusters"]],
            roots_how=_how(c["roots_how"]),
            operator=[(str(e["kind"]), str(e["name"]), _ks(e["kustomization"]), str(e.get("reason", "")))
                      for e in c.get("operator", [])],
            identity=[str(e) for e in c.get("identity", [])],
            nothing=_nothing(c["nothing"]))
        return _Part(name, {"base": str(doc["commits"]["base"]), "head": str(doc["commits"]["head"])},
                     int(shard["index"]) if shard else 1, int(shard["count"]) if shard else 1,
                     {str(k): int(v) for k, v in doc["stats"].items()}, cov, [_finding(f) for f in doc["findings"]],
                     str(doc["generator"]), dict(doc["judged_as"]))
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        raise UsageError(f"{name} is a damaged guard result ({type(err).__name__}: {err})", file=name,
                         hint="write it again with `guard --result FILE`") from None


def _nothing(raw: Any) -> Nothing | None:
    if raw is None:
        return None
    kind, namespace, name = (str(x) for x in raw["source"])
    why: Literal["source", "build"] = "build" if raw.get("why") == "build" else "source"
    return Nothing(int(raw["clusters"]), tuple(str(r) for r in raw["reasons"]), (kind, namespace, name),
                   tuple(str(r) for r in raw["remotes"]), why, str(raw.get("folder") or ""))


def _how(raw: object) -> How:
    """The roots reading a shard's file names (a value this version does not know is a guess)."""
    for how in get_args(How):
        if raw == how:
            return cast(How, how)
    return "fallback"
