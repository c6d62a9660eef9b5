"""Typer app: parse arguments, call one library function, map its result or error to an exit code.

Only this module prints or exits (cruft's _cli.py over _commands/*). Every `GenError` is
caught in `_run`, written to stderr as one line per problem, and becomes its exit code;
`--debug` re-raises for a traceback. The system refusing (disk full, permission denied, a
read-only file system) is exit 3. Any other exception is a bug: it keeps its traceback and
exits 4, never 0 or 1, which CI reads as "ok" or "drift/findings".
"""

from __future__ import annotations

import errno
import os
import signal
import sys
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Callable, NoReturn, Optional, TypeVar

import typer
from typer._click.exceptions import ClickException

from gen.errors import EXIT_INTERNAL, EXIT_TOOL, GenError, Interrupted, system_failure

if TYPE_CHECKING:
    from gen.guard.result import GuardResult
    from gen.lint.load import LoadCheck
    from gen.render.writer import Plan

T = TypeVar("T")

app = typer.Typer(
    name="coredns-gen",
    help="Render CoreDNS overlays for Talos, k3s, AKS, RKE2, EKS, kubeadm/kind and Gardener, generate their Flux objects, "
    "and refuse CI diffs that would make Flux prune DNS config. "
    "Exit 2 is bad input, 3 a tool or system failure, 4 an internal error (a bug: please report it).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

_state = {"debug": False}


def _show_version(value: bool) -> None:
    """`--version`: this package's version and its helpers' (they do lint's parsing and the guard's
    builds, so a bug report needs all three); exit 3 when a helper is missing (in a checkout,
    coredns-gen-helper is said to be built on first use instead)."""
    if not value:
        return

    def show() -> None:
        from importlib.metadata import PackageNotFoundError, version

        from gen.tools import helper_versions

        try:
            typer.echo(f"coredns-gen {version('coredns-gen')}")
        except PackageNotFoundError:
            typer.echo("coredns-gen (not installed as a package)")
        for name, binary, said in helper_versions():
            typer.echo(f"{name} {said}")
            if binary is not None:
                typer.echo(f"  at {binary}")

    _run(show)
    raise typer.Exit(0)


@app.callback()
def _main(
    debug: Annotated[bool, typer.Option("--debug", help="Show a traceback for reported errors.")] = False,
    version: Annotated[bool, typer.Option("--version", is_eager=True, callback=_show_version,
                                          help="Print coredns-gen's version and its helper's, then exit.")] = False,
) -> None:
    _state["debug"] = debug


# OSErrors that are the system's answer, not a bug: exit 3 with what the system said.
_SYSTEM_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EACCES, errno.EPERM, errno.EROFS, errno.EIO,
                            errno.EMFILE, errno.ENFILE, errno.ENOMEM, errno.ETXTBSY})


def _run(fn: Callable[[], T]) -> T:
    """The one error boundary: GenError -> stderr + its exit code; the system refusing (disk
    full, permission denied, read-only) -> exit 3; anything else is a bug: its traceback, then
    exit 4, a code no CI reads as "drift" or "findings"."""
    try:
        return fn()
    except GenError as err:
        if _state["debug"]:  # the traceback too, and still the error's own exit code (not Python's 1)
            traceback.print_exc()
        typer.echo(str(err), err=True)
        raise typer.Exit(err.exit_code) from None
    except (typer.Exit, typer.Abort, ClickException):
        raise
    except (KeyboardInterrupt, Interrupted) as err:
        signum = err.signum if isinstance(err, Interrupted) else signal.SIGINT
        typer.echo(f"interrupted by {signal.Signals(signum).name}: every file is as before this run or as after it; "
                   "`coredns-gen render --check` shows which", err=True)
        raise typer.Exit(128 + signum) from None
    except OSError as err:
        if _state["debug"] or err.errno not in _SYSTEM_ERRNOS:
            _internal(err)
        typer.echo(str(system_failure(err, "finish")), err=True)
        raise typer.Exit(EXIT_TOOL) from None
    except MemoryError:
        typer.echo("out of memory — fix: give coredns-gen more memory, or fewer/smaller files per run", err=True)
        raise typer.Exit(EXIT_TOOL) from None
    except Exception as err:  # noqa: BLE001 - the boundary: every bug gets its own exit code
        _internal(err)


def _internal(err: BaseException) -> NoReturn:
    traceback.print_exception(err, file=sys.stderr)
    typer.echo(f"internal error ({type(err).__name__}): this is a bug in coredns-gen, not in your input; "
               f"please report it with the traceback above (exit {EXIT_INTERNAL})", err=True)
    raise typer.Exit(EXIT_INTERNAL) from None


