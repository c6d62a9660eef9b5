"""`--platform P` alone judges against P's newest known release and says so (a second
`hosts` in a k3s override passed without --platform-version; CoreDNS refuses it)."""

from __future__ import annotations

from pathlib import Path

from gen.lint.run import lint
from gen.platforms import get
from gen.versions import parse_version

HOSTS = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: coredns-custom
  namespace: kube-system
data:
  test.override: |
    hosts {
      10.0.0.1 example1.org
      fallthrough
    }
"""


def test_platform_alone_is_its_newest_release_and_says_so(tmp_path: Path) -> None:
    path = tmp_path / "cm.yaml"
    path.write_text(HOSTS)
    result = lint([path], platform="k3s")
    newest = get("k3s").newest_release()
    assert result.platform_version == parse_version(newest)
    assert [(f.rule, f.line) for f in result.findings] == [("plugin-once-per-block", 8)]
    assert f"platform k3s {parse_version(newest)} (newest known; pass --platform-version)" in result.assumed()


def test_platform_version_given_is_not_called_newest(tmp_path: Path) -> None:
    path = tmp_path / "cm.yaml"
    path.write_text(HOSTS)
    result = lint([path], platform="k3s", platform_version="v1.34.9+k3s1")
    assert "newest known; pass --platform-version" not in result.assumed()
