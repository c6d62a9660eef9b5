"""`coredns-gen lint`: version-aware Corefile checks and the coredns-custom wiring contract.

Each rule is one module (ID, SEVERITY, a PASS/FAIL docstring, `check(ctx)`), listed in RULES.
`run_lint` reads the inputs, parses every Corefile unit, runs every rule and returns the
findings sorted by (file, line, rule); it never prints. The CoreDNS version comes from
--coredns-version, else the image tag of a coredns Deployment among the inputs, else the newest
release we know (versions.NEWEST).
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from gen.errors import Problem, UsageError
from gen.finding import Finding
from gen.lint import (
    custom_key_ignored,
    duplicate_server_address,
    forward_failover_noerror,
    forward_failover_unsupported,
    forward_multiple_unsupported,
    forward_next_ignored,
    forward_next_unsupported,
    forward_option_unsupported,
    forward_unreachable,
    import_not_found,
    import_server_in_block,
    override_root_forward,
    unknown_plugin,
    wiring_custom_configmap,
    wiring_import_server,
    wiring_mount_path,
    wiring_mount_readonly,
    wiring_mount_subpath,
    wiring_port_53,
    wiring_reload,
)
from gen.lint.context import PLATFORMS, LintContext, Rule, build_units
from gen.lint.inputs import Inputs, load_inputs
from gen.lint.versions import NEWEST, image_version, parse_version
from gen.versions import Version

RULES: tuple[Rule, ...] = (
    unknown_plugin,
    forward_next_unsupported,
    forward_failover_unsupported,
    forward_failover_noerror,
    forward_multiple_unsupported,
    forward_option_unsupported,
    forward_next_ignored,
    forward_unreachable,
    import_server_in_block,
    import_not_found,
    duplicate_server_address,
    override_root_forward,
    custom_key_ignored,
    wiring_custom_configmap,
    wiring_import_server,
    wiring_mount_path,
    wiring_mount_readonly,
    wiring_mount_subpath,
    wiring_reload,
    wiring_port_53,
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


def run_lint(paths: Sequence[Path | str], coredns_version: str | None = None, platform: str | None = None,
             k3s_version: str | None = None) -> list[Finding]:
    """Lint every path; return findings sorted by (file, line, rule).

    Raises:
        UsageError: unknown platform, bad version, missing path.
        CorefileError: a Corefile that does not parse (CoreDNS would refuse it too).
        ManifestError: a YAML file that does not parse.
    """
    if platform is not None and platform not in PLATFORMS:
        raise UsageError(Problem(f"unknown platform `{platform}`", key="--platform",
                                 hint=f"use one of: {', '.join(PLATFORMS)}"))
    k3s = _version(k3s_version, "--k3s-version")
    if k3s is not None and platform is None:
        platform = "k3s"
    inputs = load_inputs([Path(p) for p in paths])
    version, source = _version(coredns_version, "--coredns-version"), "flag"
    if version is None:
        version, source = _image_version(inputs), "image"
    if version is None:
        version, source = NEWEST, "default"
    ctx = LintContext(build_units(inputs), inputs, version, platform, k3s, source)
    findings = {f for rule in RULES for f in rule.check(ctx)}
    return sorted(findings, key=Finding.sort_key)