def _out(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


# Paths are declared `str` and made Paths here: Typer 0.29 coerces each Path argument through a
# pydantic TypeAdapter and realpath() (0.6 s for a 1,000-file fleet render); pyproject pins Typer
# below 0.29, and plain strings keep that cost away should the pin be lifted.
RepoOption = Annotated[str, typer.Option("--repo", metavar="DIR", help="GitOps repository root; every path is relative to it.")]


def _repo(repo: str) -> Path:
    path = Path(repo)
    if not path.is_dir():
        from gen.errors import UsageError

        raise UsageError(f"--repo {repo} is not a directory", key="--repo", hint="give the root folder of the GitOps repository")
    return path.resolve()

# --- commands -------------------------------------------------------------------------------
# (render, schema, new are defined below; guard, lint, verify each keep to their own section.)


@app.command()
def render(
    values: Annotated[Optional[list[str]], typer.Argument(
        metavar="VALUES_FILE...", help="Values files, one per cluster (default: the `values:` globs of .coredns-gen.yaml).", show_default=False)] = None,
    repo: RepoOption = ".",
    check: Annotated[bool, typer.Option("--check", help="Write nothing; print a diff and exit 1 when files on disk differ.")] = False,
    since: Annotated[Optional[str], typer.Option(
        "--since", metavar="REF", help="With --check: the git revision whose platformVersion an upgrade is "
        "compared with, to show the platform's stock Corefile diff (default: HEAD).", show_default=False)] = None,
) -> None:
    """Render overlays/<platform>/<cluster>/ (or the values' `overlay:`) and the Flux objects per values file.

    An overlay or Flux file that a .sourceignore or the GitRepository's
    spec.ignore would leave out of Flux's artifact is refused, naming the rule.
    Everything is rendered and validated in memory first; any error leaves
    every file as it was. Files an earlier render generated and this one does
    not are removed. 64 or more files are rendered on every core. One render
    at a time (a lock in .git/); a killed render is finished by the next one.
    With --check, a values file whose platformVersion differs from the one
    at --since (default HEAD) also shows, on stderr, what the platform's own
    stock Corefile changes between the two releases (or that it is not
    known); that review alone never makes the check fail.
    Exit codes: 0 ok, 1 drift (--check), 2 bad input or another render
    running, 3 tool or system failure, 4 internal error.
    """
    from gen.render.journal import recover, render_lock
    from gen.render.project import render_files
    from gen.render.writer import diff_plan, plan_tree, write_tree

    def run() -> int:
        from gen.config import values_from_config

        root = _repo(repo)
        cwd = Path.cwd()
        if since is not None and not check:
            from gen.errors import UsageError

            raise UsageError("--since compares releases for --check only", key="--since",
                             hint="add --check, or drop --since")
        paths = [cwd / p for p in values] if values else values_from_config(root)  # cwd / an absolute path is that path
        notices: list[str] = []
        files = render_files(paths, root, notices)
        for notice in notices:  # before the writes: an assumption is read even when nothing changed
            typer.echo(f"warning: {notice}", err=True)
        if check:
            _upgrades(paths, root, since)
        with render_lock(root, shared=check):
            if not check:
                finished = recover(root)
                if finished:
                    typer.echo(f"finished an interrupted render: {len(finished)} file(s) put in place", err=True)
            plan = plan_tree(files, root, check=check)
            if check:
                return _drift(plan, root, diff_plan, len(files), len(paths))
            write_tree(plan, root)
        for rel in plan.leftovers:
            typer.echo(f"removed {rel} (left by an interrupted render)", err=True)
        for rel in plan.writes:
            typer.echo(f"wrote {rel}", err=True)
        for rel in plan.deletes:
            typer.echo(f"removed {rel} (no longer generated)", err=True)
        typer.echo(f"{len(plan.writes)} written, {len(plan.deletes)} removed, {len(plan.unchanged)} unchanged", err=True)
        return 0

    raise typer.Exit(_run(run))


def _upgrades(paths: list[Path], root: Path, since: str | None) -> None:
    """render --check: the stock Corefile diff of each values file's platform upgrade (stderr)."""
    from gen.render.upgrade_drift import report, upgrades

    found = upgrades(paths, since or "HEAD", since is not None)
    shown = {}
    for path, _ in found:
        try:
            shown[path] = path.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            shown[path] = str(path)
    text = report(found, since or "HEAD", shown)
    if text:
        typer.echo(text, err=True, nl=False)


def _drift(plan: "Plan", root: Path, diff_plan: Callable[["Plan", Path], str], n_files: int, n_values: int) -> int:
    """`render --check`'s answer: 0 when the tree is the render, else the diff and exit 1."""
    if plan.clean:
        typer.echo(f"ok: {n_files} generated files match {n_values} values file(s)", err=True)
        return 0
    _out(diff_plan(plan, root))
    if plan.interrupted:
        typer.echo(f"drift: a render was interrupted with {plan.interrupted} file(s) still to put in place"
                   "\n  fix: run `coredns-gen render` to finish it", err=True)
    if plan.leftovers:
        typer.echo(f"drift: {len(plan.leftovers)} temporary file(s) left by an interrupted render: {', '.join(plan.leftovers[:20])}"
                   f"{' …' if len(plan.leftovers) > 20 else ''}\n  fix: run `coredns-gen render` (it removes them)", err=True)
    changed = sorted([*map(str, plan.writes), *map(str, plan.deletes)])
    if changed:
        typer.echo(f"drift: {len(changed)} generated file(s) differ from the values: {', '.join(changed)}"
                   "\n  fix: run `coredns-gen render` with the same values files and commit the result", err=True)
    return 1


@app.command()
def schema() -> None:
    """Print the values JSON Schema (Draft 2020-12)."""
    import json

    from gen.render.values import SCHEMA

    _out(json.dumps(SCHEMA, indent=2) + "\n")


@app.command()
def new(
    platform: Annotated[str, typer.Option("--platform", help="talos, k3s, aks, rke2, eks, kubeadm (kind too) or gardener; gke is refused with the reason.", show_default=False)],
    cluster: Annotated[str, typer.Option("--cluster", help="Cluster name (DNS-1123 label).", show_default=False)],
    output: Annotated[Optional[str], typer.Option("--output", "-o", metavar="FILE", help="Write here instead of stdout (never overwrites; must be inside --repo).")] = None,
    platform_version: Annotated[Optional[str], typer.Option("--platform-version", help="The release the cluster runs; default: where the repository says it (talconfig.yaml talosVersion, a Talos installer image, a system-upgrade Plan, a Renovate comment), else the platform's default (said on stderr).", show_default=False)] = None,
    repo: RepoOption = ".",
) -> None:
    """Write a commented starter values file with the platform's defaults filled in."""
    from gen.adopt.release import readable
    from gen.errors import UsageError
    from gen.starter import starter_values
    from gen.render.writer import write_new

    def run() -> int:
        release = platform_version
        note = ""
        if release is None and readable(platform):
            starter_values(platform, cluster)  # (a bad platform or cluster name first, before any look)
            try:
                release = _release_said(platform, _repo(repo))
            except UsageError as err:  # none said: the default, and how to choose
                note = (f"note: {err.problems[0].problem}: the starter takes coredns-gen's default release — "
                        f"{err.problems[0].hint}")
        text = starter_values(platform, cluster, release)
        if output is None:
            _out(text)
        else:
            typer.echo(f"wrote {write_new(Path.cwd() / output, text, _repo(repo))}", err=True)
        if note:  # (after the write: a refused -o says only why)
            typer.echo(note, err=True)
        return 0

    raise typer.Exit(_run(run))


# --- import ---------------------------------------------------------------------------------


@app.command("import")
def import_(
    paths: Annotated[list[str], typer.Argument(metavar="PATH...", help="Manifests or folders holding cluster DNS: ConfigMap kube-system/coredns or coredns-custom, HelmChartConfig rke2-coredns, an EKS add-on's configurationValues, a Corefile, or `kubectl get cm,deploy -o yaml` output; with them the old Flux Kustomization's file (its fields become `flux:`) and, when its postBuild comes from a parent's patches, the parent's file.", show_default=False)],
    platform: Annotated[str, typer.Option("--platform", help="talos, k3s, aks, rke2, eks, kubeadm or gardener.", show_default=False)],
    cluster: Annotated[str, typer.Option("--cluster", help="Cluster name (DNS-1123 label).", show_default=False)],
    platform_version: Annotated[Optional[str], typer.Option("--platform-version", help="The release the cluster runs (its stock Corefile is what the input is compared with); default: where the repository says it (talconfig.yaml talosVersion, a Talos installer image, a system-upgrade Plan, a Renovate comment).", show_default=False)] = None,
    coredns_version: Annotated[Optional[str], typer.Option("--coredns-version", help="The CoreDNS the cluster runs, when not the release's default (Gardener: required).")] = None,
    output: Annotated[Optional[str], typer.Option("--output", "-o", metavar="FILE", help="Write the values here instead of stdout (never overwrites; must be inside --repo).")] = None,
    allow_loss: Annotated[bool, typer.Option("--allow-loss", help="Write the values even though the render would differ from the input (every difference is listed, and written into the file's header).")] = False,
    repo: RepoOption = ".",
) -> None:
    """Write the values file that renders the DNS configuration the input already holds.

    The values are rendered in memory and what CoreDNS would load is compared with what it loads
    now, through CoreDNS's own parser. Exit 0: the values were written and render the same
    configuration. Exit 1: something would differ; each difference is listed (with the line diff
    of the Corefile) and nothing is written unless --allow-loss. When the Flux artifact would
    leave the default overlay folder out, `overlay:` is set to the input's folder (a note says
    so). Then `coredns-gen render`, and
    switch in an order the guard accepts: keep the old Flux Kustomization's name (flux.name,
    flux.namespace) in one commit, or merge `kustomize.toolkit.fluxcd.io/prune: disabled` on the
    old ConfigMap first (docs/migrate.md).
    """
    from gen.adopt import import_dns
    from gen.render.writer import write_new

    def run() -> int:
        release = platform_version or _release_said(platform, _repo(repo))
        result = import_dns([Path(p) for p in paths], platform, release, cluster, coredns_version, _repo(repo))
        for line in result.read:
            typer.echo(f"read: {line}", err=True)
        for line in result.placed:
            typer.echo(f"imported: {line}", err=True)
        for line in result.notes:
            typer.echo(f"note: {line}", err=True)
        for difference in result.differences:
            typer.echo(f"difference: {difference}", err=True)
        if result.diff:
            typer.echo(result.diff.rstrip("\n"), err=True)
        if result.values_text is None:
            typer.echo("no values file of this coredns-gen version renders this configuration: nothing written", err=True)
            return 1
        if not result.same and not allow_loss:
            typer.echo(f"{len(result.differences)} difference(s): nothing written (--allow-loss writes the values anyway, "
                       "the differences listed in its header)", err=True)
            return 1
        if output is None:
            _out(result.values_text)
        else:
            typer.echo(f"wrote {write_new(Path.cwd() / output, result.values_text, _repo(repo))}", err=True)
        if result.same:
            typer.echo("the values render the same configuration: no difference", err=True)
        return 0

    raise typer.Exit(_run(run))


# --- lint -----------------------------------------------------------------------------------


@app.command()
def lint(
    files: Annotated[Optional[list[str]], typer.Argument(metavar="[PATH...]", help="Corefiles, ConfigMap/Deployment manifests, or overlay folders; none: the overlay of each values file of .coredns-gen.yaml, wherever `overlay:` puts it.", show_default=False)] = None,
    coredns_version: Annotated[Optional[str], typer.Option("--coredns-version", help="Target CoreDNS (default: the Deployment's image tag, else the newest known).")] = None,
    platform: Annotated[Optional[str], typer.Option("--platform", help="talos, k3s, aks, rke2, eks, kubeadm or gardener (decides how *.override keys are read; default: the one a rendered overlay's coredns-gen.io/platform annotations name).")] = None,
    platform_version: Annotated[Optional[str], typer.Option("--platform-version", help="The platform's release (e.g. v1.34.9+k3s1, 1.34): its stock Corefile and CoreDNS; default: the rendered overlay's, else the newest known.")] = None,
    k3s_version: Annotated[Optional[str], typer.Option("--k3s-version", help="Short for --platform k3s --platform-version V.")] = None,
    plugin: Annotated[Optional[list[str]], typer.Option("--plugin", metavar="NAME", help="A plugin compiled into your CoreDNS build (repeatable); also `lint: {plugins: [...]}` in .coredns-gen.yaml.")] = None,
    load: Annotated[bool, typer.Option("--load", help="Also start the real CoreDNS on what the cluster would load; a refusal is an error at its file:line.")] = False,
    coredns: Annotated[Optional[str], typer.Option("--coredns", metavar="PATH", help="CoreDNS binary for --load (default: as verify finds it).")] = None,
    repo: RepoOption = ".",
    fmt: Annotated[str, typer.Option("--format", help="text, json, github or sarif.")] = "text",
    strict: Annotated[bool, typer.Option("--strict", help="Warnings fail the run too.")] = False,
) -> None:
    """Check Corefiles (version-aware) and the coredns-custom wiring contract; exit 1 on an error finding.

    In text format, stderr names the CoreDNS version the findings were judged for.
    """
    from gen.config import load_config
    from gen.finding import blocking
    from gen.lint.run import lint as run_lint, rule_summaries
    from gen.formats import FORMATS, format_findings

    def run() -> int:
        if fmt not in FORMATS:
            from gen.errors import UsageError

            raise UsageError(f"unknown format `{fmt}`", key="--format", hint=f"use one of: {', '.join(FORMATS)}")
        plugins = [*load_config(_repo(repo)).lint_plugins, *(plugin or [])]
        # no PATH: each configured overlay on its own (each was rendered for its own platform and release)
        groups = [[Path(f) for f in files]] if files else [[folder] for folder in _configured_overlays(_repo(repo))]
        checker = _load_check(coredns) if load else None
        results = [run_lint(group, coredns_version=coredns_version, platform=platform, k3s_version=k3s_version,
                            platform_version=platform_version, plugins=plugins, load=checker) for group in groups]
        found = [f for result in results for f in result.findings]
        _out(format_findings(found, fmt, rule_summaries()))
        if fmt == "text":  # on stderr: stdout stays findings only (empty when clean)
            for result in results:
                typer.echo(result.assumed().rstrip("\n"), err=True)
        return 1 if blocking(found, strict=strict) else 0

    raise typer.Exit(_run(run))


def _release_said(platform_name: str, root: Path) -> str:
    """The platform release the repository names (gen/adopt/release.py), said on stderr with
    where; one place or several that agree.

    Raises:
        UsageError: none found, or places that disagree: listing them and the valid releases.
    """
    from gen.adopt.release import readable, releases_said
    from gen.errors import UsageError
    from gen.platforms import require

    platform = require(platform_name, "--platform")
    said = releases_said(root, platform.NAME)
    found = sorted({s.release for s in said})
    if len(found) == 1:
        where = ", ".join(s.where for s in said[:3]) + (f" (+{len(said) - 3} more)" if len(said) > 3 else "")
        typer.echo(f"release: {platform.NAME} {found[0]} (from {where})", err=True)
        return found[0]
    valid = f"one of {platform.known_releases()}"
    if found:
        places = "; ".join(f"{s.release} at {s.where}" for s in said[:6])
        raise UsageError(f"the repository names several {platform.NAME} releases: {places}", key="--platform-version",
                         hint=f"pass the one this cluster runs, e.g. --platform-version {found[-1]} ({valid})")
    looked = ("talconfig.yaml talosVersion, a Talos installer image, a TalosUpgrade, a Renovate comment" if platform.NAME == "talos"
              else "a system-upgrade-controller Plan's version, a Renovate comment") if readable(platform.NAME) else ""
    raise UsageError(f"no --platform-version given{f' and the repository names no {platform.NAME} release ({looked})' if looked else ''}",
                     key="--platform-version", hint=f"pass the release the cluster runs: {valid}")


def _configured_overlays(root: Path) -> list[Path]:
    """The overlay folder of each values file `.coredns-gen.yaml` lists (`overlay:`, else
    overlays/<platform>/<cluster>): what a CI job lints without globs that assume the default.

    Raises:
        UsageError: no values files are configured, or an overlay was not rendered yet.
    """
    from gen.config import values_from_config
    from gen.errors import Problem, UsageError
    from gen.render.values import load_values

    paths = values_from_config(root)
    if not paths:
        raise UsageError("no PATH given and no values files in .coredns-gen.yaml", key="PATH",
                         hint="pass the overlay folders, or list your values files under `values:` in .coredns-gen.yaml")
    folders = [root / load_values(path, repo=root).overlay_dir for path in paths]
    missing = [Problem(f"{folder.relative_to(root).as_posix()} is not rendered yet", key="PATH",
                       hint="run `coredns-gen render` first") for folder in folders if not folder.is_dir()]
    if missing:
        raise UsageError(missing)
    return folders


def _load_check(coredns: str | None) -> "LoadCheck":
    """--load's machinery (the sandbox, fake upstreams with dnspython, the launcher), imported
    only when asked for: it is half of plain `lint`'s start-up."""
    from gen.lint.load import load_check
    from gen.tools import coredns_binary

    return load_check(coredns_binary(coredns))


# --- verify ---------------------------------------------------------------------------------


@app.command()
def verify(
    values: Annotated[str, typer.Argument(metavar="VALUES_FILE", help="The cluster's values file.", show_default=False)],
    coredns: Annotated[Optional[str], typer.Option("--coredns", help="CoreDNS binary to run (default: the release --coredns-version names).")] = None,
    coredns_version: Annotated[Optional[str], typer.Option("--coredns-version", metavar="X.Y.Z", help="CoreDNS release to run (default: the one the cluster runs: `corednsVersion:`, else the platform release's); found as coredns-X.Y.Z in ~/.cache/coredns-gen/bin, or `coredns` there or on PATH when it is that release, else built there once with `go install`.", show_default=False)] = None,
    repo: RepoOption = ".",
    fmt: Annotated[str, typer.Option("--format", help="text or json.")] = "text",
) -> None:
    """Load the cluster's rendered Corefile in a real CoreDNS on loopback and fail its upstreams.

    Runs the CoreDNS release the cluster runs (or --coredns-version),
    built once into the cache folder with `go install` when missing.
    Fakes every upstream; stages primary healthy, dead, silent, SERVFAIL
    and REFUSED, a negative control without the second forward stanza,
    and every upstream down; prints what each query got. Exit codes:
    0 passed, 1 a scenario failed, 2 bad input, 3 no CoreDNS binary
    (or its build failed), or one that hangs, dies or prints no version.
    """
    from gen.verify.run import run_verify
    from gen.verify.output import FORMATS, format_verify

    def run() -> int:
        if fmt not in FORMATS:
            from gen.errors import UsageError

            raise UsageError(f"unknown format `{fmt}`", key="--format", hint=f"use one of: {', '.join(FORMATS)}")
        result = run_verify(Path.cwd() / values, repo=_repo(repo), coredns=coredns, coredns_version=coredns_version)
        _out(format_verify(result, fmt))
        return 0 if result.passed else 1

    raise typer.Exit(_run(run))


# --- guard ----------------------------------------------------------------------------------


GUARD_FORMATS = ("text", "json", "github", "sarif", "markdown")
FormatOption = Annotated[Optional[str], typer.Option("--format", help="text, json, github, sarif or markdown (a PR comment / $GITHUB_STEP_SUMMARY; default: github under GITHUB_ACTIONS=true, else text).", show_default=False)]
StrictOption = Annotated[bool, typer.Option("--strict", help="A Kustomization that cannot be judged (its source is not this repository) fails the run too.")]


@app.command()
def guard(
    base: Annotated[Optional[str], typer.Option("--base", help="Revision in place today (e.g. origin/main); required but with --discover.", show_default=False)] = None,
    head: Annotated[str, typer.Option("--head", help="Revision to judge (a commit: commit or stash work first).")] = "HEAD",
    repo: RepoOption = ".",
    path: Annotated[Optional[list[str]], typer.Option("--path", help="Seek root Kustomizations only under this folder (repeatable).", show_default=False)] = None,
    fmt: FormatOption = None,
    allow: Annotated[Optional[list[str]], typer.Option("--allow", help="A deliberate removal: an inventory id <namespace>_<name>_<group>_<kind>, ks:<namespace>/<name> (a whole Kustomization) or cluster:<root file> (a whole cluster); repeatable.", show_default=False)] = None,
    inventory: Annotated[Optional[str], typer.Option("--inventory", metavar="FILE", help="`kubectl get kustomizations.kustomize.toolkit.fluxcd.io -A -o json` output: judge against what is really in place.", show_default=False)] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Do not read or write the guard's cache of builds, resolutions and parsed manifests (~/.cache/coredns-gen/guard).")] = False,
    strict: StrictOption = False,
    shard: Annotated[Optional[str], typer.Option("--shard", metavar="K/N", help="Judge only shard K of N equal shares of the clusters (by the hash of their root files); merge the shards' --result files with guard-merge.", show_default=False)] = None,
    result_file: Annotated[Optional[str], typer.Option("--result", metavar="FILE", help="Also write the whole result (findings, stats, commits, shard) as a versioned JSON envelope, for guard-merge.", show_default=False)] = None,
    discover: Annotated[bool, typer.Option("--discover", help="Judge nothing: print what the guard believes about the repository at --head (clusters, bootstrap forms, sources, what is not judged, files no cluster reaches), each with its evidence; --format text or json.")] = False,
    write: Annotated[bool, typer.Option("--write", help="With --discover: record the clusters (and OCI sources recognised from CI) in .coredns-gen.yaml guard.clusters/guard.sources, keeping the file's comments.")] = False,
    verify: Annotated[bool, typer.Option("--verify", help="Also load each changed head Corefile in the real CoreDNS and run its failover scenarios (clusters in parallel); one CoreDNS refuses is refused (corefile-refused).")] = False,
    coredns: Annotated[Optional[str], typer.Option("--coredns", metavar="PATH", help="CoreDNS binary for --verify (default: as verify finds it).", show_default=False)] = None,
    chart_mirror: Annotated[Optional[list[str]], typer.Option("--chart-mirror", metavar="ORIGIN=MIRROR", help="Fetch the Helm charts of ORIGIN (a chart repository or oci:// registry url) from MIRROR instead: a url (oci+http:// for a plain-HTTP registry) or file:FOLDER holding index.yaml and the archives; repeatable, before guard.charts.", show_default=False)] = None,
) -> None:
    """Refuse a change that would make Flux or Helm delete a ConfigMap in place or break a DNS invariant.

    Builds every Flux Kustomization reached from the roots at --base and
    --head with Flux's own build (the coredns-gen-helper), as kustomize-controller
    would, and reports what Flux would delete, orphan or move, plus the DNS invariants on head.
    Each HelmRelease whose inputs change is rendered at both revisions with
    Helm's own library, as helm-controller renders it: what its upgrade
    deletes is judged like a prune.
    text, markdown and json also show each touched cluster's Corefile diff and,
    when a cluster changes platform release, the diff of the platform's own
    stock Corefiles for the two releases.
    With --discover it judges nothing and prints what it believes about the
    repository (clusters with their bootstrap evidence, sources, what is not
    judged); --write records the clusters in .coredns-gen.yaml.
    From a checkout (pip install -e .), the first run builds coredns-gen-helper
    from tools/helper, saying so on stderr (Go needed; docs/install.md).
    Exit codes: 0 pass, 1 refused, 2 bad input, 3 git or coredns-gen-helper
    missing or broken (or no Go to build it). See docs/guard.md.
    """
    from gen.guard import GuardOptions, run_guard
    from gen.guard.report.shard import Shard

    if discover or write:
        raise typer.Exit(_run(lambda: _discover(repo, head, fmt, write, no_cache)))

    def run() -> int:
        chosen = _guard_format(fmt)
        if base is None:
            from gen.errors import UsageError

            raise UsageError("missing --base", key="--base", hint="pass the revision in place today, e.g. --base origin/main "
                             "(or --discover to see what the guard believes about the repository)")
        opts = GuardOptions(repo=Path(repo), base=base, head=head, paths=tuple(path or ()), allow=tuple(allow or ()),
                            inventory=Path(inventory) if inventory is not None else None,
                            shard=Shard.parse(shard) if shard is not None else None,
                            chart_mirrors=_chart_mirrors(chart_mirror or []))
        if no_cache:
            opts.cache_dir = None
        ticker = _Ticker() if sys.stderr.isatty() else None
        opts.report = ticker
        try:
            result = run_guard(opts)
        finally:
            if ticker:
                ticker.clear()
        for note in result.notes:
            typer.echo(note, err=True)
        if verify:
            _verify_heads(result, coredns)
        if result_file is not None:
            from gen.guard.report.merge import dump_result

            _write_result(Path(result_file), dump_result(result))
        return _verdict(result, chosen, strict)

    raise typer.Exit(_run(run))


def _chart_mirrors(given: list[str]) -> tuple[tuple[str, str], ...]:
    """--chart-mirror ORIGIN=MIRROR, each checked as guard.charts is; a file: folder made absolute
    (it is the caller's, named relative to where they stand)."""
    from gen.config import chart_mirrors
    from gen.errors import Problem, UsageError

    problems: list[Problem] = []
    pairs: dict[str, str] = {}
    for item in given:
        origin, sep, mirror = item.partition("=")
        if not sep:
            problems.append(Problem(f"{item[:80]!r} is not ORIGIN=MIRROR", key="--chart-mirror",
                                    hint="e.g. --chart-mirror oci://ghcr.io/bjw-s-labs/helm=oci+http://127.0.0.1:5000/bjw-s"))
            continue
        if mirror.startswith("file:") and not mirror.startswith("file:/"):
            mirror = "file:" + str(Path(mirror[len("file:"):]).resolve())
        pairs[origin] = mirror
    found = chart_mirrors(pairs, "--chart-mirror", problems, file=None)
    if problems:
        raise UsageError(problems)
    return tuple(sorted(found.items()))


def _discover(repo: str, head: str, fmt: str | None, write: bool, no_cache: bool) -> int:
    """`guard --discover`: the topology with its evidence; `--write` records it."""
    from gen.errors import UsageError
    from gen.guard.build.cache import default_dir
    from gen.guard.topology import discover, write_config

    if fmt not in (None, "text", "json"):
        raise UsageError(f"--discover prints text or json, not `{fmt}`", key="--format", hint="use --format text or json")
    top = discover(Path(repo), head, None if no_cache else default_dir())
    _out(top.as_json() if fmt == "json" else top.text())
    if write:
        target = write_config(Path(repo), top)
        typer.echo(f"wrote guard.clusters ({len(top.clusters)}) to {target.name}: review it and commit it", err=True)
    return 0


@app.command("charts-pull")
def charts_pull(
    folder: Annotated[str, typer.Argument(metavar="FOLDER", help="The mirror folder to fill (made if missing).")],
    repo: RepoOption = ".",
) -> None:
    """Fill a chart mirror folder with the charts the repository's HelmReleases name.

    Fetches each remote chart (HTTP chart repository or OCI registry) the
    HelmReleases ask for, as the guard does, into FOLDER/<origin>/ with an
    index.yaml, and prints the `guard.charts` lines for .coredns-gen.yaml so
    that `guard` judges HelmReleases from it without the network (an
    air-gapped CI). Exit codes: 0 every chart fetched, 1 some could not be
    (each named), 3 coredns-gen-helper missing or broken.
    """
    from gen.guard.helm.pull import pull

    def run() -> int:
        mirror = Path(folder).resolve()
        pulled = pull(Path(repo).resolve(), mirror)
        failed = [p for p in pulled if p.error]
        for p in pulled:
            said = f"{p.origin} {p.chart} {p.version}: " + (f"not fetched: {p.error}" if p.error else f"{p.folder}/")
            print(said, file=sys.stderr if p.error else sys.stdout)
        origins = sorted({(p.origin, p.folder) for p in pulled if not p.error})
        if origins:
            print("\n# .coredns-gen.yaml\nguard:\n  charts:")
            for origin, where in origins:
                print(f"    {origin}: file:{mirror / where}")
        if not pulled:
            print("no remote chart is named by a HelmRelease of this repository", file=sys.stderr)
        return 1 if failed else 0

    raise typer.Exit(_run(run))


@app.command("guard-merge")
def guard_merge(
    results: Annotated[list[str], typer.Argument(metavar="RESULT_FILE...", help="Every shard's `guard --shard K/N --result FILE` file.", show_default=False)],
    fmt: FormatOption = None,
    strict: StrictOption = False,
) -> None:
    """Combine the shards of one guard run into one verdict, in any --format.

    Refuses files of different commits, a missing or repeated shard and
    unknown envelope versions (exit 2): a verdict needs every shard. Exit
    codes as guard: 0 pass, 1 refused, 2 bad input.
    """
    from gen.guard.report.merge import merge_results
    from gen.guard.rules import SHARD_MERGES

    def run() -> int:
        chosen = _guard_format(fmt)
        return _verdict(merge_results([Path(r) for r in results], SHARD_MERGES), chosen, strict)

    raise typer.Exit(_run(run))


def _verify_heads(result: "GuardResult", coredns: str | None) -> None:
    """guard --verify: run the head Corefiles in CoreDNS; its findings join the result's."""
    from gen.finding import Finding
    from gen.guard.verify_heads import verify_views
    from gen.tools import coredns_binary

    binary = coredns_binary(coredns)
    found, result.views = verify_views(result.views, binary)
    result.findings = sorted([*result.findings, *found], key=Finding.sort_key)


def _guard_format(fmt: str | None) -> str:
    import os

    chosen = fmt or ("github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text")
    if chosen not in GUARD_FORMATS:
        from gen.errors import UsageError

        raise UsageError(f"unknown format `{chosen}`", key="--format", hint=f"use one of: {', '.join(GUARD_FORMATS)}")
    return chosen


def _verdict(result: GuardResult, fmt: str, strict: bool) -> int:
    """Print a guard result (findings on stdout, summary on stderr); its exit code."""
    from gen.finding import blocking
    from gen.guard import rule_docs

    if fmt == "markdown":
        from gen.guard.report.markdown import format_markdown

        _out(format_markdown(result.shown(), result.summary()))
    else:
        from gen.guard.report.corefiles import format_views_text, verdicts
        from gen.formats import format_findings

        shown = result.shown() if fmt == "json" else verdicts(result.findings)
        text = format_findings(shown, fmt, rule_docs())
        if fmt == "text":
            views = format_views_text(result.views)
            text += ("\n" if text and views else "") + views
        _out(text)
    typer.echo(result.summary(), err=True)
    return 1 if blocking(result.findings) or (strict and result.coverage.not_judged_count) else 0


def _write_result(target: Path, text: str) -> None:
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    except OSError as err:
        from gen.errors import UsageError

        raise UsageError(f"cannot write {target}: {err.strerror}", key="--result", hint="pass a writable path") from None


def _stderr_columns() -> int:
    """The width of the terminal the progress line is drawn on: stderr's, since stdout is often
    a file (`guard --format json > out.json`), where shutil's default would fall back to 80."""
    import os
    import shutil

    if os.environ.get("COLUMNS", "").isdigit():
        return int(os.environ["COLUMNS"])
    try:
        return os.get_terminal_size(sys.stderr.fileno()).columns or shutil.get_terminal_size().columns
    except (OSError, ValueError):
        return shutil.get_terminal_size().columns


class _Ticker:
    """Progress on one rewritten stderr line (a terminal only), at most ten updates a second."""

    def __init__(self) -> None:
        self.last = 0.0
        self.shown = False

    def __call__(self, what: str, done: int, total: int) -> None:
        import time

        now = time.monotonic()
        if total and 0 < done < total and now - self.last < 0.1:
            return
        self.last = now
        count = f" {done:,}/{total:,}" if total else ""
        width = max(20, _stderr_columns() - 1)
        sys.stderr.write("\r\x1b[K" + f"guard: {what}{count}"[:width])
        sys.stderr.flush()
        self.shown = True

    def clear(self) -> None:
        if self.shown:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


def main() -> None:
    """Run one command, then leave without tearing the heap down: a fleet's guard run holds
    millions of objects, and Python freeing them one by one at exit took 0.2 s of a 1 s run.
    Every file and lock is closed by then (each command does it itself); only the buffered
    output is left, and it is flushed here."""
    try:
        app()
        code = 0
    except SystemExit as done:
        code = _status(done.code)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a reader that went away: what Python's own exit says
            code = code or 120
    os._exit(code)


def _status(code: object) -> int:
    """What `sys.exit(code)` would make the process's exit status."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    sys.stderr.write(f"{code}\n")
    return 1
