"""`coredns-gen guard`: refuse a change that would make Flux delete DNS config in place.

A chain of frozen values, each made by one stage from the ones before it (`_judge`): both
revisions' trees (repo/) -> the `Fleet`, every cluster's roots (discovery.py find_roots) -> the
reach plan (reach.py) -> the `Exploration`, every Flux Kustomization reached and built at both,
reusing identical builds (discovery.py explore, build/) -> the `Change`: what Flux would delete,
orphan or move (diff.py), where that comes from (locate.py), what Helm's upgrades delete (helm/)
-> the verdict: every rule in RULES on the change, then the allow list. Rules yield findings;
only cli.py prints.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import tempfile
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from pathlib import Path
from collections.abc import Mapping
from types import ModuleType
from typing import Any, Iterator, Protocol, cast

from gen import kustomization_reach as listing
from gen.comments import one_line
from gen.errors import GenError, Problem, UsageError
from gen.finding import Finding, Severity
from gen.guard.repo import (
    parse_cache,
)
from gen.guard.rules import (
    helm_chart_not_judged,
    helm_release_not_judged,
    helm_upgrade_deletes,
    bootstrap_source_moved,
    build_failed,
    configmap_pruned,
    coredns_custom_keys,
    helmrelease_pruned,
    helmrelease_retargeted,
    k3s_deployment_untouched,
    k3s_hpa_min_replicas,
    managed_corefile_kept,
    kubeadm_minor_bump,
    namespace_pruned,
    next_needs_forward,
    not_judged_touched,
    object_moved,
    object_moved_deleted,
    object_moved_pruned,
    object_orphaned,
    object_pruned,
    sourceignore_hides,
    talos_corefile_kept,
)
from gen.guard.allow import Allow, apply_allow, parse_allows
from gen.guard.scope import apply_scope
from gen.guard.build.cache import BuildCache, default_dir
from gen.guard.change import Change
from gen.guard.coverage import Nothing, judged_nothing, measure
from gen.guard.diff import compute_removals, generators_of
from gen.guard.discovery import Discovery
from gen.guard.fleet import Exploration, Fleet
from gen.guard import reach
from gen.guard.build.index import FleetIndex
from gen.config import CONFIG_NAME, Config
from gen.guard.build.engine import Engine
from gen.guard.inventory import load_inventory
from gen.guard.locate import Locator
from gen.guard.corefile_view import corefile_views
from gen.guard.flux.charts import ref_charts
from gen.guard.helm import release_upgrades as helm_releases
from gen.guard.flux.moves import Move, find_moves
from gen.guard.flux.platform_facts import cluster_facts
from gen.guard.flux.placeholders import shown_finding
from gen.guard.flux.secrets import secrets_note
from gen.guard.flux.unread import Blind, blind_spots, exact_note, placeholder_note, same_value_at_both
from gen.guard.model import KsRef, ObjKey, Revision
from gen.guard.report.progress import Report, ReportingEngine
from gen.guard.repo.checkout import Sweep, load_tree
from gen.guard.repo.listing import listings
from gen.guard.repo.revision import Tree, branch_of, remote_urls, repo_root, resolve
from gen.guard.report.shard import Shard
from gen.guard.result import GuardResult
from gen.guard.unjudged import find_unjudged, judged_reads
from gen.parallel import collector_paused


class Rule(Protocol):
    ID: str
    SEVERITY: Severity

    def check(self, change: Change) -> Iterator[Finding]: ...


_MODULES: tuple[ModuleType, ...] = (
    configmap_pruned,
    helmrelease_pruned,
    helmrelease_retargeted,
    helm_upgrade_deletes,
    helm_release_not_judged,
    namespace_pruned,
    object_pruned,
    object_orphaned,
    object_moved,
    object_moved_deleted,
    object_moved_pruned,
    build_failed,
    not_judged_touched,
    bootstrap_source_moved,
    helm_chart_not_judged,
    k3s_hpa_min_replicas,
    talos_corefile_kept,
    next_needs_forward,
    managed_corefile_kept,
    k3s_deployment_untouched,
    coredns_custom_keys,
    kubeadm_minor_bump,
    sourceignore_hides,
)
RULES: tuple[Rule, ...] = tuple(cast(Rule, m) for m in _MODULES)


def rule_docs() -> dict[str, str]:
    """Rule id -> first docstring line (SARIF rule descriptions)."""
    return {m.ID: (m.__doc__ or m.ID).strip().splitlines()[0] for m in _MODULES}


@dataclass
class GuardOptions:
    repo: Path
    base: str
    head: str = "HEAD"
    paths: tuple[str, ...] = ()
    allow: tuple[str, ...] = ()
    inventory: Path | None = None
    cache_dir: Path | None = field(default_factory=default_dir)  # None: no cache
    parallel: int | None = None
    report: Report | None = None  # progress for a terminal (gen.guard.report.progress)
    shard: Shard | None = None  # judge only this shard's clusters (gen.guard.report.shard)
    chart_mirrors: tuple[tuple[str, str], ...] = ()  # --chart-mirror ORIGIN=MIRROR, before guard.charts
    follow_moves: bool = True  # judge the revision a moved bootstrap source syncs (gen/guard/flux/moves.py)


def run_guard(opts: GuardOptions) -> GuardResult:
    """Judge base -> head; every finding of every rule, sorted by (file, line, rule).

    Raises:
        UsageError: a ref, path, allow entry, config or inventory file is bad (exit 2).
        ToolError: git or kustomize is missing or broke (exit 3).
    """
    with collector_paused():  # a fleet's models are ~10^6 objects and next to no cycles
        return _judge(opts)


def _judge(opts: GuardOptions) -> GuardResult:
    """The chain of values (gen/guard/fleet.py): trees -> fleet -> reach plan -> exploration ->
    change -> verdict, each made by one stage from the ones before it."""
    root = repo_root(opts.repo)
    inventory = load_inventory(opts.inventory) if opts.inventory else None
    refs = {"base": resolve(root, opts.base, "--base"), "head": resolve(root, opts.head, "--head")}
    roots_under = tuple(_relative(root, opts.repo, p) for p in opts.paths)
    with tempfile.TemporaryDirectory(prefix="coredns-gen-guard-", dir=_scratch()) as tmp, ExitStack() as readers:
        run = _open(opts, root, refs, roots_under, Path(tmp), readers)
        fleet = run.discovery.find_roots(refs, roots_under)
        reached = _plan(opts, run, fleet, inventory is not None)
        explored = run.discovery.explore(fleet, refs, reached.only, reached.read_elsewhere(),
                                         opts.shard.holds if opts.shard else None)
        nothing = _judgeable(opts, run, fleet, reached, explored)
        change = _change(opts, run, fleet, reached, explored, inventory, readers)
        verdict = _verdict(opts, run, fleet, reached, explored, change, nothing, inventory)
    _save(opts, run)
    findings = list(verdict.findings)
    for move in change.moves:  # (to base's or head's own commit: nothing changes, or judged already)
        if move.commit is not None and move.commit not in refs.values():
            findings += _after_move(opts, move)
    # every finding shows a placeholder or a decrypted value's token as its variable, whichever step made it
    findings = [shown_finding(f) for f in
                apply_allow(apply_scope(findings, run.config.guard_scope, change.revisions().values()), run.allows)]
    return replace(verdict, findings=sorted(findings, key=Finding.sort_key),
                   notes=[n for n in (run.cache.note(), exact_note(list(change.blind)), placeholder_note(list(change.blind)),
                                      secrets_note()) if n])


@dataclass(frozen=True)
class _Run:
    """What one run reads and builds with: the revisions' trees and what changed between them,
    the config and allow list, the helper and the caches (these keep what was built: a memo)."""

    root: Path
    refs: dict[str, str]
    roots_under: tuple[str, ...]  # --path, repository-relative
    work: Path  # the scratch dir both revisions and the artifacts are unpacked in
    trees: dict[str, Tree]
    changed: frozenset[str]  # the files that differ between base and head (git diff-tree)
    config: Config
    allows: list[Allow]
    engine: Engine
    cache: BuildCache
    index: FleetIndex
    discovery: Discovery
    report: Report


def _open(opts: GuardOptions, root: Path, refs: dict[str, str], roots_under: tuple[str, ...], work: Path,
          readers: ExitStack) -> _Run:
    """Both revisions' trees, the config, the helper and the caches: what every stage reads."""
    report = opts.report or _quiet
    report(f"reading {opts.base} and {opts.head}", 0, 0)
    engine = ReportingEngine(opts.parallel, opts.report) if opts.report else Engine(opts.parallel)  # asks the helper now
    readers.callback(engine.close)
    listed = listings(root, refs, opts.cache_dir)
    trees = {"base": load_tree(root, refs["base"], work / "base" / "repo", listing=listed.base)}
    trees["head"] = load_tree(root, refs["head"], work / "head" / "repo", like=trees["base"], listing=listed.head)
    for tree in trees.values():
        if tree.checkout is not None:
            readers.callback(tree.checkout.close)
    _paths_exist(trees, opts.paths, roots_under)
    config = trees["head"].config()
    allows = parse_allows(opts.allow, config)
    cache = BuildCache(opts.cache_dir)
    cache.count_rejected(parse_cache.load(opts.cache_dir) + listed.rejected)
    discovery = Discovery(trees, engine, cache, config, remote_urls(root), work, synced_branch=branch_of(root, opts.base))
    return _Run(root, refs, roots_under, work, trees, listed.changed, config, allows, engine, cache,
                FleetIndex(opts.cache_dir), discovery, report)


