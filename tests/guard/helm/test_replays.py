"""The three commits of real repositories the Helm layer was built for, replayed: their HelmRelease
files before and after (tests/data/replays, SOURCES.md there) laid out at their own paths in a
repository made here, the chart served on loopback by a real OCI registry (conftest.py) standing in
for its public origin. Each passed on the guard before the Helm layer (exit 0, no word of Helm).
The chart versions are the vendored ones (tests/data/charts), not the commits' own: SOURCES.md
says what was changed and why the verdict does not depend on it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from gen.guard import GuardResult
from tests.guard.conftest import by_rule, flux_ks, kustomization
from tests.guard.helm.conftest import chart_copy

REPLAYS = Path(__file__).resolve().parents[2] / "data" / "replays"
APP_TEMPLATE = "oci://ghcr.io/bjw-s-labs/helm"
COREDNS = "oci://ghcr.io/coredns/charts"


def _data(case: str, name: str) -> str:
    return (REPLAYS / case / name).read_text()


def _layout(folder: str, namespace: str, files: dict[str, str]) -> dict[str, str]:
    """`files` in `folder`, applied by a Flux Kustomization with the targetNamespace the real ks.yaml sets."""
    return {"clusters/prod/kustomization.yaml": kustomization("apps.yaml"),
            "clusters/prod/apps.yaml": flux_ks("app", f"./{folder}", extra=f"targetNamespace: {namespace}"),
            **{f"{folder}/{name}": text for name, text in files.items()}}


def _errors(result: GuardResult, rule: str) -> list[tuple[str, str]]:
    return [(f.details["object"], f.severity.value) for f in by_rule(result.findings, rule)]


def test_onedr0p_15ed4ffaa4_qbittorrent_drops_its_configmap(flux_repo: Callable[..., Path],
                                                            oci_registry: Callable[..., str],
                                                            guard: Callable[..., GuardResult], tmp_path: Path) -> None:
    """The qbittorrent values (app-template) drop `configMaps.config` and the volume that mounted it:
    helm-controller's upgrade deletes ConfigMap default/qbittorrent. Refused, naming the values path."""
    case, folder = "onedr0p-15ed4ffaa4", "kubernetes/apps/default/qbittorrent/app"
    mirror = oci_registry([chart_copy(tmp_path, "app-template")], "bjw-s")
    files = {"kustomization.yaml": kustomization("./helmrelease.yaml", "./ocirepository.yaml"),
             "ocirepository.yaml": _data(case, "ocirepository.yaml"),
             "helmrelease.yaml": _data(case, "before/helmrelease.yaml")}
    root = flux_repo(_layout(folder, "default", files),
                     {f"{folder}/helmrelease.yaml": _data(case, "after/helmrelease.yaml")})
    result = guard(root, chart_mirrors=((APP_TEMPLATE, mirror.replace("oci://", "oci+http://")),))
    assert _errors(result, "helm-upgrade-deletes") == [("default_qbittorrent__ConfigMap", "error")], result.findings
    [found] = by_rule(result.findings, "helm-upgrade-deletes")
    assert found.file == f"{folder}/helmrelease.yaml" and found.details["values"] == "configMaps, persistence.config-file", found
    assert not by_rule(result.findings, "helm-release-not-judged"), result.findings


def test_bjw_s_6deef21d0a_a_configmap_moves_from_helm_to_a_generator(flux_repo: Callable[..., Path],
                                                                    oci_registry: Callable[..., str],
                                                                    guard: Callable[..., GuardResult],
                                                                    tmp_path: Path) -> None:
    """searxng's ConfigMap leaves the HelmRelease's values for a configMapGenerator of the same
    folder, under the same name: kustomize-controller applies it, then helm-controller's upgrade
    deletes selfhosted/searxng-config, the object both name. Refused."""
    case, folder = "bjw-s-labs-6deef21d0a", "kubernetes/apps/selfhosted/searxng/app"
    mirror = oci_registry([chart_copy(tmp_path, "app-template")], "bjw-s")
    same = {name: _data(case, name) for name in ("ocirepository.yaml", "externalsecret.yaml", "ciliumnetworkpolicy.yaml")}
    before = {**same, **{name: _data(case, f"before/{name}") for name in ("kustomization.yaml", "helmrelease.yaml")}}
    after = {name: _data(case, f"after/{name}") for name in
             ("kustomization.yaml", "helmrelease.yaml", "resources/limiter.toml", "resources/settings.yaml")}
    root = flux_repo(_layout(folder, "selfhosted", before), {f"{folder}/{name}": text for name, text in after.items()})
    result = guard(root, chart_mirrors=((APP_TEMPLATE, mirror.replace("oci://", "oci+http://")),))
    assert _errors(result, "helm-upgrade-deletes") == [("selfhosted_searxng-config__ConfigMap", "error")], \
        result.findings
    assert not by_rule(result.findings, "helm-release-not-judged"), result.findings


def test_onedr0p_c173484e95_the_coredns_charts_corefile_change_is_shown(flux_repo: Callable[..., Path],
                                                                       oci_registry: Callable[..., str],
                                                                       guard: Callable[..., GuardResult],
                                                                       tmp_path: Path) -> None:
    """The cluster's CoreDNS is the coredns chart; the values add a `template` plugin and
    `servfail 0` to the cache. The reviewer's view shows the chart's Corefile base -> head, and
    nothing is refused (nothing is deleted)."""
    case, folder = "onedr0p-c173484e95", "kubernetes/apps/kube-system/coredns/app"
    mirror = oci_registry([chart_copy(tmp_path, "coredns")], "coredns")
    files = {"kustomization.yaml": kustomization("./helmrelease.yaml", "./ocirepository.yaml"),
             "ocirepository.yaml": _data(case, "ocirepository.yaml"),
             "helmrelease.yaml": _data(case, "before/helmrelease.yaml")}
    root = flux_repo(_layout(folder, "kube-system", files),
                     {f"{folder}/helmrelease.yaml": _data(case, "after/helmrelease.yaml")})
    result = guard(root, chart_mirrors=((COREDNS, mirror.replace("oci://", "oci+http://")),))
    assert not [f for f in result.findings if f.severity.value == "error"], result.findings
    [view] = [v for v in result.views if v.rule == "corefile-diff"]
    diff = view.details["diff"]
    assert "+    template ANY AAAA {" in diff and "+        servfail 0" in diff, diff
