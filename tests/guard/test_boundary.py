"""The repository boundary: a head that reads outside the repository is refused, and the guard
opens nothing outside it. Flux's kustomize-controller refuses such a build too."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from gen.finding import blocking
from gen.guard.repo.checkout import load_tree
from tests.guard.conftest import configmap, flux_ks, kustomization
from tests.helpers import git

BASE = {"clusters/prod/dns.yaml": flux_ks("dns", "./dns"), "dns/kustomization.yaml": kustomization("custom.yaml"),
        "dns/custom.yaml": configmap("coredns-custom")}


def generator(field: str, entry: str) -> str:
    return kustomization("custom.yaml", extra=f"""configMapGenerator:
  - name: leak
    namespace: default
    {field}:
      - {entry}""")


def _refusal(result):
    """The whole cleaned error of the one build-failed refusal (the message is its short form)."""
    assert [(f.rule, f.severity.value) for f in result.findings] == [("build-failed", "error")], result.findings
    finding = result.findings[0]
    assert "does not build at head (./dns)" in finding.message and len(finding.message) <= 300
    assert "coredns-gen-guard" not in finding.details["error"]  # no scratch path of the guard's
    return finding.details["error"]


_OPENED: list[str] = []


def _audit(event: str, args: tuple[object, ...]) -> None:
    if event == "open" and args and isinstance(args[0], (str, bytes, os.PathLike)):
        _OPENED.append(os.fsdecode(args[0]))


sys.addaudithook(_audit)


@pytest.mark.parametrize("field", ["files", "envs"])
def test_generator_reading_an_absolute_path_is_refused_and_not_read(flux_repo, guard, tmp_path, field):
    secret = tmp_path / "outside" / "hostname"
    secret.parent.mkdir()
    secret.write_text("runner-secret\n")
    absent = tmp_path / "outside" / "absent"
    messages = []
    for target in (secret, absent):
        root = flux_repo(BASE, {"dns/kustomization.yaml": generator(field, str(target))}) if target == secret else \
            _again(flux_repo, tmp_path, BASE, {"dns/kustomization.yaml": generator(field, str(target))})
        _OPENED.clear()
        message = _refusal(guard(root))
        assert not [p for p in _OPENED if p.startswith(str(tmp_path / "outside"))]
        # Flux's secure file system refuses it before opening: its own words
        assert f"fs-security-constraint read {target}: path '{target}' is not in or below '.'" in message
        assert "runner-secret" not in message
        messages.append(message.replace(str(target), "<entry>"))
    assert messages[0] == messages[1]  # an existing and an absent file: nothing outside was consulted


def _again(flux_repo, tmp_path, base, head):
    """A second repository in the same test (flux_repo writes tmp_path/repo)."""
    import shutil

    shutil.rmtree(tmp_path / "repo")
    return flux_repo(base, head)


def test_etc_hostname_is_refused(flux_repo, guard):
    root = flux_repo(BASE, {"dns/kustomization.yaml": generator("files", "/etc/hostname")})
    result = guard(root)
    text = "path '/etc/hostname' is not in or below '.'"
    assert text in _refusal(result) and "fs-security-constraint" in result.findings[0].message


@pytest.mark.parametrize("field, entry", [("files", "key=../../../etc/hostname"), ("envs", "../../etc/environment")])
def test_dotdot_past_the_root_is_refused(flux_repo, guard, field, entry):
    root = flux_repo(BASE, {"dns/kustomization.yaml": generator(field, entry)})
    message = _refusal(guard(root))
    assert "fs-security-constraint read <outside the repository>/etc/" in message and "is not in or below '.'" in message


def test_resource_above_the_root_is_refused(flux_repo, guard):
    root = flux_repo(BASE, {"dns/kustomization.yaml": kustomization("custom.yaml", "../../outside")})
    message = _refusal(guard(root))
    assert "accumulating resources from '../../outside': fs-security-constraint" in message


def _with_link(flux_repo, link: str, target: str, head: dict[str, str]) -> Path:
    root = flux_repo(BASE, head)
    os.symlink(target, root / link)
    git(root, "add", "-A")
    git(root, "commit", "-q", "--amend", "--no-edit")
    return root


def test_symlink_to_a_file_outside_is_refused(flux_repo, guard):
    root = _with_link(flux_repo, "dns/host", "/etc/hostname", {"dns/kustomization.yaml": generator("files", "host")})
    # the link is never made on disk (its target leaves the repository): kustomize finds nothing
    assert "file sources: [host]: open dns/host: no such file or directory" in _refusal(guard(root))


def test_symlink_to_a_folder_outside_is_refused(flux_repo, guard, tmp_path):
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "data").write_text("secret\n")
    root = _with_link(flux_repo, "dns/ext", str(tmp_path / "outside"), {"dns/kustomization.yaml": generator("files", "ext/data")})
    _OPENED.clear()
    assert "open dns/ext/data: no such file or directory" in _refusal(guard(root))
    assert not [p for p in _OPENED if p.startswith(str(tmp_path / "outside"))]


def test_relative_symlink_climbing_out_is_refused(flux_repo, guard):
    root = _with_link(flux_repo, "dns/up", "../../..", {"dns/kustomization.yaml": generator("files", "up/etc/hostname")})
    assert "open dns/up/etc/hostname: no such file or directory" in _refusal(guard(root))


def test_symlinked_manifest_in_a_flux_generated_folder_is_refused(flux_repo, guard):
    base = {"clusters/prod/dns.yaml": flux_ks("dns", "./dns"), "dns/custom.yaml": configmap("coredns-custom")}
    root = flux_repo(base, {})
    os.symlink("/etc/hostname", root / "dns" / "host.yaml")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "link")
    _OPENED.clear()
    result = guard(root)  # the link is never made: Flux's generator lists only custom.yaml
    assert result.findings == [] and "/etc/hostname" not in _OPENED


def test_a_symlink_inside_the_repository_is_not_in_the_artifact(flux_repo, guard):
    """Flux's artifact holds regular files only (fluxcd/pkg/artifact storage Archive: "Ignore
    anything that is not a file or directories e.g. symlinks"): a generator reading a symlink
    fails in Flux, and so it is refused here, with kustomize's own words."""
    head = {"shared/log.override": "log\n", "dns/kustomization.yaml": kustomization("custom.yaml", extra="""configMapGenerator:
  - name: extra
    namespace: default
    files:
      - log.override""")}
    root = _with_link(flux_repo, "dns/log.override", "../shared/log.override", head)
    assert "file sources: [log.override]: open dns/log.override: no such file or directory" in _refusal(guard(root))


