"""ExternalArtifacts of this repository laid out as source-watcher lays them out, judged end to end
(real git repositories, Flux's own build): small repositories for the rules of
gen/guard/flux/generator.py, after xunholy/k8s-gitops's layout (an ArtifactGenerator copying each
app's folder out of the repository's own source, one Kustomization per ExternalArtifact).
"""

from __future__ import annotations

from tests.guard.conftest import configmap, kustomization
from tests.guard.test_discovery_evidence import PRUNED, docs, errors


def _generator(*copies: tuple[str, str, str]) -> str:
    """ArtifactGenerator flux-system/split: (artifact, from, to) each, from the GitRepository flux-system."""
    arts = "".join(f"""
                - name: {name}
                  originRevision: "@repo"
                  copy:
                    - {{from: "{src}", to: "{dest}"}}""" for name, src, dest in copies)
    return f"""
            apiVersion: source.extensions.fluxcd.io/v1beta1
            kind: ArtifactGenerator
            metadata: {{name: split, namespace: flux-system}}
            spec:
              sources:
                - {{alias: repo, kind: GitRepository, name: flux-system}}
              artifacts:{arts}
    """


def _ks(name: str, path: str) -> str:
    return f"""
            apiVersion: kustomize.toolkit.fluxcd.io/v1
            kind: Kustomization
            metadata: {{name: {name}, namespace: flux-system}}
            spec:
              interval: 10m
              path: {path}
              prune: true
              sourceRef: {{kind: ExternalArtifact, name: {name}}}
    """


def test_a_double_star_in_a_glob_is_one_folder_and_the_match_keeps_its_path(flux_repo, guard):
    """Go's fs.Glob (source-watcher's for a copy): `deploy/**/*.yaml` is `deploy/*/*.yaml`, and each
    match lands at its own path under `to`. Before, `**` crossed folders and the glob's folder was
    cut off (`dns/cm.yaml`): `./deploy/dns` was missing at both revisions and the prune passed."""
    base = {
        "clusters/prod/dns.yaml": docs(_generator(("dns", "@repo/deploy/**/*.yaml", "@artifact/")),
                                       _ks("dns", "./deploy/dns")),
        "deploy/dns/kustomization.yaml": kustomization("coredns-custom.yaml"),
        "deploy/dns/coredns-custom.yaml": configmap("coredns-custom"),
    }
    result = guard(flux_repo(base, {"deploy/dns/kustomization.yaml": kustomization()}))
    assert errors(result) == PRUNED
    assert result.findings[0].file == "deploy/dns/kustomization.yaml"


def test_an_app_dropped_with_its_artifact_deletes_its_configmaps(flux_repo, guard):
    """xunholy/k8s-gitops 4fe7e0081 (emberstone-db), 101ca8542, 7ee1326e5: the app's folder, its
    Kustomization and its ArtifactGenerator entry go in one commit; Flux deletes the Kustomization,
    and with it (prune: true) the ConfigMap its configMapGenerator made."""
    app = kustomization("coredns-custom.yaml")
    base = {
        "clusters/prod/kustomization.yaml": kustomization("flux-system", "split.yaml", "dns.yaml", "web.yaml"),
        "clusters/prod/split.yaml": docs(_generator(("dns", "@repo/deploy/dns/app/", "@artifact/deploy/dns/"),
                                                    ("web", "@repo/deploy/web/app/", "@artifact/deploy/web/"))),
        "clusters/prod/dns.yaml": docs(_ks("dns", "./deploy/dns/app")),
        "clusters/prod/web.yaml": docs(_ks("web", "./deploy/web/app")),
        "deploy/dns/app/kustomization.yaml": app,
        "deploy/dns/app/coredns-custom.yaml": configmap("coredns-custom"),
        "deploy/web/app/kustomization.yaml": kustomization("web.yaml"),
        "deploy/web/app/web.yaml": configmap("web", namespace="web"),
    }
    head = {
        "clusters/prod/kustomization.yaml": kustomization("flux-system", "split.yaml", "web.yaml"),
        "clusters/prod/split.yaml": docs(_generator(("web", "@repo/deploy/web/app/", "@artifact/deploy/web/"))),
        "clusters/prod/dns.yaml": None,
        "deploy/dns/app/kustomization.yaml": None,
        "deploy/dns/app/coredns-custom.yaml": None,
    }
    result = guard(flux_repo(base, head, standard=True))
    assert errors(result) == PRUNED, result.findings


