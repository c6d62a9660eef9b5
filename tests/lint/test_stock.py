"""Every stock platform default (vendored in gen/data and tests/data/upstream) lints clean.

Each file is linted at the CoreDNS version its platform ships (gen/platforms/releases.py) and at the newest,
so a rule that misfires on a real default Corefile fails here first.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gen.finding import Finding, Severity
from gen.lint.run import run_lint as _run_lint

REPO = Path(__file__).resolve().parents[2]
TEST_ONLY = REPO / "tests" / "data" / "upstream"  # defaults render never uses (an empty ClusterDomain)
STOCK = sorted(p for p in [*(REPO / "gen" / "data").glob("*/*"), *TEST_ONLY.glob("*")]
               if p.suffix in (".Corefile", ".yaml") and not p.name.endswith(".values.yaml"))
# The rke2-coredns charts' values.yaml hold no Corefile (lint refuses them, exit 2): the Corefile
# each chart renders from its defaults is what is linted.
CHART_VALUES = sorted((REPO / "gen" / "data" / "rke2").glob("*.values.yaml"))

# platform default image per file name prefix (gen/platforms/releases.py); k3s files carry their own image tag.
SHIPPED = {"talos-1.8": "1.11.3", "talos-v1.8": "1.11.3", "talos-1.9": "1.12.0", "talos-v1.9": "1.12.0",
           "talos-1.10": "1.12.1", "talos-v1.10": "1.12.1", "talos-1.11": "1.12.2", "talos-v1.11": "1.12.2",
           "talos-1.12": "1.13.2", "talos-v1.12": "1.13.2", "talos-1.13": "1.14.2", "talos-v1.13": "1.14.2",
           "talos-1.14": "1.14.6", "kubeadm": "1.11.3", "aks": "1.14.3", "gardener": "1.14.7"}


def run_lint(paths: list[Path], **options: str) -> list[Finding]:
    """Lint's findings, less the one note every k3s manifest gets: k3s creates no coredns-custom
    (its volume is optional), so whether one exists is not judged (wiring point 1, info)."""
    return [f for f in _run_lint(paths, **options)
            if not (f.rule == "wiring-custom-configmap" and f.severity is Severity.INFO)]


def _shipped(path: Path) -> str | None:
    return next((v for k, v in sorted(SHIPPED.items(), key=lambda kv: -len(kv[0]))
                 if path.name.startswith(k + ".") or path.name.startswith(k + "-")), None)


def test_stock_files_found() -> None:
    assert len(STOCK) >= 13, STOCK  # 6 Talos minors, 4 k3s manifests, kubeadm, AKS, Talos without a domain


@pytest.mark.parametrize("path", STOCK, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_stock_default_lints_clean(path: Path) -> None:
    assert run_lint([path]) == []
    version = _shipped(path)
    if version is not None:
        assert run_lint([path], coredns_version=version) == []


@pytest.mark.parametrize("path", CHART_VALUES, ids=lambda p: p.name)
def test_stock_rke2_chart_corefile_lints_clean(path: Path) -> None:
    from gen.lint.objects import lint_text
    from gen.lint.run import RULES
    from gen.platforms import rke2

    assert lint_text(rke2.corefile_of(path.read_text()), RULES) == []


def test_all_stock_together_and_per_platform() -> None:
    assert run_lint(STOCK) == []
    assert run_lint([REPO / "gen/data/aks"], platform="aks") == []
    for k3s in ("1.32.9", "1.34.9", "1.36.3"):
        assert run_lint([REPO / "gen/data/k3s"], k3s_version=k3s) == []