def test_escaping_link_is_not_even_unpacked(flux_repo, tmp_path):
    root = _with_link(flux_repo, "dns/host", "/etc/hostname", {})
    tree = load_tree(root, git(root, "rev-parse", "HEAD").strip(), tmp_path / "t")
    assert tree.links == {"dns/host": "/etc/hostname"}
    assert tree.read("dns/host") == b""
    assert tree.on_disk() == tmp_path / "t"  # the whole revision unpacked, as a build that is not exact needs
    assert (tmp_path / "t" / "dns").is_dir() and not os.path.lexists(tmp_path / "t" / "dns" / "host")


def test_escape_at_both_revisions_is_not_judged_a_change_to_it_is_refused_and_nothing_is_read(flux_repo, guard, tmp_path):
    secret = tmp_path / "outside"
    secret.write_text("x\n")
    base = {**BASE, "dns/kustomization.yaml": generator("files", str(secret))}
    root = flux_repo(base, {"dns/custom.yaml": configmap("coredns-custom", data="a.override: log")})
    _OPENED.clear()
    findings = guard(root).findings
    assert [(f.rule, f.severity.value) for f in findings] == [("build-failed", "warning"), ("not-judged-touched", "error")]
    assert blocking(findings) and str(secret) not in _OPENED


def test_without_the_helper_nothing_is_judged_and_the_run_fails(flux_repo, guard, monkeypatch, tmp_path):
    """No model stands in for Flux's build: a missing helper is a tool failure (exit 3)."""
    from gen.errors import ToolError

    monkeypatch.setenv("COREDNS_GEN_HELPER", str(tmp_path / "missing"))
    root = flux_repo(BASE, {"dns/kustomization.yaml": generator("files", "/etc/hostname")})
    with pytest.raises(ToolError, match="coredns-gen-(helper|corefile) is not installed"):
        guard(root)


