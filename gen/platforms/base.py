"""The Platform protocol: everything render, lint, verify, guard and `new` know about a platform.

A platform is one module under gen/platforms/ (plus its package data in gen/data/<name>/ and
its templates in templates/<name>/) that satisfies `Platform`; the registry in
gen/platforms/__init__.py lists them. mypy checks each module against the protocol.
"""

from __future__ import annotations

from typing import Any, Mapping, NamedTuple, Protocol

from gen.errors import Problem
from gen.rendered import Obj
from gen.spec import Values
from gen.versions import Version


class ObjectRef(NamedTuple):
    kind: str
    namespace: str
    name: str

    def __str__(self) -> str:
        return f"{self.kind} {self.namespace}/{self.name}"


COREDNS_CONFIGMAP = ObjectRef("ConfigMap", "kube-system", "coredns")
CUSTOM_CONFIGMAP = ObjectRef("ConfigMap", "kube-system", "coredns-custom")
COREDNS_DEPLOYMENT = ObjectRef("Deployment", "kube-system", "coredns")
# Set by a render on an object of a platform's own (kubeadm's Deployment patch), so the guard
# judges it by the platform the values named, not by guessing from its shape.
PLATFORM_ANNOTATION = "coredns-gen.io/platform"
# Set by a render, beside PLATFORM_ANNOTATION, on every object holding Corefile text (ConfigMaps,
# RKE2's HelmChartConfig, EKS's Addon): `lint` of an overlay judges it for that platform release.
RELEASE_ANNOTATION = "coredns-gen.io/platform-version"
COREFILE_KINDS = frozenset({"ConfigMap", "HelmChartConfig", "Addon"})


class ImportPoint(NamedTuple):
    """Where the platform's stock Corefile imports coredns-custom keys.

    `pattern` is written as in the Corefile (relative to /etc/coredns or absolute); `inside` is
    True for an import inside the default `.:53` block (its keys are directive lines, spliced in
    place among the block's own plugins) and False for a top-level import (whole server blocks).
    """

    pattern: str
    suffix: str  # ".server" | ".override"
    inside: bool


SERVER_IMPORT = ImportPoint("custom/*.server", ".server", False)
OVERRIDE_IMPORT = ImportPoint("custom/*.override", ".override", True)


class At(Protocol):
    """Locate a values key and build the Problem to report there."""

    def __call__(self, path: list[Any], problem: str, hint: str, key: str | None = None) -> Problem: ...


class Platform(Protocol):
    """One platform module. Functions take the frozen `Values`; `data` is the raw YAML mapping
    (for `in` tests on keys the user wrote), never read for values."""

    NAME: str
    DEFAULT_RELEASE: str  # what `new --platform NAME` starts from
    NEXT_HINT: str  # how to get a CoreDNS with forward `next` on this platform
    SERVER_PORT: int  # where the platform's CoreDNS answers the pods (53; Gardener's listens on 8053)
    ORDER_HINT: str  # what to do instead where *.override comes after the platform's own root forward
    OWNS: tuple[ObjectRef, ...]  # objects the repository renders and Flux applies
    NEVER_TOUCH: tuple[ObjectRef, ...]  # objects the platform owns and re-applies

    def known_releases(self) -> str:
        """The releases we hold facts for, as a user would write them (for hints)."""
        ...

    def releases(self) -> tuple[Version, ...]:
        """One release per distinct fact we hold (table row, vendored Corefile), oldest first:
        what a question with no release given is asked of."""
        ...

    def coredns_for(self, release: str) -> Version | None:
        """The CoreDNS the release (as the user writes it) ships by default, or None when no
        source says. A string, not a Version: RKE2's v1.33.13+rke2r1 and +rke2r2 differ."""
        ...

    def stand_in(self, release: str) -> str | None:
        """The known release whose facts `release` takes: itself when the tables hold it, the
        newest known release of its minor below it for a later patch (gen/platforms/newer.py),
        None when the tables hold no release of its minor at or below it."""
        ...

    def newest_release(self) -> str:
        """The newest release the tables hold, as a user writes it (for the refusal of a newer minor)."""
        ...

    def check_version(self, values: Values) -> tuple[str, str] | None:
        """(problem, hint) when the release is not one we hold facts for."""
        ...

    def kubernetes_version(self, values: Values) -> str | None:
        """The Kubernetes release whose schemas validate the render (None: the newest)."""
        ...

    def stock_corefile(self, release: Version, cluster_domain: str) -> str | None:
        """The Corefile the platform itself ships for that release (None: not published)."""
        ...

    def stock_of(self, release: str, cluster_domain: str) -> str | None:
        """The same for the release as the user writes it (RKE2's +rke2r1 and +rke2r2 may pin
        different charts): what a render of that release is judged against."""
        ...

    def import_points(self, release: Version) -> tuple[ImportPoint, ...]:
        """Where the Corefile CoreDNS loads imports coredns-custom keys (for lint and verify)."""
        ...

    def main_corefile(self, values: Values) -> str:
        """The main Corefile CoreDNS loads on this cluster once our render is applied."""
        ...

    def check(self, values: Values, data: Mapping[str, Any], at: At) -> list[Problem]:
        """Cross-field problems of values on this platform."""
        ...

    def manifests(self, values: Values) -> list[tuple[str, Obj]]:
        """(file name inside the overlay folder, object), in kustomization order."""
        ...

    def documents(self, values: Values) -> list[tuple[str, str]]:
        """(file name inside the overlay folder, text) of files that are not Kubernetes objects
        and stay out of kustomization.yaml (EKS: the add-on's configurationValues JSON)."""
        ...


def keys_not_applicable(data: Mapping[str, Any], at: At, platform: str, reasons: Mapping[str, str]) -> list[Problem]:
    """A problem for each top-level key the user wrote that means nothing on this platform."""
    return [at([key], f"'{key}' does not apply to {platform}", f"remove it ({why})", key=key) for key, why in reasons.items() if key in data]


class Refused(NamedTuple):
    """A platform we know and do not serve: why, and what to do instead."""

    name: str
    reason: str
    instead: str
