"""EKS: the CoreDNS managed add-on owns the Corefile and the Deployment; we render its configurationValues.

The add-on takes its Corefile only as the `corefile` string of its configurationValues (a hand
edit of kube-system/coredns is reverted at the next add-on update), validated by AWS against a
JSON schema that differs per add-on version (additional properties refused). So we render the
whole Corefile EKS ships (eksctl's copy of the add-on manifests: the same in EKS 1.28–1.36) with
the forward pair (README.md: why two stanzas) and the extra zones, merge the user's other configurationValues, and
validate the result against the add-on's own schema for `platformVersion` (vendored in
gen/data/eks/; a later build of a CoreDNS minor we hold takes the newest held schema of that
minor, with a warning, gen/platforms/newer.py; any other add-on version is refused). The JSON is
written for `aws eks update-addon --configuration-values file://…`, eksctl or Terraform, and,
when `eks.ack` asks, carried by an ACK `Addon` so Flux can deliver it. The add-on version is the
CoreDNS version (v1.11.1-eksbuild.8 runs CoreDNS 1.11.1).
"""

from __future__ import annotations

import functools
import json
import re
from importlib import resources
from typing import Any, Mapping

from gen.errors import Problem
from gen.platforms import newer
from gen.platforms.base import COREDNS_CONFIGMAP, COREDNS_DEPLOYMENT, At, ImportPoint, ObjectRef, keys_not_applicable
from gen.platforms.stock_edit import with_forward_pair
from gen.rendered import Obj
from gen.spec import Values
from gen.versions import Version, parse_version

NAME = "eks"
DEFAULT_RELEASE = "v1.14.3-eksbuild.3"  # AWS's default add-on of EKS 1.36 (gen/data/SOURCES.md)
ADDON = ObjectRef("Addon", "kube-system", "coredns")
OWNS: tuple[ObjectRef, ...] = (ADDON,)
NEVER_TOUCH: tuple[ObjectRef, ...] = (COREDNS_CONFIGMAP, COREDNS_DEPLOYMENT)
ORDER_HINT = "forward specific domains with a `zones:` entry instead"
SERVER_PORT = 53
NEXT_HINT = ("pick an add-on version with CoreDNS ≥ 1.11.4 (the default of EKS 1.30 and later, e.g. v1.13.2-eksbuild.11), "
             "or drop `upstream`/the zone's fallback")
DOCUMENT = "coredns-addon-configuration-values.json"
ANNOTATIONS = {
    # Deleting the Addon object would make ACK delete the EKS add-on, and CoreDNS with it.
    "kustomize.toolkit.fluxcd.io/prune": "disabled",
    "services.k8s.aws/deletion-policy": "retain",
}


def _known() -> dict[str, str]:
    out = {}
    for entry in resources.files("gen").joinpath("data/eks").iterdir():
        m = re.fullmatch(r"coredns-(v[0-9.]+-eksbuild\.[0-9]+)\.schema\.json", entry.name)
        if m:
            out[m[1]] = entry.name
    return dict(sorted(out.items(), key=lambda kv: (parse_version(kv[0]), int(kv[0].rsplit(".", 1)[1]))))


KNOWN = _known()


def _release(text: str) -> str:
    return text if text.startswith("v") else "v" + text


def _order(release: str) -> tuple[int, ...]:
    """Add-on order: the CoreDNS version, then the eksbuild number."""
    build = release.rsplit(".", 1)[1] if "-eksbuild." in release else "0"
    return (*parse_version(release), int(build) if build.isdigit() else 0)


def stand_in(release: str) -> str | None:
    """A later add-on build (or CoreDNS patch) of a known minor takes the newest known schema below it."""
    if _release(release) in KNOWN:
        return release
    return newer.stand_in(_release(release), KNOWN, _order)


def newest_release() -> str:
    return max(KNOWN, key=_order)


@functools.lru_cache(maxsize=None)
def schema(release: str) -> Mapping[str, Any]:
    """The add-on's configuration schema (a later build: its stand-in's)."""
    text = resources.files("gen").joinpath(f"data/eks/{KNOWN[_release(str(stand_in(release)))]}").read_text(encoding="utf-8")
    return dict(json.loads(text))


def known_releases() -> str:
    return ", ".join(KNOWN)


def releases() -> tuple[Version, ...]:
    return tuple(sorted({parse_version(r) for r in KNOWN}))


def coredns_for(release: str) -> Version | None:
    """The add-on version names the CoreDNS it runs (v1.11.4-eksbuild.28 runs 1.11.4)."""
    return parse_version(release) if stand_in(release) else None


def kubernetes_version(values: Values) -> str | None:
    return None  # the add-on version does not pin Kubernetes; the Addon is a CRD


def check_version(values: Values) -> tuple[str, str] | None:
    if stand_in(values.platform_version) is None:
        return (f"no configuration schema vendored for EKS CoreDNS add-on version {values.platform_version}",
                f"use one of {known_releases()}, or vendor the schema of yours (`aws eks describe-addon-configuration "
                "--addon-name coredns --addon-version V --query configurationSchema --output text`) into gen/data/eks/")
    return None