def test_a_generator_that_fails_at_head_leaves_its_kustomizations_not_judged(flux_repo, guard):
    """The folder an artifact copies is deleted while the generator still names it: source-watcher
    fails on that artifact and builds none after it, so the cluster keeps their old artifacts, and
    what this change does to them lands, unjudged, when the generator is fixed. Refused, naming the
    generator's own error (before, the guard laid out an empty artifact: build-failed at head)."""
    base = {
        "clusters/prod/kustomization.yaml": kustomization("flux-system", "split.yaml"),
        "clusters/prod/split.yaml": docs(_generator(("dns", "@repo/deploy/dns/app/", "@artifact/deploy/dns/"),
                                                    ("web", "@repo/deploy/web/app/", "@artifact/deploy/web/")),
                                         _ks("dns", "./deploy/dns/app"), _ks("web", "./deploy/web/app")),
        "deploy/dns/app/kustomization.yaml": kustomization("coredns-custom.yaml"),
        "deploy/dns/app/coredns-custom.yaml": configmap("coredns-custom"),
        "deploy/web/app/kustomization.yaml": kustomization("web.yaml"),
        "deploy/web/app/web.yaml": configmap("web", namespace="web"),
    }
    result = guard(flux_repo(base, {"deploy/dns/app/kustomization.yaml": None,
                                    "deploy/dns/app/coredns-custom.yaml": None}))
    assert [(f.rule, f.details["kustomization"]) for f in result.findings if f.severity.value == "error"] == \
        [("not-judged-touched", "flux-system/dns")]
    [refused] = [f for f in result.findings if f.severity.value == "error"]
    assert "fails on artifact dns (failed to apply copy operation from '@repo/deploy/dns/app/' to " \
        "'@artifact/deploy/dns/': source 'deploy/dns/app' does not exist)" in refused.message
    assert {ref.name for ref, _, _, _ in result.coverage.not_judged} == {"dns", "web"}


def test_a_generator_failing_at_both_revisions_refuses_a_change_to_a_later_artifact(flux_repo, guard):
    """xunholy/k8s-gitops 7ee1326e5..ac5da86ba: harbor's folder was removed but its entry stayed in
    the ArtifactGenerator, so source-watcher failed on it for a week and rebuilt no artifact after
    it. A change to a later app's files in that week reached the cluster only with the fix, all at
    once, unjudged: refused, naming the artifact the generator fails on."""
    base = {
        "clusters/prod/kustomization.yaml": kustomization("flux-system", "split.yaml"),
        "clusters/prod/split.yaml": docs(_generator(("gone", "@repo/deploy/gone/app/", "@artifact/deploy/gone/"),
                                                    ("dns", "@repo/deploy/dns/app/", "@artifact/deploy/dns/")),
                                         _ks("dns", "./deploy/dns/app")),
        "deploy/dns/app/kustomization.yaml": kustomization("coredns-custom.yaml"),
        "deploy/dns/app/coredns-custom.yaml": configmap("coredns-custom"),
    }
    result = guard(flux_repo(base, {"deploy/dns/app/kustomization.yaml": kustomization()}))
    [refused] = [f for f in result.findings if f.severity.value == "error"]
    assert refused.rule == "not-judged-touched" and refused.file == "deploy/dns/app/kustomization.yaml"
    assert "fails on artifact gone" in refused.message and "until the generator is fixed" in refused.message