def _context(run: _Run, fleet: Fleet) -> str:
    """What the fleet index of this run depends on besides its commit (gen/guard/reach.py)."""
    return reach.context(fleet, run.engine.identity, run.trees["head"].blobs.get(CONFIG_NAME))


def _plan(opts: GuardOptions, run: _Run, fleet: Fleet, every: bool) -> reach.Reach:
    """The clusters to explore (`every`: all of them, as --inventory asks); a --shard's share only,
    from the roots down: the other shards build the rest."""
    reached = reach.plan(run.index, _context(run, fleet), run.refs, fleet, run.trees, run.changed, run.root,
                         run.config.values, "--inventory judges every cluster" if every else "")
    return reach.within(reached, opts.shard.mine(set(fleet.clusters()))) if opts.shard else reached


def _judgeable(opts: GuardOptions, run: _Run, fleet: Fleet, reached: reach.Reach,
               explored: Exploration) -> Nothing | None:
    """What the exploration judged nothing of (None: something), for a shard to hand on to guard-merge.

    Raises:
        UsageError: a name that is not UTF-8 where a Kustomization builds, no Flux Kustomization at
            either revision, or (not sharded) nothing judged at all.
    """
    revisions = explored.revisions
    _names_not_utf8(run.trees, revisions)
    run.cache.count_rejected(run.index.rejected + (run.discovery.kept.rejected if run.discovery.kept else 0))
    if not fleet.roots.get("base") and not fleet.roots.get("head"):
        where = f" under {', '.join(opts.paths)}" if opts.paths else ""
        raise UsageError(f"no Flux Kustomization (kustomize.toolkit.fluxcd.io) found{where} at {opts.base} or {opts.head}: "
                         "nothing to judge", key="--path" if opts.paths else "--repo",
                         hint="run the guard in the repository that holds the Flux objects "
                              "(e.g. clusters/<name>/flux-system/gotk-sync.yaml), or widen --path")
    nothing = judged_nothing(revisions["base"], revisions["head"], set(fleet.remotes), run.trees["head"])
    if nothing is not None and reached.carried:
        return None  # a carried cluster was judged in an earlier run
    if nothing is not None and not opts.shard:  # a shard's share: guard-merge decides over every shard
        raise nothing.error()
    return nothing