@functools.lru_cache(maxsize=1)
def _eksctl_corefile() -> str:
    text = resources.files("gen").joinpath("data/eks/eksctl-coredns-1.34.json").read_text(encoding="utf-8")
    items = json.loads(text)["items"]
    return str(next(i for i in items if i["kind"] == "ConfigMap")["data"]["Corefile"])


def stock_corefile(release: Version, cluster_domain: str) -> str | None:
    """The Corefile EKS ships (eksctl's copy; the add-on's default `corefile` is not published)."""
    text = _eksctl_corefile()
    return text if cluster_domain == "cluster.local" else re.sub(r"(?<=[ \t])cluster\.local(?=\s)", cluster_domain, text)


def stock_of(release: str, cluster_domain: str) -> str | None:
    return stock_corefile(parse_version(release), cluster_domain)


def import_points(release: Version) -> tuple[ImportPoint, ...]:
    return ()


def main_corefile(values: Values) -> str:
    text = str(stock_corefile(parse_version(values.platform_version), values.cluster_domain))
    return with_forward_pair(text, values, "EKS", "  ")


def configuration_values(values: Values) -> dict[str, Any]:
    """The add-on's configurationValues: our corefile, then the user's other keys."""
    extra = json.loads(values.eks.configuration_values)
    return {"corefile": main_corefile(values), **extra}


def configuration_text(values: Values) -> str:
    return json.dumps(configuration_values(values), indent=2, ensure_ascii=False) + "\n"


def _schema_problems(values: Values, at: At) -> list[Problem]:
    import jsonschema  # only here: a fleet of valid files never needs it

    validator = jsonschema.Draft6Validator(dict(schema(values.platform_version)))  # the add-on's schemas are draft-06
    problems = []
    hint = "write only what this add-on version's schema allows (aws eks describe-addon-configuration shows it)"
    for err in sorted(validator.iter_errors(configuration_values(values)), key=lambda e: list(e.absolute_path)):
        path = ["eks", "configurationValues", *err.absolute_path]
        if err.validator == "additionalProperties" and isinstance(err.instance, dict):  # name each key, at its line
            allowed = set((err.schema.get("properties") or {}))
            for key in sorted(set(err.instance) - allowed):
                problems.append(at([*path, key], f"add-on {values.platform_version}'s configuration schema has no '{key}' here", hint))
            continue
        problems.append(at(path, f"add-on {values.platform_version}'s configuration schema refuses it: {err.message.splitlines()[0][:200]}", hint))
    return problems


def check(values: Values, data: Mapping[str, Any], at: At) -> list[Problem]:
    problems = keys_not_applicable(data, at, "EKS", {
        "overrides": "the add-on takes one whole corefile; put zones under `zones:`",
        "autoscaling": "the add-on scales itself: set `eks.configurationValues.autoScaling` where its schema has it",
        "alert": "the replica alert is for k3s"})
    extra = json.loads(values.eks.configuration_values)
    if "corefile" in extra:
        return problems + [at(["eks", "configurationValues", "corefile"], "the corefile is rendered, not written here",
                              "remove `corefile`: coredns-gen renders it from the add-on's own Corefile, `upstream` and `zones`")]
    replicas = extra.get("replicaCount")
    if isinstance(replicas, int) and not isinstance(replicas, bool) and replicas < 2:
        problems.append(at(["eks", "configurationValues", "replicaCount"], f"replicaCount {replicas}: one node drain is a cluster-wide DNS outage",
                           "keep at least 2 (the add-on's default)"))
    return problems + _schema_problems(values, at)


def manifests(values: Values) -> list[tuple[str, Obj]]:
    ack = values.eks.ack
    if ack is None:
        return []
    addon: Obj = {
        "apiVersion": "eks.services.k8s.aws/v1alpha1",
        "kind": "Addon",
        "metadata": {"name": ADDON.name, "namespace": ack.namespace, "annotations": dict(sorted(ANNOTATIONS.items()))},
        "spec": {
            "name": "coredns",
            "clusterName": ack.cluster_name,
            "addonVersion": values.platform_version,
            "resolveConflicts": ack.resolve_conflicts,
            "configurationValues": configuration_text(values),
        },
    }
    return [("coredns-addon.yaml", addon)]


def documents(values: Values) -> list[tuple[str, str]]:
    return [(DOCUMENT, configuration_text(values))]


def corefile_of(configuration: str) -> str | None:
    """The corefile a configurationValues JSON text sets (None: it keeps the add-on's default),
    for `lint` and `guard`.

    Raises:
        ValueError: the text is not a JSON object, or `corefile` is not a string.
    """
    try:
        data = json.loads(configuration)
    except ValueError as err:
        raise ValueError(f"configurationValues is not valid JSON: {err}") from None
    except RecursionError:
        raise ValueError("configurationValues is nested too deeply to read (past Python's recursion limit)") from None
    if not isinstance(data, dict):
        raise ValueError("configurationValues is not a JSON object")
    corefile = data.get("corefile")
    if corefile is not None and not isinstance(corefile, str):
        raise ValueError("configurationValues.corefile is not a string")
    return corefile
