"""`coredns-gen verify` end to end: values -> rendered Corefile -> every scenario in a real CoreDNS.

The values/render glue over the layers of gen/verify/. It lives here, not in the package's
__init__, because `lint --load` imports the sandbox: a package's __init__ runs for every one of
its modules, and this one loads values files, renders and imports the scenario engine.
"""

from __future__ import annotations

from pathlib import Path

from gen.platforms import get
from gen.render.cluster import render_overlay
from gen.rendered import configmap_data
from gen.spec import Values
from gen.tools import coredns_binary
from gen.render.values import load_values
from gen.verify.contained import run_contained
from gen.verify.engine import VerifyResult
from gen.errors import ToolError, UsageError
from gen.launcher import binary_version
from gen.verify.binary import binary_for, release_of
from gen.verify.sandbox import VerifyConfig
from gen.verify.scenarios import PROBE_KEY, PROBE_UPSTREAM, PROBE_ZONE
from gen.corefile.facts import UPSTREAM_KEY
from gen import fluxvars


def verify_config(config: VerifyConfig, binary: Path, *, cluster: str = "", platform: str = "",
                  ran: str | None = None) -> VerifyResult:
    """Run every scenario the Corefile's shape calls for (the engine without values files);
    `ran` is the binary's version when the caller asked it already (guard --verify, once for
    every cluster: `coredns -version` is a process start each time).

    Raises:
        ToolError: the binary does not run, or this machine cannot confine it (gen/verify/contained.py).
        UsageError: an upstream or server block verify cannot fake.
    """
    ran = ran or binary_version(binary)
    outcomes, mode, confinement = run_contained(config, binary)
    return VerifyResult(cluster, platform, config.coredns_version, ran, mode, tuple(outcomes), confinement)


def config_for(values: Values) -> VerifyConfig:
    """What the cluster's CoreDNS loads: the platform's main Corefile plus our coredns-custom keys,
    each Flux variable filled as Flux would (gen.fluxvars.filled; one only the cluster knows is a UsageError)."""
    values = fluxvars.filled(values)
    custom = configmap_data(render_overlay(values), "coredns-custom")
    primaries: dict[str, str] = {}
    if values.upstream is not None and values.upstream.primary:
        primaries["."] = values.upstream.primary[0]
    for zone in values.zones:
        if zone.upstreams:
            primaries[zone.zone.lower().rstrip(".") + "."] = zone.upstreams[0]
    probes: dict[str, str] = {}
    if UPSTREAM_KEY in custom and PROBE_KEY not in custom:
        # Our root forward sits among the overrides (k3s, Gardener): a domain forward another
        # owner writes in an override of its own must still be reached (docs/verify.md, zz-corp.override).
        custom[PROBE_KEY] = f"forward {PROBE_ZONE} {PROBE_UPSTREAM}\n"
        probes[PROBE_ZONE] = PROBE_UPSTREAM
    return VerifyConfig(get(values.platform).main_corefile(values), custom, values.coredns_version, primaries, probes)


def run_verify(values_path: Path, *, repo: Path, coredns: str | None = None, coredns_version: str | None = None) -> VerifyResult:
    """Load the values, render the cluster's Corefile, and run the scenarios in a real CoreDNS: the
    binary `coredns` names, else the release `coredns_version` names, else the one the cluster runs
    (`corednsVersion:` or the platform release's), built once into the cache folder (gen/verify/binary.py).

    Raises:
        ValuesError: a bad values file (exit 2), checked before looking for the binary.
        UsageError: `coredns_version` is not a release number, or no release is known for the cluster.
        ToolError: no CoreDNS binary, or one that says another release than `coredns_version` (exit 3).
    """
    values = load_values(values_path, repo=repo)
    want = release_of(coredns_version, "--coredns-version") if coredns_version else None
    if coredns:
        binary = coredns_binary(coredns)
        ran = binary_version(binary)
        if want and ran != want:
            raise ToolError(f"--coredns {coredns} is CoreDNS {ran}, not the {want} --coredns-version asks for",
                            hint="pass one of the two, or a binary of that release")
    else:
        want = want or (release_of(values.coredns_version, "corednsVersion") if values.coredns_version else None)
        if want is None:
            raise UsageError(f"no CoreDNS release is known for {values.platform} {values.platform_version}",
                             key="--coredns-version", hint="pass --coredns-version 1.14.6 (the tag the cluster runs) or --coredns PATH")
        binary = binary_for(want)
        ran = binary_version(binary)
        if ran != want:  # a binary named coredns-<version> that is another release
            raise ToolError(f"{binary} is CoreDNS {ran}, not {want}", hint=f"remove it; verify builds {want} there again")
    return verify_config(config_for(values), binary, cluster=values.cluster, platform=values.platform, ran=ran)