def _change(opts: GuardOptions, run: _Run, fleet: Fleet, reached: reach.Reach, explored: Exploration,
            inventory: dict[KsRef, set[ObjKey]] | None, readers: ExitStack) -> Change:
    """What the change does, judged from the exploration: what Flux deletes, orphans or moves and
    where that comes from, what Helm's upgrades delete, what could not be judged."""
    discovery, trees, changed = run.discovery, run.trees, run.changed
    revisions = dict(explored.revisions)
    explored_clusters = reached.only if reached.only is not None else fleet.clusters()
    fleet_roots = len(set(revisions["base"].roots) | set(revisions["head"].roots)
                      | {ref for ref in fleet.root_refs() if ref.cluster not in explored_clusters})
    touched = set(explored.touched(every=inventory is not None))
    charts = {label: ref_charts(rev, discovery.sources[label], discovery.repo_values[label])
              for label, rev in revisions.items()}
    if opts.shard is None:  # a shard explored its share only: its index would be one too
        # a cluster whose HelmRelease may render a chart kept in this repository is judged from
        # outside its builds' reads (helm-chart-not-judged): no index vouches for it
        in_repo_charts = {cluster for by_ref in charts.values() for (cluster, _), found in by_ref.items()
                          if any(not chart.elsewhere for chart in found)}
        reach.keep(run.index, _context(run, fleet), run.refs,
                   {label: {c: e for c, e in discovery.looks(rev, fleet.digests(label)).items() if c not in in_repo_charts}
                    for label, rev in revisions.items()}, reached)
    blind = tuple(spot for label in ("head", "base")  # builds again, without postBuild: before the sweep
                  for spot in blind_spots(revisions[label], revisions["base" if label == "head" else "head"],
                                          list(fleet.candidates.get(label, ())),
                                          discovery.repo_values[label], functools.partial(discovery.view, label),
                                          functools.partial(discovery.build_variants, label)))
    blind = same_value_at_both(blind, revisions, trees, changed)
    revisions = _with_placeholders(revisions, blind)
    # the last build is done: the revisions' files are read from git from here on (a copied
    # ExternalArtifact view reads its own folder, which stays until the scratch dir goes)
    sweep = Sweep([tree.root for tree in trees.values()])
    readers.callback(sweep.wait)
    run.report(f"judging {len(touched)} clusters", 0, 0)
    removals, issues = compute_removals(revisions["base"], revisions["head"], inventory, touched,
                                        generators_of(discovery, revisions))
    locator = Locator(trees, revisions, discovery)
    unjudged = find_unjudged(revisions["base"], revisions["head"], discovery, locator, list(blind))
    facts = cluster_facts(trees["head"], run.config, revisions)
    run.report("rendering changed HelmReleases", 0, 0)
    helm = helm_releases.judge(revisions, trees, touched, changed,
                               {**_in_repo(run.root, run.config.guard_charts), **dict(opts.chart_mirrors)},
                               opts.cache_dir, run.work / "helm")
    run.cache.count_rejected(helm.rejected)
    moves = find_moves(revisions["base"], revisions["head"], run.root, set(fleet.remotes), touched) \
        if opts.follow_moves else []
    return Change(revisions["base"], revisions["head"], [locator.anchored(r) for r in removals], issues, locator,
                  touched, fleet_roots, workdir=run.work, facts=facts, changed=changed, unjudged=unjudged,
                  judged_reads=judged_reads(revisions["base"], revisions["head"], {u.ks.cluster for u in unjudged}),
                  ref_charts=charts, helm=helm, moves=moves, blind=blind)


