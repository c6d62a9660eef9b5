"""The Helm layer on charts from repositories: fetched as source-controller fetches them, from a real
HTTP chart repository and a real OCI registry on loopback standing in (--chart-mirror) for the
public origins the HelmReleases name; the real coredns chart and app-template (tests/data/charts).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from gen.guard import GuardOptions, GuardResult, run_guard
from tests.guard.conftest import by_rule, flux_ks, kustomization
from tests.guard.helm.conftest import chart_copy


def _apps(*docs: str) -> dict[str, str]:
    return {"clusters/prod/kustomization.yaml": kustomization("apps.yaml"),
            "clusters/prod/apps.yaml": flux_ks("apps", "./apps"),
            "apps/kustomization.yaml": kustomization(*[f"doc-{i}.yaml" for i in range(len(docs))]),
            **{f"apps/doc-{i}.yaml": doc for i, doc in enumerate(docs)}}


def _indent(text: str, by: int) -> str:
    return "".join(" " * by + line + "\n" for line in text.splitlines())


def helm_repository(name: str, url: str, oci: bool = False) -> str:
    kind = "\n          type: oci" if oci else ""
    return f"""
        apiVersion: source.toolkit.fluxcd.io/v1
        kind: HelmRepository
        metadata:
          name: {name}
          namespace: flux-system
        spec:
          interval: 1h
          url: {url}{kind}
    """


def helm_release(name: str, namespace: str, chart: str, version: str, repo: str, values: str) -> str:
    return f"""
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata:
          name: {name}
          namespace: {namespace}
        spec:
          interval: 1h
          chart:
            spec:
              chart: {chart}
              version: {version}
              sourceRef:
                kind: HelmRepository
                name: {repo}
                namespace: flux-system
          values:
{_indent(values, 12) if values.strip() else '            {}' + chr(10)}"""


COREDNS_VALUES = """servers:
  - zones: [{zone: .}]
    port: 53
    plugins:
      - name: errors
      - name: health
      - name: ready
      - name: kubernetes
        parameters: cluster.local in-addr.arpa ip6.arpa
        configBlock: |-
          pods insecure
          fallthrough in-addr.arpa ip6.arpa
      - name: forward
        parameters: . /etc/resolv.conf
      - name: cache
        parameters: 30
      - name: loop
      - name: reload
"""


def test_a_coredns_chart_corefile_is_shown_and_judged(flux_repo: Callable[..., Path], http_charts: Callable[..., str],
                                                     guard: Callable[..., GuardResult], tmp_path: Path) -> None:
    """onedr0p/home-ops c173484e95's shape: CoreDNS is the coredns chart, and the change adds a
    `template` plugin to its Corefile. The reviewer's Corefile view shows the chart's Corefile,
    base -> head; nothing is deleted."""
    mirror = http_charts([chart_copy(tmp_path, "coredns")])
    origin = "https://coredns.github.io/helm"
    with_template = COREDNS_VALUES.replace("      - name: loop\n", "      - name: template\n        parameters: IN AAAA\n"
                                           "        configBlock: rcode NOERROR\n      - name: loop\n")
    base = _apps(helm_repository("coredns", origin),
                 helm_release("coredns", "kube-system", "coredns", "1.46.2", "coredns", COREDNS_VALUES))
    root = flux_repo(base, {"apps/doc-1.yaml": helm_release("coredns", "kube-system", "coredns", "1.46.2", "coredns",
                                                            with_template)})
    result = guard(root, chart_mirrors=((origin, mirror),))
    assert not [f for f in result.findings if f.severity.value == "error"], result.findings
    [view] = [v for v in result.views if v.rule == "corefile-diff"]
    assert "+    template IN AAAA {" in view.details["diff"], view.details["diff"]


QBITTORRENT = """controllers:
  qbittorrent:
    containers:
      app:
        image: {repository: ghcr.io/home-operations/qbittorrent, tag: 5.1.0}
configMaps:
  config:
    data:
      categories.json: '{}'
