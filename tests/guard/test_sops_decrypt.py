"""SOPS Secrets decrypted as kustomize-controller decrypts them, with the CI's age key, and never
written: each case a real git repository, real age keys and real SOPS files made by SOPS's own
library (the helper's `sops keygen` and `sops encrypt`), built by Flux's own code.

With `SOPS_AGE_KEY_FILE` given, a Kustomization whose postBuild substitutes from a SOPS Secret
that a Kustomization with `spec.decryption` applies is judged by the values Flux will use, each
seen only as a token (gen/guard/flux/secrets.py): a variable that reaches a namespace no longer
makes it unjudged, and a name a changed secret value decides is a prune. One applied without
`spec.decryption` is refused as kustomize-controller refuses to apply it. A canary value never
reaches a file, the cache, HOME, the temp dir, stdout or stderr, in any output format.
"""

from __future__ import annotations

import base64
import os
import secrets
import subprocess
import sys
from pathlib import Path
from typing import Callable

import pytest

from gen.errors import ToolError
from gen.tools import helper_binary
from tests.conftest import missing_tool
from tests.guard.conftest import FLUX_SYSTEM, by_rule, configmap, flux_ks, kustomization

DECRYPTING_SYNC = FLUX_SYSTEM["clusters/prod/flux-system/gotk-sync.yaml"].rstrip() + """
          decryption:
            provider: sops
            secretRef:
              name: sops-age
"""


@pytest.fixture(scope="module")
def helper() -> Path:
    try:
        found = helper_binary(build=True)
    except ToolError as err:
        missing_tool("coredns-gen-helper", err)
        raise
    if found is None:
        missing_tool("coredns-gen-helper", FileNotFoundError("not built"))
    assert found is not None
    return found


def canary() -> str:
    """A value no file, cache or output holds unless the guard leaked it."""
    return "cnry" + secrets.token_hex(12)