def _verdict(opts: GuardOptions, run: _Run, fleet: Fleet, reached: reach.Reach, explored: Exploration,
             change: Change, nothing: Nothing | None, inventory: dict[KsRef, set[ObjKey]] | None) -> GuardResult:
    """Every rule's findings on the change, the reviewer's Corefile views, and what was not judged."""
    revisions = change.revisions()
    findings: list[Finding] = []
    for rule in RULES:
        findings.extend(shown_finding(f) for f in rule.check(change))
    views = [shown_finding(f) for f in
             corefile_views(revisions, set(change.touched or ()), change.facts,
                            cluster_facts(run.trees["base"], run.config, revisions),
                            helm={"base": change.helm.base_objects, "head": change.helm.head_objects})]
    written = {ref: (src[0], src[1]) for ref, node in change.head.nodes.items()  # where not-judged ones are
               if node.external and (src := change.locator.ks_source("head", ref)) is not None}
    # a shard cannot know what other shards' clusters read: it names what its own do not read
    # (`unread`) and which of its hash's files hold Kustomizations (`holding`); guard-merge
    # keeps those that no shard's clusters read
    unreached = [] if opts.shard else list(explored.unreached)
    coverage = measure(change.head, change.base, unreached, fleet.how.get("head", "bootstrap"), written,
                       unread=list(explored.unread), holding=list(explored.unreached), nothing=nothing,
                       identity=sorted({f"cluster {c.ks.ref.cluster}: {c.identity}" for label in ("head", "base")
                                        for c in fleet.roots.get(label, ()) if c.identity}),
                       fixes=_listing_fixes(run.trees["head"], unreached))
    findings = _point_at_unreached(findings, coverage.fixes, change.changed)
    findings.extend(coverage.findings())
    carried_nodes = reached.carried_nodes()
    stats = {
        "kustomizations_base": len(change.base.nodes) + carried_nodes,
        "kustomizations_head": len(change.head.nodes) + carried_nodes,
        "builds": run.engine.builds,
        "cache_hits": run.cache.hits,
        "clusters": len({r.cluster for r in change.base.roots} | {r.cluster for r in change.head.roots}
                        | set(reached.carried)),
        "clusters_judged": len(change.touched or ()),
        "not_judged": coverage.not_judged_count,
        "unreached": len(coverage.unreached),
    }
    judged_as = {"paths": sorted(run.roots_under), "allow": sorted(opts.allow), "helper": run.engine.identity,
                 "chart_mirrors": sorted(f"{k}={v}" for k, v in opts.chart_mirrors),
                 "inventory": _digest_of(inventory) if inventory is not None else None,
                 "roots": fleet.digest()}
    shard = opts.shard.of_fleet(set(fleet.clusters())) if opts.shard else None  # (explored: its clusters alone)
    return GuardResult(findings, stats, run.refs, coverage, shard, [], views, judged_as)


