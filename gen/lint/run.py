"""`coredns-gen lint` end to end: read the inputs, parse every Corefile unit, run every rule in RULES.

Each rule is one module of gen/lint/rules/, listed in RULES. `lint` reads the inputs, parses
every Corefile unit, runs every rule and returns the findings sorted by (file, line, rule); it
never prints. The CoreDNS version comes from --coredns-version, else the image tag of a coredns
Deployment among the inputs, else the newest release we know (option_releases.NEWEST). It lives here, not in the package's __init__, because the
guard asks lint for single rules (gen/lint/objects.py): a package __init__ runs for every
submodule, and this one reads files and starts CoreDNS (--load), which the guard never does.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, Sequence

from gen.corefile import Source
from gen.errors import Problem, UsageError
from gen.finding import Finding, Severity
from gen.lint.rules import (
    custom_key_ignored,
    duplicate_server_address,
    forward_failover_loops,
    forward_failover_noerror,
    forward_failover_unsupported,
    forward_multiple_unsupported,
    forward_next_ignored,
    forward_next_unsupported,
    forward_option_unsupported,
    forward_unreachable,
    forward_upstream_invalid,
    kubernetes_option_unsupported,
    import_not_found,
    import_server_in_block,
    override_context_unknown,
    override_root_forward,
    plugin_once_per_block,
    plugin_setup_refused,
    rewrite_arguments,
    server_block_unclosed,
    unknown_plugin,
    wiring_custom_configmap,
    wiring_import_server,
    wiring_mount_path,
    wiring_mount_readonly,
    wiring_mount_subpath,
    wiring_port_53,
    wiring_reload,
    zone_shadows_kubernetes,
)
from gen.lint.context import LintContext, Rule, VersionSource, build_units
from gen.lint.inputs import Inputs
from gen.lint.reader import load_inputs
from gen.lint.option_releases import NEWEST, image_version, parse_version
from gen.platforms import require
from gen.platforms.stock import stock_corefile
from gen.versions import Version

if TYPE_CHECKING:
    from gen.lint.load import LoadCheck

RULES: tuple[Rule, ...] = (
    unknown_plugin,
    forward_next_unsupported,
    forward_failover_unsupported,
    forward_failover_noerror,
    forward_failover_loops,
    forward_multiple_unsupported,
    forward_option_unsupported,
    forward_upstream_invalid,
    kubernetes_option_unsupported,
    forward_next_ignored,
    plugin_once_per_block,
    rewrite_arguments,
    plugin_setup_refused,
    forward_unreachable,
    import_server_in_block,
    import_not_found,
    duplicate_server_address,
    override_root_forward,
    override_context_unknown,
    custom_key_ignored,
    wiring_custom_configmap,
    wiring_import_server,
    wiring_mount_path,
    wiring_mount_readonly,
    wiring_mount_subpath,
    wiring_reload,
    wiring_port_53,
    zone_shadows_kubernetes,
    server_block_unclosed,
)


def rule_summaries() -> dict[str, str]:
    """Rule id -> first docstring line (SARIF rule descriptions, docs table)."""
    return {r.ID: (r.__doc__ or r.ID).strip().splitlines()[0] for r in RULES}


def _version(flag: str | None, what: str) -> Version | None:
    if flag is None:
        return None
    version = parse_version(flag)
    if version is None:
        raise UsageError(Problem(f"`{flag}` is not a version", key=what, hint="write it like 1.13.1"))
    return version


def _image_version(inputs: Inputs) -> Version | None:
    found = {image_version(str(c.get("image", "")))
             for d in inputs.deployments if d.name == "coredns"
             for c in ((d.node.get("spec") or {}).get("template") or {}).get("spec", {}).get("containers") or []}
    found.discard(None)
    return found.pop() if len(found) == 1 else None


class LintResult(NamedTuple):
    findings: list[Finding]
    version: Version  # the CoreDNS release the rules judged for
    version_source: VersionSource
    platform: str | None
    platform_version: Version | None
    loaded_by: str | None = None  # "CoreDNS 1.13.1 (/path/to/coredns)" when --load ran the binary
    release_newest: bool = False  # --platform without --platform-version: its newest known release
    rendered: bool = False  # platform and release read from the overlay's coredns-gen.io annotations

    def assumed(self) -> str:
        """One line saying what the findings were judged against (text output ends with it)."""
        origin = {"flag": "--coredns-version", "image": "the Deployment's image", "default": "newest known; pass --coredns-version",
                  "platform": f"{self.platform} {self.platform_version}'s default"}[self.version_source]
        newest = " (newest known; pass --platform-version)" if self.release_newest else ""
        where = f", platform {self.platform}" + (f" {self.platform_version}{newest}" if self.platform_version else "") if self.platform else ""
        where += " (as rendered: the coredns-gen.io/platform annotations)" if self.rendered else ""
        loaded = f"; loaded by {self.loaded_by}" if self.loaded_by else ""
        return f"lint: judged for CoreDNS {self.version} ({origin}){where}{loaded}\n"


def run_lint(paths: Sequence[Path | str], coredns_version: str | None = None, platform: str | None = None,
             k3s_version: str | None = None, platform_version: str | None = None,
             plugins: Sequence[str] = (), load: LoadCheck | None = None) -> list[Finding]:
    """Lint every path; return findings sorted by (file, line, rule). See `lint`."""
    return lint(paths, coredns_version, platform, k3s_version, platform_version, plugins, load).findings


def lint(paths: Sequence[Path | str], coredns_version: str | None = None, platform: str | None = None,
         k3s_version: str | None = None, platform_version: str | None = None,
         plugins: Sequence[str] = (), load: LoadCheck | None = None) -> LintResult:
    """Lint every path for one CoreDNS release and, with `platform`, in that platform's Corefile.

    With `load` (gen.lint.load.load_check of a CoreDNS binary), also start that binary on what
    the cluster would load: a refusal is an error finding; when it starts and is the release
    judged for, the static "CoreDNS refuses this" findings it contradicts are dropped (the
    binary is the judge).

    Raises:
        UsageError: unknown platform, bad version, missing path.
        CorefileError: a Corefile that does not parse (CoreDNS would refuse it too).
        ManifestError: a YAML file that does not parse.
    """
    chosen = require(platform, "--platform") if platform is not None else None
    release = _version(platform_version, "--platform-version") or _version(k3s_version, "--k3s-version")
    if k3s_version is not None and chosen is None:
        platform, chosen = "k3s", require("k3s", "--platform")
    if release is not None and chosen is None:
        raise UsageError(Problem("--platform-version needs --platform", key="--platform-version",
                                 hint="name the platform, e.g. --platform k3s --platform-version v1.34.9+k3s1"))
    inputs = load_inputs([Path(p) for p in paths])
    if inputs.empty():
        raise UsageError(_nothing_to_lint(paths, inputs))
    rendered = chosen is None and bool(inputs.rendered_for)
    if rendered:
        # an overlay coredns-gen rendered: judged for the platform and release it names
        platform, platform_version = _rendered_for(inputs)
        chosen = require(platform, "--platform")
        release = _version(platform_version, "--platform-version") if platform_version else None
    newest = False
    if chosen is not None and release is None:
        # --platform alone: the platform's newest known release, said in the last line, so an
        # override is judged in a real stock Corefile (k3s's differs per release) and never in none
        platform_version, newest = chosen.newest_release(), True
        release = _version(platform_version, "--platform-version")
    source: VersionSource = "flag"
    version = _version(coredns_version, "--coredns-version")
    if version is None:
        version, source = _image_version(inputs), "image"
    if version is None and chosen is not None and release is not None:
        version, source = chosen.coredns_for(str(platform_version or k3s_version)), "platform"
    if version is None:
        version, source = NEWEST, "default"
    stock = None
    if chosen is not None:
        # the release's stock Corefile (--platform-version, else the newest known: see above)
        text = stock_corefile(chosen, release)
        if text is not None:
            stock = Source(text, f"<{platform}{' ' + str(release) if release else ''} stock Corefile>")
    ctx = LintContext(build_units(inputs, stock), inputs, version, platform, release, source, frozenset(plugins))
    refusing = {r.ID for r in RULES if r.REFUSES}
    findings = {f for rule in RULES for f in rule.check(ctx) if stock is None or f.file != stock.filename}
    findings = plugin_setup_refused.unexplained(findings, refusing)
    loaded_by = None
    if load is not None:
        loaded = load(inputs, stock, sorted(findings, key=Finding.sort_key))
        loaded_by = loaded.by
        if not any(f.severity is Severity.ERROR for f in loaded.refusals) and str(version) == loaded.release:
            findings = {f for f in findings if f.rule not in refusing}
        findings |= set(loaded.refusals)
    return LintResult(sorted(findings, key=Finding.sort_key), version, source, platform, release, loaded_by, newest,
                      rendered)


def _rendered_for(inputs: Inputs) -> tuple[str, str]:
    """The one (platform, release) the inputs' coredns-gen.io annotations name.

    Raises:
        UsageError: objects rendered for different platforms or releases (lint judges one).
    """
    named = sorted({(p, r) for p, r, _ in inputs.rendered_for})
    if len(named) > 1:
        which = "; ".join(f"{f}: {p} {r or '(no release)'}" for p, r, f in inputs.rendered_for)
        raise UsageError(Problem(f"the inputs were rendered for different platforms or releases ({which})",
                                 key="coredns-gen.io/platform",
                                 hint="lint one overlay at a time, or say which with --platform and --platform-version"))
    return named[0]


def _nothing_to_lint(paths: Sequence[Path | str], inputs: Inputs) -> Problem:
    """Why a run that found nothing to judge is bad input, not a pass: what was read, and the fix."""
    shown = ", ".join(str(p) for p in paths)
    if inputs.values_files:
        return Problem(f"{', '.join(inputs.values_files)} is a coredns-gen values file: lint reads Corefiles and "
                       "the Kubernetes objects rendered from it, not the values", file=inputs.values_files[0], key="PATH",
                       hint="render it first (coredns-gen render VALUES) and lint the overlay folder it writes "
                            "(coredns-gen lint overlays/<platform>/<cluster>), or run coredns-gen verify VALUES")
    if not inputs.files:
        return Problem(f"found nothing to lint in {shown}: no Corefile and no .yaml, .yml or .json file", key="PATH",
                       hint="pass a Corefile, a ConfigMap/Deployment manifest or an overlay folder "
                            "(coredns-gen render writes one under overlays/<platform>/<cluster>)")
    return Problem(f"found nothing to lint in {shown}: {len(inputs.files)} file(s) read, none holds a Corefile, a "
                   "ConfigMap, a Deployment, an rke2-coredns HelmChartConfig or an EKS coredns add-on", key="PATH",
                   hint="pass the files that configure CoreDNS (e.g. the overlay coredns-gen render writes)")