@pytest.fixture
def age_key(helper: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A new age identity given as Flux's CI gives it (SOPS_AGE_KEY_FILE); its recipient."""
    identity, recipient = subprocess.run([str(helper), "sops", "keygen"], capture_output=True, text=True,
                                         check=True).stdout.split()
    key_file = tmp_path / "keys" / "age.agekey"
    key_file.parent.mkdir()
    key_file.write_text(identity + "\n")
    monkeypatch.delenv("SOPS_AGE_KEY", raising=False)
    monkeypatch.setenv("SOPS_AGE_KEY_FILE", str(key_file))
    return recipient


def sealed(helper: Path, recipient: str, **values: str) -> str:
    """Secret flux-system/cluster-secrets holding `values`, encrypted by SOPS's library."""
    plain = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: cluster-secrets\n  namespace: flux-system\nstringData:\n" + \
        "".join(f"  {k}: {v}\n" for k, v in values.items())
    out = subprocess.run([str(helper), "sops", "encrypt", "-age", recipient], input=plain, capture_output=True,
                         text=True, check=True).stdout
    assert "sops:" in out and not any(v in out for v in values.values())
    return out


PLATFORM = flux_ks("platform", "./platform", extra="postBuild:\n  substituteFrom:\n    - {kind: Secret, name: cluster-secrets}")


def _files(secret: str, *, decrypting: bool = True) -> dict[str, str]:
    files = {
        "clusters/prod/platform.yaml": PLATFORM,
        "clusters/prod/cluster-secrets.sops.yaml": secret,
        "platform/kustomization.yaml": kustomization("coredns-custom.yaml", "app.yaml"),
        "platform/coredns-custom.yaml": configmap("coredns-custom", data="zone.server: calibre.${SECRET_DOMAIN}"),
        "platform/app.yaml": configmap("app", namespace="apps-${SECRET_DOMAIN}"),
    }
    if decrypting:
        files["clusters/prod/flux-system/gotk-sync.yaml"] = DECRYPTING_SYNC
    return files


EDIT = {"platform/coredns-custom.yaml": configmap("coredns-custom", data="zone.server: calibre.${SECRET_DOMAIN}\nlog.override: log")}


def test_a_variable_of_a_sops_secret_that_reaches_a_namespace_is_judged_with_the_key(flux_repo, guard, helper, age_key):
    """Before: refused as not judged (not-judged-touched: `${SECRET_DOMAIN}` of a SOPS Secret
    reaches the namespace of ConfigMap app). With the CI's key: judged, and it passes; the note
    names the secret variable."""
    value = canary()
    result = guard(flux_repo(_files(sealed(helper, age_key, SECRET_DOMAIN=value)), EDIT))
    assert [f.rule for f in result.findings if f.severity.value == "error"] == []
    assert any("SOPS values decrypted" in n and "SECRET_DOMAIN" in n for n in result.notes), result.notes
    assert value not in repr(result)


def test_a_prune_a_changed_secret_value_decides_is_refused_with_the_key(flux_repo, guard, helper, age_key):
    """Before: passed (the guard could not see the value, and the build was the same at both
    revisions). The secret value changes, so ConfigMap `dns-${SECRET_DOMAIN}` gets a new name and
    Flux prunes the old one: refused, shown with the variable, never the value or its token."""
    old, new = canary(), canary()
    files = _files(sealed(helper, age_key, SECRET_DOMAIN=old))
    files["platform/app.yaml"] = configmap("dns-${SECRET_DOMAIN}", namespace="apps")
    result = guard(flux_repo(files, {"clusters/prod/cluster-secrets.sops.yaml": sealed(helper, age_key, SECRET_DOMAIN=new)}))
    [finding] = by_rule(result.findings, "configmap-pruned")
    assert "ConfigMap apps/dns-${SECRET_DOMAIN}" in finding.message
    text = repr(result)
    assert old not in text and new not in text and "zz-cgsec" not in repr(result.findings)


def test_the_same_secret_value_encrypted_again_changes_nothing(flux_repo, guard, helper, age_key):
    """`sops updatekeys` or a re-encryption writes new ciphertext for the same values: no prune."""
    value = canary()
    files = _files(sealed(helper, age_key, SECRET_DOMAIN=value))
    files["platform/app.yaml"] = configmap("dns-${SECRET_DOMAIN}", namespace="apps")
    result = guard(flux_repo(files, {"clusters/prod/cluster-secrets.sops.yaml": sealed(helper, age_key, SECRET_DOMAIN=value)}))
    assert [f.rule for f in result.findings if f.severity.value == "error"] == []


def test_a_secret_applied_without_spec_decryption_is_refused_as_the_controller_refuses_it(flux_repo, guard, helper,
                                                                                          age_key):
    """kustomize-controller refuses to apply a SOPS-encrypted Secret its Kustomization does not
    decrypt: the cluster never holds its values, so the key changes nothing and the fix says so (the
    Secret is sealed again in the same change: its value may differ at head, and the namespace it
    reaches with it; one left unchanged is the same value at both revisions, and judged)."""
    resealed = {"clusters/prod/cluster-secrets.sops.yaml": sealed(helper, age_key, SECRET_DOMAIN=canary())}
    result = guard(flux_repo(_files(sealed(helper, age_key, SECRET_DOMAIN=canary()), decrypting=False),
                             {**EDIT, **resealed}))
    [finding] = by_rule(result.findings, "not-judged-touched")
    assert ("Secret flux-system/cluster-secrets (SOPS-encrypted, and applied without spec.decryption by "
            "Kustomization flux-system/flux-system)") in finding.message
    assert "add `spec.decryption: {provider: sops, secretRef: {name: sops-age}}` to Kustomization flux-system/flux-system" \
        in finding.hint


def test_without_a_key_the_placeholders_decide_as_before(flux_repo, guard, helper, monkeypatch):
    identity, recipient = subprocess.run([str(helper), "sops", "keygen"], capture_output=True, text=True,
                                         check=True).stdout.split()
    monkeypatch.delenv("SOPS_AGE_KEY", raising=False)
    monkeypatch.delenv("SOPS_AGE_KEY_FILE", raising=False)
    resealed = {"clusters/prod/cluster-secrets.sops.yaml": sealed(helper, recipient, SECRET_DOMAIN=canary())}
    # resealed in the same change: its value may differ at head (an unchanged one is one value at both)
    result = guard(flux_repo(_files(sealed(helper, recipient, SECRET_DOMAIN=canary())), {**EDIT, **resealed}))
    [finding] = by_rule(result.findings, "not-judged-touched")
    assert "${SECRET_DOMAIN} reaches the identity (apiVersion, kind, namespace, name) of ConfigMap" in finding.message
    assert "or give the guard the CI's age key (SOPS_AGE_KEY or SOPS_AGE_KEY_FILE)" in finding.hint


COREFILE = "Corefile: |\n  ${SECRET_DOMAIN}:53 {\n    errors\n    forward . 10.0.0.1 10.0.0.2\n  }\n  .:53 {\n    forward . 10.0.0.3\n  }"
DNS_KS = flux_ks("dns", "./dns", extra="postBuild:\n  substituteFrom:\n    - {kind: Secret, name: cluster-secrets}")


def _cli(repo: Path, env: dict[str, str], *args: str) -> tuple[int, bytes, bytes]:
    proc = subprocess.run([sys.executable, "-m", "gen", "guard", "--repo", str(repo), "--base", "base", *args],
                          capture_output=True, env=env, check=False, timeout=900)
    return proc.returncode, proc.stdout, proc.stderr


def _holding(folder: Path, needles: tuple[bytes, ...]) -> list[str]:
    found = []
    for path in folder.rglob("*"):
        if path.is_file() and not path.is_symlink():
            data = path.read_bytes()
            found += [f"{path}: {n!r}" for n in needles if n in data]
    return found


def test_no_byte_of_a_decrypted_value_reaches_any_file_or_output(flux_repo: Callable[..., Path], helper: Path,
                                                                  age_key: str, tmp_path: Path, coredns_bin: Path):
    """Every output format, --verify (the real CoreDNS loads the head Corefile), the Corefile view,
    the result envelope, the build cache: run as a CI runs it, then every file under the
    repository, the cache, HOME and the temp dir, and stdout and stderr, searched for the canaries
    (the Corefile's zone, a prune's name) as text, base64 and hex."""
    zone, old, new = canary(), canary(), canary()
    base = {**_files(sealed(helper, age_key, SECRET_DOMAIN=zone, OLD_NAME=old)),
            "clusters/prod/dns.yaml": DNS_KS, "dns/kustomization.yaml": kustomization("cm.yaml", "named.yaml"),
            "dns/cm.yaml": configmap("coredns", data=COREFILE),
            "dns/named.yaml": configmap("dns-${OLD_NAME}", namespace="apps")}
    head = {"dns/cm.yaml": configmap("coredns", data=COREFILE.replace("errors", "errors\n    cache 30")),
            "clusters/prod/cluster-secrets.sops.yaml": sealed(helper, age_key, SECRET_DOMAIN=zone, OLD_NAME=new)}
    repo = flux_repo(base, head)
    home, temp, cache = tmp_path / "home", tmp_path / "tmp", tmp_path / "cache"
    for folder in (home, temp, cache):
        folder.mkdir()
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "TMPDIR": str(temp), "COREDNS_GEN_CACHE_DIR": str(cache),
           "COREDNS_GEN_HELPER": str(helper), "SOPS_AGE_KEY_FILE": os.environ["SOPS_AGE_KEY_FILE"],
           "PYTHONPATH": str(Path(__file__).resolve().parents[2]), "GITHUB_ACTIONS": ""}
    outputs: list[bytes] = []
    codes = []
    for fmt in ("text", "json", "github", "sarif", "markdown"):
        code, out, err = _cli(repo, env, "--format", fmt, "--result", str(tmp_path / f"result-{fmt}.json"))
        codes.append(code)
        outputs += [out, err]
    code, out, err = _cli(repo, env, "--verify", "--coredns", str(coredns_bin), "--format", "json")
    codes.append(code)
    outputs += [out, err]
    assert codes == [1] * 6, (codes, outputs[-1][-2000:])
    text = outputs[0].decode()
    assert "dns-${OLD_NAME}" in text and "(configmap-pruned)" in text, text  # the prune is seen, by its variable
    assert b"${SECRET_DOMAIN}:53 {" in outputs[-2]  # the Corefile view shows the variable
    assert b"OLD_NAME" in outputs[1] and b"SOPS values decrypted" in outputs[1]  # stderr says which were secret
    needles = tuple(form for value in (zone, old, new) for form in
                    (value.encode(), base64.b64encode(value.encode()), value.encode().hex().encode()))
    assert [n for n in needles if any(n in o for o in outputs)] == []
    assert _holding(tmp_path, needles) == []  # the repository (work tree and .git), cache, HOME, temp dir, results
