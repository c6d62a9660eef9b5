"""Where a HelmRelease's chart comes from: only what Flux's API accepts is fetched.

A HelmRepository or OCIRepository in the repository under review is hostile input: a `file:` url
made the helper read that folder of the machine the guard runs on (`<url>/index.yaml` and the
archives it lists) and render what it found; Flux's API refuses such a url, so no cluster renders it.
"""

from __future__ import annotations

from typing import Any

import pytest

from gen.guard.helm.sources import SOURCE_GROUP, locate
from gen.guard.model import ObjKey

RELEASE_KEY = ObjKey("apps", "web", "helm.toolkit.fluxcd.io", "HelmRelease")


def _objects(kind: str, spec: dict[str, Any]) -> dict[ObjKey, tuple[Any, dict[str, Any]]]:
    return {ObjKey("apps", "charts", SOURCE_GROUP, kind): (None, {"kind": kind, "spec": spec})}


def _release(chart: dict[str, Any]) -> dict[str, Any]:
    return {"kind": "HelmRelease", "spec": chart}


HELM_CHART = {"chart": {"spec": {"chart": "web", "version": "1.0.0", "sourceRef": {"kind": "HelmRepository", "name": "charts"}}}}
OCI_CHART = {"chartRef": {"kind": "OCIRepository", "name": "charts"}}


@pytest.mark.parametrize("url", ["file:///etc", "file://../../outside", "/etc/charts", "ftp://charts.example", ""])
def test_a_helm_repository_url_flux_refuses_is_never_fetched(url: str) -> None:
    where = locate(_release(HELM_CHART), RELEASE_KEY, _objects("HelmRepository", {"url": url}))
    assert where.kind == "none"
    assert "which Flux's API refuses" in where.why and "http:// or https:// or oci://" in where.why


@pytest.mark.parametrize("url", ["file:///etc/charts/web", "https://charts.example/web"])
def test_an_oci_repository_url_flux_refuses_is_never_fetched(url: str) -> None:
    where = locate(_release(OCI_CHART), RELEASE_KEY, _objects("OCIRepository", {"url": url, "ref": {"tag": "1.0.0"}}))
    assert where.kind == "none" and "spec.url must start with oci://" in where.why


@pytest.mark.parametrize(("url", "kind"), [("https://charts.example", "http"), ("http://charts.example", "http"),
                                           ("oci://ghcr.io/example", "oci")])
def test_the_urls_flux_accepts_are_fetched(url: str, kind: str) -> None:
    assert locate(_release(HELM_CHART), RELEASE_KEY, _objects("HelmRepository", {"url": url})).kind == kind
