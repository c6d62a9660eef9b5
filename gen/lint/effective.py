"""The Corefile CoreDNS loads on a cluster, from the objects applied there: decided once, here.

Which Corefile that is depends on who owns it. The repository owns it with a kube-system/coredns
ConfigMap key `Corefile` (Talos, kubeadm), an RKE2 HelmChartConfig kube-system/rke2-coredns
(the chart renders it from valuesContent) or an EKS add-on's `configurationValues.corefile`.
Otherwise the platform owns it: its stock Corefile (gen/platforms/) imports the coredns-custom
keys where the platform imports them (k3s, AKS, Gardener, kubeadm's `*.server`). Either way the
coredns-custom keys are spliced in at their imports with gen.corefile's expander, as lint and
verify splice them, so the guard's reviewer view, `lint --platform` and the guard's rules agree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from gen.comments import comment
from gen.corefile import CorefileError, Source, VirtualFS, expand_imports
from gen.lint.inputs import CUSTOM_CONFIGMAP
from gen.lint.objects import inputs_from_objects
from gen.platforms import eks, rke2
from gen.platforms.base import Platform
from gen.platforms.stock import stock_corefile
from gen.versions import Version, parse_version

CHART_CONFIG = ("kube-system", "rke2-coredns", "HelmChartConfig")


@dataclass(frozen=True)
class Effective:
    """What CoreDNS loads: the text with every import CoreDNS can resolve here spliced in."""

    text: str
    origin: str  # where the main Corefile comes from, for a reader ("k3s v1.34.9 stock Corefile")
    problem: str = ""  # set when it does not parse: `text` is then the texts as written


def managed_corefile(obj: Mapping[str, Any]) -> tuple[str, str | None] | None:
    """(what, Corefile) of an object whose values the platform renders into the Corefile: the
    RKE2 chart config (rendered with the newest vendored chart) or the EKS coredns add-on (None:
    the add-on keeps its own). None for any other object.

    Raises:
        ValueError: the values do not parse as the platform reads them.
    """
    meta = obj.get("metadata") or {}
    api, kind = str(obj.get("apiVersion") or ""), str(obj.get("kind") or "")
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
    assert isinstance(spec, dict)
    if (str(meta.get("namespace") or ""), str(meta.get("name") or ""), kind) == CHART_CONFIG \
            and api.startswith("helm.cattle.io/"):
        return "the rke2-coredns chart rendered from HelmChartConfig valuesContent", \
            rke2.corefile_of(str(spec.get("valuesContent") or ""))
    if kind == "Addon" and api.startswith("eks.services.k8s.aws/") and spec.get("name") == "coredns":
        return "the EKS add-on configurationValues corefile", eks.corefile_of(str(spec.get("configurationValues") or "{}"))
    return None


def effective_corefile(objects: Iterable[Mapping[str, Any]], platform: Platform | None,
                       release: str | None = None) -> Effective | None:
    """The Corefile CoreDNS loads given these objects (None: they hold nothing of cluster DNS).

    Without a platform and without a repository-owned Corefile, the coredns-custom keys are shown
    as written, one after another, since where they are imported is the platform's fact."""
    held = list(objects)
    inputs = inputs_from_objects([dict(o) for o in held])
    custom = inputs.configmap(CUSTOM_CONFIGMAP)
    keys = dict(sorted(custom.data.items())) if custom is not None else {}
    main: Source | None = None
    origin = ""
    for _cm, src in inputs.main_corefiles():
        main, origin = src, "ConfigMap kube-system/coredns key Corefile"
        break
    for obj in held if main is None else ():
        try:
            managed = managed_corefile(obj)
        except ValueError as err:
            return Effective("", "", f"the platform cannot read its values: {err}")
        if managed is not None:
            what, text = managed
            if text is None:
                continue  # the add-on keeps its own Corefile: the platform's stock stands in
            main, origin = Source(text, "Corefile"), what
            break
    if main is None and platform is not None:
        # no release a fact names: the newest known, said so (as `lint --platform` without a version)
        named = release or platform.newest_release()
        version = _version(platform, named)
        text = stock_corefile(platform, version)
        if text is not None:
            shown = f" {named}" if version else ""
            newest = "" if release else " (the newest known release: no values file names platformVersion)"
            main, origin = Source(text, f"<{platform.NAME} stock Corefile>"), f"the {platform.NAME}{shown} stock Corefile{newest}"
    if main is None:
        if not keys:
            return None
        why = "no platform is known for this cluster" if platform is None else \
            f"no {platform.NAME} release is known here to pick its stock Corefile"
        return Effective(_as_written(keys), f"coredns-custom keys as written ({why})")
    if keys:
        origin += " with the coredns-custom keys spliced in where it imports them"
    try:
        files = {f"/etc/coredns/custom/{k}": s for k, s in keys.items()}
        return Effective(expand_imports(main.corefile(), VirtualFS(files)).render(), origin)
    except CorefileError as err:
        return Effective(main.text + ("\n" if keys else "") + _as_written(keys), origin, str(err))


def _as_written(keys: Mapping[str, Source]) -> str:
    return "".join(f"{comment('coredns-custom ' + k)}\n{s.text.rstrip()}\n" for k, s in keys.items())


def _version(platform: Platform, release: str | None) -> Version | None:
    """The release whose facts `release` takes (a later patch: the newest known of its minor)."""
    try:
        known = platform.stand_in(release) if release else None
        return parse_version(known) if known else None
    except ValueError:
        return None
