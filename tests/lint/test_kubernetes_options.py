"""kubernetes-option-unsupported: the plugin's options per CoreDNS release (`upstream`,
removed in 1.7.0, passed lint; only CoreDNS refused it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gen.lint.run import run_lint

BLOCK = ".:53 {{\n    kubernetes cluster.local in-addr.arpa ip6.arpa {{\n        pods insecure\n        {opt}\n    }}\n    forward . 10.0.0.1\n}}\n"


def _findings(tmp_path: Path, opt: str, version: str) -> list[tuple[int, str]]:
    path = tmp_path / "Corefile"
    path.write_text(BLOCK.format(opt=opt))
    return [(f.line, f.message) for f in run_lint([path], coredns_version=version) if f.rule == "kubernetes-option-unsupported"]


@pytest.mark.parametrize(("opt", "version", "refused"), [
    ("upstream", "1.6.9", False), ("upstream", "1.7.0", True), ("upstream", "1.13.1", True),
    ("resyncperiod 10m", "1.11.3", True), ("transfer to *", "1.7.0", False), ("transfer to *", "1.8.0", True),
    ("startup_timeout 10s", "1.12.2", True), ("startup_timeout 10s", "1.12.3", False),
    ("multicluster clusterset.local", "1.12.1", True), ("apiserver_qps 50", "1.13.2", True),
    ("apiserver_qps 50", "1.14.0", False), ("zonal", "1.14.6", True), ("zonal", "1.14.7", False),
    ("ttl 30", "1.11.3", False), ("bogus", "1.13.1", True), ("upstream", "1.6.0", False),
])
def test_kubernetes_options_per_release(tmp_path: Path, opt: str, version: str, refused: bool) -> None:
    found = _findings(tmp_path, opt, version)
    assert bool(found) is refused, found
    if refused:
        assert found[0][0] == 4 and f"unknown property '{opt.split()[0]}'" in found[0][1]
