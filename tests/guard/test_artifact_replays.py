"""A commit of xunholy/k8s-gitops replayed: its real files (tests/data/replays/xunholy-95d4e637e,
SOURCES.md there) laid out at their own paths in a repository made here, origin set to its public
URL as its CI has it, judged with zero configuration.

The layout: a plain `kubernetes/bootstrap/helmfile.yaml` installs the flux-instance chart with a
values file named by a template (`{{ requiredEnv "ROOT_DIR" }}/kubernetes/clusters/...`), whose
`instance.sync` is the OCIRepository CI pushes from `./kubernetes` (.github/workflows/oci.yaml);
an ArtifactGenerator copies each app's folder out of it, and each app's Kustomization reads its
ExternalArtifact. Before, the helmfile's values file was not found: no cluster root, exit 2 asking
for `guard.sources`; and with it, every app's prune passed unseen.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from gen.guard import GuardResult
from tests.guard.conftest import kustomization
from tests.helpers import git

REPLAYS = Path(__file__).resolve().parents[1] / "data" / "replays"
GENERATOR = """
    apiVersion: source.extensions.fluxcd.io/v1beta1
    kind: ArtifactGenerator
    metadata:
      name: k8s-gitops
      namespace: flux-system
    spec:
      sources:
        - alias: repo
          kind: OCIRepository
          name: flux-system
      artifacts:
"""
WITHERSTORM = """
        - name: minecraft-witherstorm
          originRevision: "@repo"
          copy:
            - from: "@repo/apps/base/game-servers/minecraft-witherstorm/app/"
              to: "@artifact/apps/base/game-servers/minecraft-witherstorm/app/"
"""


def _real(case: str) -> dict[str, str]:
    folder = REPLAYS / case
    files = {p.relative_to(folder).as_posix(): p.read_text() for p in sorted(folder.rglob("*")) if p.is_file()}
    return {(".github/" + name.removeprefix("github/") if name.startswith("github/") else name): text
            for name, text in files.items()}


def test_xunholy_95d4e637e_an_app_disabled_with_its_artifact_prunes_its_values(
        flux_repo: Callable[..., Path], guard: Callable[..., GuardResult]) -> None:
    """`chore(witherstorm): disable due to corrupted iSCSI PVC`: the overlay comments the app's
    Kustomization out and the ArtifactGenerator drops its artifact. Flux deletes Kustomization
    game-servers/minecraft-witherstorm, and (prune: true, set by the cluster Kustomization's
    patches) its HelmRelease and the ConfigMap its configMapGenerator made: refused."""
    base = {**_real("xunholy-95d4e637e"),
            "kubernetes/apps/overlays/cluster-00/kustomization.yaml": kustomization(
                "../../base/flux-system/artifact-generator", "../../base/game-servers/minecraft-witherstorm/ks.yaml"),
            "kubernetes/apps/base/flux-system/artifact-generator/kustomization.yaml": kustomization("artifactgenerator.yaml"),
            "kubernetes/apps/base/flux-system/artifact-generator/artifactgenerator.yaml": GENERATOR + WITHERSTORM}
    head = {"kubernetes/apps/overlays/cluster-00/kustomization.yaml": kustomization(
                "../../base/flux-system/artifact-generator") + "  # - ../../base/game-servers/minecraft-witherstorm/ks.yaml\n",
            "kubernetes/apps/base/flux-system/artifact-generator/artifactgenerator.yaml": GENERATOR + "        []\n"}
    root = flux_repo(base, head, standard=False)
    git(root, "remote", "add", "origin", "https://github.com/xunholy/k8s-gitops")
    result = guard(root)
    pruned = sorted(f.details.get("object", "") for f in result.findings if f.rule == "configmap-pruned")
    assert len(pruned) == 1 and pruned[0].startswith("game-servers_minecraft-witherstorm-values-"), result.findings
    assert [f.rule for f in result.findings if f.rule == "helmrelease-pruned"] == ["helmrelease-pruned"]
    assert (result.coverage.roots_how, result.stats["clusters"]) == ("bootstrap", 1)
    assert result.coverage.not_judged == []