def _batch(batch_bin: Path, *requests: dict[str, object]) -> dict[str, dict[str, object]]:
    import json
    import subprocess

    lines = "".join(json.dumps(r) + "\n" for r in requests)
    proc = subprocess.run([str(batch_bin), "build", "-j", "1"], input=lines, capture_output=True, text=True, check=True)
    return {d["id"]: d for d in map(json.loads, proc.stdout.splitlines())}


def test_kustomize_batch_fences_each_build_to_its_root(batch_bin, tmp_path):
    """The second fence: coredns-gen-helper itself refuses paths outside the request's root, after
    resolving symlinks, even where kustomize's own load restrictions are off (as in Flux)."""
    outside = tmp_path / "outside.txt"
    outside.write_text("runner-secret\n")
    repo = tmp_path / "repo"
    for name, entry in (("abs", str(outside)), ("link", "host"), ("inside", "data.txt")):
        (repo / name).mkdir(parents=True)
        (repo / name / "kustomization.yaml").write_text(f"configMapGenerator:\n- name: a\n  files:\n  - {entry}\n")
    os.symlink(outside, repo / "link" / "host")
    (repo / "inside" / "data.txt").write_text("ok\n")
    out = _batch(batch_bin, *({"id": n, "dir": str(repo / n), "root": str(repo), "kustomization": {}} for n in ("abs", "link", "inside")))
    assert f"path '{outside}' is not in or below" in str(out["abs"]["error"])
    assert f"path '{repo / 'link' / 'host'}' is not in or below" in str(out["link"]["error"])  # its target leaves
    assert "runner-secret" not in repr(out)
    # Flux's generator gives a kustomization without resources `buildMetadata: [originAnnotations]`
    origin = "configuredIn: kustomization.yaml\nconfiguredBy:\n  apiVersion: builtin\n  kind: ConfigMapGenerator\n"
    assert out["inside"]["objects"] == [{"apiVersion": "v1", "kind": "ConfigMap", "data": {"data.txt": "ok\n"},
                                         "metadata": {"name": "a-2dthbd4625",
                                                      "annotations": {"config.kubernetes.io/origin": origin}}}]


def _local_git_repo(tmp_path: Path) -> Path:
    other = tmp_path / "other"
    (other / "base").mkdir(parents=True)
    (other / "base" / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: stolen}\ndata: {a: runner-secret}\n")
    (other / "base" / "kustomization.yaml").write_text("resources: [cm.yaml]\n")
    git(other, "init", "-q")
    git(other, "add", "-A")
    git(other, "commit", "-q", "-m", "x")
    return other


@pytest.mark.parametrize("scheme", ["file://", "git::file://"])
def test_file_url_remote_base_is_refused(flux_repo, guard, tmp_path, scheme):
    """kustomize clones a file:// "remote" base from the runner's disk: outside the repository."""
    other = _local_git_repo(tmp_path)
    root = flux_repo(BASE, {"dns/kustomization.yaml": kustomization("custom.yaml", f"{scheme}{other}//base")})
    assert "fatal: transport 'file' not allowed" in _refusal(guard(root))


def test_kustomize_batch_lets_git_fetch_only_over_the_network(batch_bin, tmp_path):
    other = _local_git_repo(tmp_path)
    repo = tmp_path / "repo" / "k"
    repo.mkdir(parents=True)
    (repo / "kustomization.yaml").write_text(f"resources:\n- file://{other}//base\n")
    out = _batch(batch_bin, {"id": "1", "dir": str(repo), "root": str(repo.parent), "kustomization": {}})
    assert "transport 'file' not allowed" in str(out["1"]["error"])
    assert "runner-secret" not in repr(out)