def _save(opts: GuardOptions, run: _Run) -> None:
    """Keep what this run learnt for the next: the marks, the parse cache, the builds."""
    run.cache.count_rejected(run.discovery.marked.count_rejected())
    run.discovery.marked.save()
    parse_cache.save(opts.cache_dir)
    run.cache.save()


def _with_placeholders(revisions: dict[str, Revision], blind: tuple[Blind, ...]) -> dict[str, Revision]:
    """The revisions with each blind spot's Kustomization judged from its build with placeholders
    for what cannot be read (gen/guard/flux/unread.py), where it has one."""
    judged = {(spot.label, spot.ks): spot.judged_with for spot in blind if spot.judged_with is not None}
    if not judged:
        return revisions
    return {label: Revision(rev.label, rev.ref, {ref: replace(node, build=judged[label, ref]) if (label, ref) in judged
                                                 else node for ref, node in rev.nodes.items()}, list(rev.roots))
            for label, rev in revisions.items()}


def _listing_fixes(tree: Tree, unreached: list[str]) -> dict[str, str]:
    """For each unreached file its folder's kustomization.yaml does not list: the line to add
    (a render's clusters/<c>/coredns.yaml beside a kustomization.yaml that lists its resources)."""
    def read(path: str) -> str | None:
        return tree.read(path).decode("utf-8") if tree.is_file(path) else None
    out = {}
    for path in unreached:
        missing = listing.missing_in(read, path)
        if missing is not None:
            out[path] = f"Flux never applies it: {missing.fix()}"
    return out


def _point_at_unreached(findings: list[Finding], fixes: dict[str, str], changed: frozenset[str]) -> list[Finding]:
    """A refused removal in a change that also writes a file no cluster applies (the render's new
    Flux file, not listed): the likely fix is listing that file, not restoring the old one."""
    written = sorted(path for path in fixes if path in changed)
    if not written:
        return findings
    extra = "; or, if " + " / ".join(written) + " is to take it over: " + "; ".join(fixes[p] for p in written)
    return [replace(f, hint=f.hint + extra) if f.severity is Severity.ERROR and "fate" in f.details else f for f in findings]


def _after_move(opts: GuardOptions, move: Move) -> list[Finding]:
    """What Flux would delete in the moved cluster when it syncs base -> the commit its bootstrap
    source now names: the guard run again on that commit, its findings about this cluster kept
    and said to be about that revision. A run that cannot judge it refuses the move."""
    assert move.commit is not None
    after = f" (after the merge, cluster {move.root.cluster} syncs {move.after}, commit {move.commit[:12]}: judged there)"
    try:
        result = _judge(GuardOptions(opts.repo, opts.base, move.commit, opts.paths, opts.allow, opts.inventory,
                                     opts.cache_dir, opts.parallel, chart_mirrors=opts.chart_mirrors,
                                     follow_moves=False))
    except GenError as err:
        return [Finding(bootstrap_source_moved.ID, bootstrap_source_moved.SEVERITY, ".", 1,
                        f"{move.source}, the source of Kustomization {move.root}, moves from {move.before} to "
                        f"{move.after}, and that revision cannot be judged: {str(err).splitlines()[0]}",
                        f"fix that revision, or if the move is deliberate, allow it with --allow ks:{move.root}",
                        details={"kustomization": str(move.root), "cluster": move.root.cluster, "source": move.source,
                                 "before": move.before, "after": move.after, "commit": move.commit})]
    return [Finding(f.rule, f.severity, f.file, f.line, f.message + after, f.hint, f.col,
                    details={**f.details, "synced": move.commit})
            for f in result.findings if f.details.get("cluster") == move.root.cluster
            and f.severity in (Severity.ERROR, Severity.WARNING, Severity.ALLOWED)]


