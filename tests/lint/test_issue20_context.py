"""Context cases: what lint cannot judge is not passed, and its fixes lead somewhere good.

- k3s v1.33.4 ignores a domain forward in an override (k3s issue #12979: its Corefile imports
  overrides after its own `forward .`); the tables hold no Corefile for release-1.33, so lint
  says the override cannot be judged there instead of passing it clean.
- `rewrite.override.start` (a k3s PR's example, tests/data/corefiles-realworld) is never
  imported; lint's fix used to offer `.server` first, which turns the line into a brace-less
  server block for the zones `rewrite`, `name`, … (CoreDNS answers REFUSED). The fix now names
  the suffix that fits what the key holds, and the `.server` rename is an error.
"""

from __future__ import annotations

from pathlib import Path

from gen.finding import Severity
from gen.lint.run import lint, run_lint

DATA = Path(__file__).resolve().parents[1] / "data" / "corefiles-realworld"


def _errors(paths: list[Path], **options: str) -> list[tuple[str, int]]:
    return [(f.rule, f.line) for f in run_lint(paths, **options) if f.severity is Severity.ERROR]


def test_k3s_12979_at_v1_33_4_is_not_passed() -> None:
    path = DATA / "k3s-12979-default-override.yaml"
    # v1.33.0-v1.33.5 keep the old order (k3s's forward before the overrides): the override is
    # never reached, as the issue reports (gen/platforms/releases.py, from k3s's manifests);
    # release-1.33 took the fix (k3s #12986, the backport of PR #12980) from v1.33.6
    assert _errors([path], platform="k3s", platform_version="v1.33.4+k3s1") == [("forward-unreachable", 8)]
    assert _errors([path], platform="k3s", platform_version="v1.33.6+k3s1") == []
    # where the release is known, the override is judged in k3s's own Corefile (and fits there)
    assert _errors([path], platform="k3s", platform_version="v1.34.9+k3s1") == []
    assert _errors([path], platform="k3s", platform_version="v1.32.9+k3s1") == [("forward-unreachable", 8)]


def test_override_start_fix_names_override(tmp_path: Path) -> None:
    path = DATA / "k3s-4854-override-start.yaml"
    found = [f for f in lint([path], platform="k3s").findings if f.rule == "custom-key-ignored"]
    assert len(found) == 1
    assert found[0].hint.startswith("rename it to `rewrite.override` (lines inside the default block)")
    text = path.read_text()
    followed = tmp_path / "followed.yaml"
    followed.write_text(text.replace("rewrite.override.start", "rewrite.override"))
    assert _errors([followed], platform="k3s") == []
    as_server = tmp_path / "as-server.yaml"
    as_server.write_text(text.replace("rewrite.override.start", "rewrite.server"))
    assert "zone-shadows-kubernetes" in {r for r, _ in _errors([as_server], platform="k3s")}


def test_server_blocks_in_a_wrong_key_are_told_to_be_server(tmp_path: Path) -> None:
    path = tmp_path / "cm.yaml"
    path.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: coredns-custom\n  namespace: kube-system\n"
                    "data:\n  corp.conf: |\n    corp.example:53 {\n        forward . 10.0.0.1\n    }\n")
    found = [f for f in lint([path], platform="aks").findings if f.rule == "custom-key-ignored"]
    assert found[0].hint == "rename it to `corp.server` (whole server blocks): it holds server blocks"


CM_IMPORT = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: coredns
  namespace: kube-system
data:
  Corefile: |
    .:53 {
        import /etc/custom/customdns.conf
        forward . 10.0.0.1
    }
"""
DEPLOYMENT = """\
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: coredns
  namespace: kube-system
spec:
  template:
    spec:
      containers:
      - name: coredns
        image: registry.k8s.io/coredns/coredns:v1.13.1
        volumeMounts:
        - name: custom
          mountPath: /etc/custom
      volumes:
      - name: custom
        configMap:
          name: customdns
"""


def test_import_of_a_file_no_input_mounts_is_refused(tmp_path: Path) -> None:
    """coredns/coredns#6855's Corefile: CoreDNS 1.13.1 and 1.11.3 refuse it (File to import not
    found) unless the Deployment mounts the file; lint said nothing either way."""
    path = tmp_path / "cm.yaml"
    path.write_text(CM_IMPORT)
    assert _errors([path], coredns_version="1.13.1") == [("import-not-found", 9)]
    path.write_text(CM_IMPORT + DEPLOYMENT)
    assert "import-not-found" not in {r for r, _ in _errors([path], coredns_version="1.13.1")}