"""


def test_app_template_values_dropping_a_configmap_is_refused(flux_repo: Callable[..., Path],
                                                            oci_registry: Callable[..., str],
                                                            guard: Callable[..., GuardResult], tmp_path: Path) -> None:
    """onedr0p/home-ops 15ed4ffaa4's shape with the real app-template from an OCI registry: the
    qbittorrent values drop `configMaps.config`; the upgrade deletes ConfigMap media/qbittorrent."""
    tmp = tmp_path
    mirror = oci_registry([chart_copy(tmp, "app-template")], "bjw-s")
    origin = "oci://ghcr.io/bjw-s-labs/helm"
    base = _apps(helm_repository("bjw-s", origin, oci=True),
                 helm_release("qbittorrent", "media", "app-template", "4.1.1", "bjw-s", QBITTORRENT))
    head = QBITTORRENT.replace("configMaps:\n  config:\n    data:\n      categories.json: '{}'\n", "")
    root = flux_repo(base, {"apps/doc-1.yaml": helm_release("qbittorrent", "media", "app-template", "4.1.1", "bjw-s",
                                                            head)})
    mirrors = ((origin, mirror.replace("oci://", "oci+http://")),)
    result = guard(root, chart_mirrors=mirrors)
    found = by_rule(result.findings, "helm-upgrade-deletes")
    assert [(f.details["object"], f.severity.value) for f in found] == [("media_qbittorrent__ConfigMap", "error")], \
        result.findings


def test_a_chart_bump_that_drops_a_template_is_refused(flux_repo: Callable[..., Path], oci_registry: Callable[..., str],
                                                      tmp_path: Path) -> None:
    """A remote chart's version bump passed with no note; the new version's manifest no longer
    holds the ConfigMap: refused. The same bump with the cache of the first run and the registry
    gone is judged the same (exact versions are kept by digest)."""
    tmp = tmp_path
    # 1.47.0's configmap template renders nothing (the Deployment still includes it for its checksum)
    newer = chart_copy(tmp, "coredns", "1.47.0",
                       lambda d: (d / "templates" / "configmap.yaml").write_text("{{- /* dropped */ -}}\n"))
    mirror = oci_registry([chart_copy(tmp, "coredns"), newer], "coredns")
    origin = "oci://ghcr.io/coredns/charts"
    source = """
        apiVersion: source.toolkit.fluxcd.io/v1
        kind: OCIRepository
        metadata: {name: coredns, namespace: kube-system}
        spec:
          interval: 1h
          url: oci://ghcr.io/coredns/charts/coredns
          ref: {tag: 1.46.2}
    """
    release = """
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata: {name: coredns, namespace: kube-system}
        spec:
          interval: 1h
          chartRef: {kind: OCIRepository, name: coredns}
    """
    root = flux_repo(_apps(source, release), {"apps/doc-0.yaml": source.replace("1.46.2", "1.47.0")})
    cache = tmp / "own-cache"
    mirrors = ((origin, mirror.replace("oci://", "oci+http://")),)
    first = run_guard(GuardOptions(repo=root, base="base", head="HEAD", cache_dir=cache, chart_mirrors=mirrors))
    found = by_rule(first.findings, "helm-upgrade-deletes")
    assert [f.details["object"] for f in found] == ["kube-system_coredns__ConfigMap"], first.findings
    assert "1.46.2 -> coredns 1.47.0" in found[0].message
    gone = ((origin, "oci+http://127.0.0.1:9/nothing"),)
    again = run_guard(GuardOptions(repo=root, base="base", head="HEAD", cache_dir=cache, chart_mirrors=gone))
    assert [f.details["object"] for f in by_rule(again.findings, "helm-upgrade-deletes")] == \
        ["kube-system_coredns__ConfigMap"], again.findings


def test_a_chart_that_cannot_be_fetched_is_refused_with_the_fix(flux_repo: Callable[..., Path],
                                                                guard: Callable[..., GuardResult]) -> None:
    origin = "https://charts.example.invalid"
    base = _apps(helm_repository("acme", origin), helm_release("web", "apps", "web", "1.0.0", "acme", "a: 1"))
    root = flux_repo(base, {"apps/doc-1.yaml": helm_release("web", "apps", "web", "1.1.0", "acme", "a: 1")})
    result = guard(root)
    [found] = by_rule(result.findings, "helm-release-not-judged")
    assert found.severity.value == "error" and "could not be fetched" in found.message
    assert "--chart-mirror" in found.hint


def test_an_unchanged_release_is_not_fetched(flux_repo: Callable[..., Path], guard: Callable[..., GuardResult]) -> None:
    """A change beside a HelmRelease whose inputs stay the same renders nothing and refuses nothing,
    even with its chart out of reach; so does an interval change (no manifest reads it)."""
    origin = "https://charts.example.invalid"
    base = _apps(helm_repository("acme", origin), helm_release("web", "apps", "web", "1.0.0", "acme", "a: 1"))
    root = flux_repo(base, {"apps/doc-1.yaml": helm_release("web", "apps", "web", "1.0.0", "acme", "a: 1")
                            .replace("interval: 1h", "interval: 5m")})
    assert not guard(root).findings


def test_a_chart_made_corefile_is_held_to_the_dns_invariants(flux_repo: Callable[..., Path],
                                                             http_charts: Callable[..., str],
                                                             guard: Callable[..., GuardResult], tmp_path: Path) -> None:
    """The coredns chart's Corefile is judged like one a Kustomization applies: a `next` with no
    forward after it (CoreDNS ignores it) is refused by next-needs-forward."""
    mirror = http_charts([chart_copy(tmp_path, "coredns")])
    origin = "https://coredns.github.io/helm"
    broken = COREDNS_VALUES.replace("        parameters: . /etc/resolv.conf\n",
                                    "        parameters: . 192.0.2.53\n        configBlock: next SERVFAIL\n")
    base = _apps(helm_repository("coredns", origin),
                 helm_release("coredns", "kube-system", "coredns", "1.46.2", "coredns", COREDNS_VALUES))
    root = flux_repo(base, {"apps/doc-1.yaml": helm_release("coredns", "kube-system", "coredns", "1.46.2", "coredns",
                                                            broken)})
    result = guard(root, chart_mirrors=((origin, mirror),))
    found = by_rule(result.findings, "next-needs-forward")
    assert [f.severity.value for f in found] == ["error"], result.findings


def _moved_to_oci(path: str) -> str:
    return f"""
        apiVersion: source.toolkit.fluxcd.io/v1
        kind: OCIRepository
        metadata: {{name: coredns, namespace: kube-system}}
        spec:
          interval: 1h
          url: oci://ghcr.io/acme/mirror/{path}
          ref: {{tag: 1.46.2}}
        ---
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata: {{name: coredns, namespace: kube-system}}
        spec:
          interval: 1h
          chartRef: {{kind: OCIRepository, name: coredns}}
          values:
{_indent(COREDNS_VALUES, 12)}"""


def _chart_move(tmp_path: Path, flux_repo: Callable[..., Path], http_charts: Callable[..., str],
                oci_registry: Callable[..., str], renamed: bool) -> GuardResult:
    """The HTTP-repository-to-OCI-mirror migration (onedr0p/home-ops moved 19 charts so): the chart
    moves to another artifact; only its Chart.yaml says whether its name, and so the release, stays."""
    http = http_charts([chart_copy(tmp_path, "coredns")])
    chart = chart_copy(tmp_path, "coredns", edit=(lambda d: (d / "Chart.yaml").write_text(
        (d / "Chart.yaml").read_text().replace("name: coredns", "name: coredns-fork"))) if renamed else None)
    oci = oci_registry([chart], "mirror")
    origin_http, origin_oci = "https://coredns.github.io/helm", "oci://ghcr.io/acme/mirror"
    base = _apps(helm_repository("coredns", origin_http),
                 helm_release("coredns", "kube-system", "coredns", "1.46.2", "coredns", COREDNS_VALUES))
    root = flux_repo(base, {"apps/doc-1.yaml": _moved_to_oci("coredns-fork" if renamed else "coredns")})
    return run_guard(GuardOptions(repo=root, base="base", head="HEAD", cache_dir=tmp_path / "c",
                                  chart_mirrors=((origin_http, http),
                                                 (origin_oci, oci.replace("oci://", "oci+http://")))))


def test_a_chart_moved_to_a_mirror_with_its_name_is_no_retarget(tmp_path: Path, flux_repo: Callable[..., Path],
                                                                http_charts: Callable[..., str],
                                                                oci_registry: Callable[..., str]) -> None:
    """Refused before as not judged (the chart's name at head was unknown); both charts rendered, the
    name is the same: helm-controller upgrades in place, and the upgrade deletes nothing."""
    result = _chart_move(tmp_path, flux_repo, http_charts, oci_registry, renamed=False)
    assert not [f for f in result.findings if f.severity.value == "error"], result.findings


def test_a_chart_moved_to_another_name_is_an_uninstall(tmp_path: Path, flux_repo: Callable[..., Path],
                                                       http_charts: Callable[..., str],
                                                       oci_registry: Callable[..., str]) -> None:
    result = _chart_move(tmp_path, flux_repo, http_charts, oci_registry, renamed=True)
    [found] = by_rule(result.findings, "helmrelease-retargeted")
    assert "chart coredns -> coredns-fork" in found.message and found.details["fate"] == "uninstalled"