def _names_not_utf8(trees: dict[str, Tree], revisions: Mapping[str, Revision]) -> None:
    """A file whose name is not UTF-8 under a Kustomization's spec.path is bad input (exit 2).
    git keeps names as bytes and the files are unpacked as named, but the helper reports what a
    build read as JSON, where such a name is no longer the file's: the build could not be told
    apart from the other revision's. Flux builds every YAML file of a folder without a
    kustomization.yaml, so the name matters there; elsewhere no build can name it.

    Raises:
        UsageError: such a file is in a folder a Kustomization builds from, at either revision.
    """
    odd = sorted({p for tree in trees.values() for p in tree.blobs if not p.isascii() and _SURROGATES.search(p)})
    if not odd:
        return
    folders = {node.ks.path.strip("/") for rev in revisions.values() for node in rev.nodes.values()}
    built = [p for p in odd if any(not f or p.startswith(f + "/") for f in folders)]
    if built:
        raise UsageError([Problem(f"the file name '{one_line(p)}' is not UTF-8, in a folder a Flux Kustomization "
                                  "builds from: what its build reads cannot be judged", key="--head",
                                  hint="rename it to a UTF-8 name (git mv)") for p in built])


_SURROGATES = re.compile("[\udc80-\udcff]")  # the bytes of a name that is not UTF-8 (surrogateescape)


def _digest_of(inventory: dict[Any, Any]) -> str:
    """One id of what an inventory holds (its Kustomizations and their objects), however written."""
    text = json.dumps(sorted([repr(ref), sorted(repr(o) for o in objs)] for ref, objs in inventory.items()))
    return hashlib.sha256(text.encode()).hexdigest()


def _in_repo(root: Path, mirrors: dict[str, str]) -> dict[str, str]:
    """guard.charts with each relative `file:` folder under the repository root (where it is written)."""
    return {origin: ("file:" + str(root / mirror[len("file:"):]) if mirror.startswith("file:")
                     and not mirror.startswith("file:/") else mirror) for origin, mirror in mirrors.items()}


def _quiet(what: str, done: int, total: int) -> None:
    """The Report of a run nobody watches."""


def _scratch() -> str | None:
    """Where both revisions are unpacked: tmpfs when there is one. Unpacking a fleet writes
    thousands of small files, ~40x slower on a disk-backed /tmp than in /dev/shm."""
    explicit = os.environ.get("COREDNS_GEN_TMPDIR")
    if explicit:
        return explicit
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None


def _paths_exist(trees: dict[str, Tree], given: tuple[str, ...], paths: tuple[str, ...]) -> None:
    """Every --path is a folder (or file) of the repository at base or head."""
    for shown, rel in zip(given, paths, strict=True):
        if not any(t.is_dir(rel) or t.is_file(rel) for t in trees.values()):
            raise UsageError(f"{shown} is not in the repository at --base or --head", key="--path",
                             hint="pass a folder of the repository, relative to --repo (e.g. clusters/prod)")


def _relative(root: Path, repo: Path, path: str) -> str:
    """--path as a repo-relative posix prefix (relative to --repo, like every other path)."""
    try:
        full = (repo / path).resolve()
    except (RuntimeError, OSError):  # Python 3.11 raises RuntimeError on a symlink loop
        raise UsageError(f"{path} is a symlink loop", key="--path", hint="pass a real folder inside --repo") from None
    try:
        rel = full.relative_to(root.resolve()).as_posix()
    except ValueError:
        raise UsageError(f"{path} is outside the repository", key="--path", hint="pass a folder inside --repo") from None
    return "" if rel == "." else rel
