"""Hostile input and a hostile system: each case is a clear message with exit 2 (bad input) or
3 (the system refused), no traceback, and no file changed; a bug is exit 4, never 0 or 1."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gen.cli import app
from tests.conftest import REPO_ROOT, missing_tool
from tests.helpers import git, snapshot_tree

runner = CliRunner()
FIX_FLAT = "fix: a values file nests a few levels; write the value out flat"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """The example talos values file as dns/talos.yaml, rendered once."""
    (tmp_path / "dns").mkdir()
    text = (REPO_ROOT / "examples/talos.yaml").read_text().replace("output: examples/clusters/", "output: clusters/")
    (tmp_path / "dns/talos.yaml").write_text(text)
    result = runner.invoke(app, ["render", "--repo", str(tmp_path), str(tmp_path / "dns/talos.yaml")])
    assert result.exit_code == 0, result.output
    return tmp_path


def _cli(repo: Path, *args: str) -> tuple[int, str]:
    """Run a command the way a user does (a real process: signals, FIFOs and exit codes are real)."""
    proc = subprocess.run([sys.executable, "-m", "gen", *args], cwd=repo, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, proc.stderr


def _refused(repo: Path, name: str, content: bytes, *args: str) -> str:
    """Write dns/<name>, render it: exit 2, no file changed; the message."""
    (repo / "dns" / name).write_bytes(content)
    before = snapshot_tree(repo)
    result = runner.invoke(app, ["render", "--repo", str(repo), *args, str(repo / "dns" / name)])
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert snapshot_tree(repo) == before
    return result.stderr


def test_ten_thousand_deep_yaml_is_bad_input(repo: Path) -> None:
    assert _refused(repo, "deep.yaml", b"cluster: " + b"[" * 10000 + b"]" * 10000 + b"\n") == \
        f"dns/deep.yaml:1:109: nested more than 100 levels deep — {FIX_FLAT}\n"


def test_deep_block_yaml_is_bad_input(repo: Path) -> None:
    text = "cluster:\n" + "".join("  " * i + "-\n" for i in range(1, 3000))
    assert _refused(repo, "deep.yaml", text.encode()) == f"dns/deep.yaml:101:201: nested more than 100 levels deep — {FIX_FLAT}\n"


def test_nul_byte_in_a_comment(repo: Path) -> None:
    assert _refused(repo, "nul.yaml", b"cluster: x # a \x00 here\n") == \
        "dns/nul.yaml:1:16: a NUL byte at byte offset 15: this is not a text file — fix: remove the NUL byte; a binary file is not an input\n"


def test_a_control_character_yaml_forbids(repo: Path) -> None:
    assert _refused(repo, "bell.yaml", b"cluster: x\n# \x07\n") == \
        "dns/bell.yaml:2:3: the character U+0007 is not allowed in YAML — fix: remove it (write control characters as escapes in a double-quoted string)\n"


def test_a_file_that_is_not_utf8_names_the_byte_offset(repo: Path) -> None:
    assert _refused(repo, "latin1.yaml", "cluster: x\nzone: caf\xe9\n".encode("latin-1")) == \
        "dns/latin1.yaml:2:10: byte 0xe9 at byte offset 20 is not UTF-8 — fix: save the file as UTF-8, " \
        "e.g. `iconv -f latin1 -t utf-8 FILE`; a binary file is not an input\n"


def test_a_value_is_quoted_to_80_characters(repo: Path) -> None:
    stderr = _refused(repo, "long.yaml", b"cluster: " + b"x" * 1_000_000 + b"\nplatform: talos\nplatformVersion: v1.13.9\n"
                      b"upstream: {resolvers: [10.0.0.1]}\n")
    assert stderr == f"dns/long.yaml:1:10: cluster: '{'x' * 80}'… (1,000,000 characters) is not a DNS-1123 label — fix: use lower-case letters, digits and '-', at most 63 characters, e.g. prod-talos\n"


def test_many_problems_print_the_first_thousand_and_the_count(repo: Path) -> None:
    lines = ["cluster: x", "platform: talos", "platformVersion: v1.13.9", "upstream:", "  resolvers:"]
    lines += [f"    - 999.0.0.{i % 250}" for i in range(1500)]
    stderr = _refused(repo, "many.yaml", ("\n".join(lines) + "\n").encode())
    out = stderr.splitlines()
    assert len(out) == 1001
    last = re.fullmatch(r"… and ([\d,]+) more problems \(([\d,]+) in all; the first 1,000 are shown\) — fix: these first, then run again", out[-1])
    assert last is not None, out[-1]
    more, total = (int(g.replace(",", "")) for g in last.groups())
    assert total == more + 1000 and total >= 1501  # 1,500 bad addresses, one list too long (and what other checks add)


@pytest.mark.parametrize("kind", ["fifo", "device"])
@pytest.mark.parametrize("command", ["render", "lint"])
def test_a_non_regular_file_is_refused_without_opening_it(repo: Path, kind: str, command: str) -> None:
    target = repo / "dns/special.yaml"
    if kind == "fifo":
        os.mkfifo(target)  # opening it for reading would block until a writer comes: never
    else:
        target.symlink_to("/dev/zero")  # reading would never end
    before = snapshot_tree(repo)
    code, stderr = _cli(repo, command, "dns/special.yaml")
    what = "a FIFO (named pipe)" if kind == "fifo" else "a character device"
    if (kind, command) == ("device", "render"):  # the repository boundary refuses it first: /dev is outside
        assert code == 2 and stderr.startswith("dns/special.yaml: VALUES_FILE: resolves outside the repository (/dev/zero)"), stderr
    else:
        assert (code, stderr) == (2, f"dns/special.yaml: is {what}, not a regular file — fix: give the path of a regular file\n")
    assert snapshot_tree(repo) == before


def test_a_symlink_loop_as_values_file_and_lint_input(repo: Path) -> None:
    (repo / "dns/a.yaml").symlink_to("b.yaml")
    (repo / "dns/b.yaml").symlink_to("a.yaml")
    for command in ("render", "lint"):
        assert _cli(repo, command, "dns/a.yaml") == (2, "dns/a.yaml: is a symlink loop — fix: point the symlink at a real file\n")


def test_a_symlink_loop_under_a_guard_path(repo: Path) -> None:
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "rendered")
    (repo / "loop").mkdir()
    (repo / "loop/a").symlink_to("b")
    (repo / "loop/b").symlink_to("a")
    assert _cli(repo, "guard", "--base", "HEAD", "--path", "loop/a") == \
        (2, "--path: loop/a is a symlink loop — fix: pass a real folder inside --repo\n")


def test_a_binary_corefile_given_to_lint(tmp_path: Path) -> None:
    (tmp_path / "Corefile").write_bytes(bytes(range(256)) * 8)
    result = runner.invoke(app, ["lint", str(tmp_path / "Corefile")])
    assert result.exit_code == 2
    assert result.stderr == f"{tmp_path}/Corefile:1:1: a NUL byte at byte offset 0: this is not a text file — fix: remove the NUL byte; " \
        "a binary file is not an input\n"
    (tmp_path / "Corefile").write_bytes(b".:53 {\n  log\n}\n\xff\xfe")
    result = runner.invoke(app, ["lint", str(tmp_path / "Corefile")])
    assert (result.exit_code, result.stderr) == (2, f"{tmp_path}/Corefile:4:1: byte 0xff at byte offset 15 is not UTF-8 — "
                                                    "fix: save the file as UTF-8, e.g. `iconv -f latin1 -t utf-8 FILE`; a binary file is not an input\n")


def test_deep_yaml_given_to_lint(tmp_path: Path) -> None:
    (tmp_path / "cm.yaml").write_text("data: " + "[" * 5000 + "]" * 5000 + "\n")
    result = runner.invoke(app, ["lint", str(tmp_path / "cm.yaml")])
    assert (result.exit_code, result.stderr) == (2, f"{tmp_path}/cm.yaml:1:106: yaml: nested more than 100 levels deep — "
                                                    "fix: a manifest nests a few levels; this is not a Kubernetes object\n")


@pytest.mark.parametrize(("glob", "why"), [("/etc/*.conf", "is an absolute path"), ("../secret.yaml", "leaves the repository (`..`)"),
                                           ("dns/../../secret.yaml", "leaves the repository (`..`)"), ("dns\\\\*.yaml", "contains a backslash")])
def test_a_config_glob_outside_the_repository_is_refused_unread(repo: Path, glob: str, why: str) -> None:
    """`dns\\\\*.yaml` in double quotes is the YAML string dns\\*.yaml; its repr doubles the backslash."""
    (repo.parent / "secret.yaml").write_text("password: hunter2\n")
    (repo / ".coredns-gen.yaml").write_text(f'values: ["{glob}"]\n')
    before = snapshot_tree(repo)
    result = runner.invoke(app, ["render", "--repo", str(repo)])
    shown = glob
    assert (result.exit_code, result.stderr) == (2, f".coredns-gen.yaml:1:10: values[0]: '{shown}' {why} — fix: write a glob relative to the "
                                                    "repository root with forward slashes, e.g. dns/*.yaml\n")
    assert "hunter2" not in result.output and snapshot_tree(repo) == before


def test_a_values_file_outside_the_repository_is_refused(repo: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    outside = tmp_path_factory.mktemp("elsewhere") / "talos.yaml"
    shutil.copy(repo / "dns/talos.yaml", outside)
    before = snapshot_tree(repo)
    result = runner.invoke(app, ["render", "--repo", str(repo), str(outside)])
    assert (result.exit_code, result.stderr) == (2, f"{outside}: VALUES_FILE: is outside the repository {repo} — fix: keep values files in "
                                                    "the GitOps repository (e.g. dns/<cluster>.yaml), or pass --repo\n")
    assert snapshot_tree(repo) == before
    verify = runner.invoke(app, ["verify", "--repo", str(repo), str(outside)])
    assert verify.exit_code == 2 and "is outside the repository" in verify.stderr


def test_new_output_outside_the_repository_is_refused(repo: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    outside = tmp_path_factory.mktemp("elsewhere") / "x.yaml"
    result = runner.invoke(app, ["new", "--platform", "talos", "--cluster", "x", "-o", str(outside), "--repo", str(repo)])
    assert (result.exit_code, result.stderr) == (2, f"--output: {outside} is outside the repository {repo} — fix: write the values file "
                                                    "inside the GitOps repository, e.g. -o dns/<cluster>.yaml (or pass --repo)\n")
    assert not outside.exists()


def test_a_flux_output_with_backslashes_is_refused(repo: Path) -> None:
    text = (repo / "dns/talos.yaml").read_text().replace("output: clusters/prod-talos/coredns.yaml", 'output: "clusters\\\\..\\\\..\\\\x.yaml"')
    stderr = _refused(repo, "talos.yaml", text.encode())
    assert stderr == "dns/talos.yaml:22:11: flux.output: 'clusters\\\\..\\\\..\\\\x.yaml' contains a backslash — fix: separate folders " \
        "with forward slashes, e.g. clusters/prod/coredns.yaml\n"


def test_an_unexpected_exception_is_exit_4_with_its_traceback(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import gen.render.project

    def bug(*_: object) -> None:
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(gen.render.project, "render_files", bug)
    result = runner.invoke(app, ["render", "--repo", str(repo), str(repo / "dns/talos.yaml")])
    assert result.exit_code == 4
    assert "Traceback" in result.stderr and "ZeroDivisionError: a bug" in result.stderr
    assert result.stderr.endswith("internal error (ZeroDivisionError): this is a bug in coredns-gen, not in your input; "
                                  "please report it with the traceback above (exit 4)\n")


def _changed_values(repo: Path) -> None:
    path = repo / "dns/talos.yaml"
    path.write_text(path.read_text().replace("10.96.0.53", "10.96.0.54"))


def test_an_immutable_output_file_is_exit_3_and_nothing_changes(repo: Path) -> None:
    target = repo / "overlays/talos/prod-talos/coredns-configmap.yaml"
    if shutil.which("chattr") is None or subprocess.run(["chattr", "+i", str(target)], capture_output=True).returncode != 0:
        missing_tool("chattr +i (root on a file system with attributes)", RuntimeError("chattr failed"))
    try:
        _changed_values(repo)
        before = snapshot_tree(repo)
        code, stderr = _cli(repo, "render", "dns/talos.yaml")
        assert (code, stderr) == (3, "overlays/talos/prod-talos/coredns-configmap.yaml: is immutable (chattr +i), so it cannot be replaced; "
                                     "nothing was changed — fix: `chattr -i overlays/talos/prod-talos/coredns-configmap.yaml` "
                                     "if it should be rendered\n")
        assert snapshot_tree(repo) == before
        subprocess.run(["chattr", "-i", str(target)], check=True)
        subprocess.run(["chattr", "+i", str(target.parent)], check=True)  # an immutable folder: no temp can be made
        code, stderr = _cli(repo, "render", "dns/talos.yaml")
        assert (code, stderr) == (3, "overlays/talos/prod-talos/coredns-configmap.yaml: cannot write it (nothing was changed): Operation not "
                                     "permitted — fix: check the permissions and attributes of the file (an immutable `chattr +i` file "
                                     "cannot be replaced)\n")
        assert snapshot_tree(repo) == before
    finally:
        subprocess.run(["chattr", "-i", str(target), str(target.parent)], capture_output=True)


_IN_NAMESPACE = textwrap.dedent("""
    import json, os, subprocess, sys
    mnt, src, mode = sys.argv[1:4]
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", mnt], check=True)
    subprocess.run(["cp", "-a", src + "/.", mnt], check=True)
    dns = os.path.join(mnt, "dns/talos.yaml")
    with open(dns) as f:
        text = f.read()
    with open(dns, "w") as f:
        f.write(text.replace("10.96.0.53", "10.96.0.54"))
    def tree():
        out = {}
        for base, _, names in os.walk(mnt):
            for n in names:
                with open(os.path.join(base, n), "rb") as f:
                    out[os.path.relpath(os.path.join(base, n), mnt)] = f.read().hex()
        return out
    if mode == "full":
        try:
            with open(os.path.join(mnt, "fill"), "wb") as f:
                while True:
                    f.write(b"x" * 4096)
                    f.flush()
        except OSError:
            pass
    else:
        subprocess.run(["mount", "-o", "remount,ro", mnt], check=True)
    before = tree()
    proc = subprocess.run([sys.executable, "-m", "gen", "render", "dns/talos.yaml"], cwd=mnt, capture_output=True, text=True)
    print(json.dumps({"code": proc.returncode, "stderr": proc.stderr, "same": tree() == before}))
""")


@pytest.mark.parametrize(("mode", "message"), [
    ("full", ".coredns-gen.journal: cannot write it (nothing was changed): No space left on device — fix: free space on the disk "
             "(or raise the quota) and run again\n"),
    ("ro", ".coredns-gen.lock: cannot create the render lock: Read-only file system — fix: the file system is read-only; render into "
           "a writable checkout\n"),
])
def test_a_full_or_read_only_disk_is_exit_3_and_nothing_changes(repo: Path, mode: str, message: str,
                                                                tmp_path_factory: pytest.TempPathFactory) -> None:
    """A real tiny tmpfs in a private mount namespace (`unshare -m`, root): the kernel says ENOSPC / EROFS."""
    import json

    mnt = tmp_path_factory.mktemp("mnt")
    proc = subprocess.run(["unshare", "-m", sys.executable, "-c", _IN_NAMESPACE, str(mnt), str(repo), mode],
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO_ROOT)}, timeout=120)
    if proc.returncode != 0:
        missing_tool("a private mount namespace (unshare -m, mount -t tmpfs)", RuntimeError(proc.stderr.strip()))
    result = json.loads(proc.stdout)
    assert (result["code"], result["stderr"], result["same"]) == (3, message, True)


def test_permission_denied_while_staging_leaves_nothing(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """EACCES cannot be provoked for root with real permissions (root bypasses them, and /root is
    not readable by another user who could run us), so os.open is made to refuse, at the os level."""
    import errno

    import gen.render.journal

    real_open = os.open
    calls = {"n": 0}

    def refusing_open(path: str, flags: int, mode: int = 0o777, **kw: object) -> int:
        if isinstance(path, str) and path.endswith(gen.render.journal.TEMP_SUFFIX):
            calls["n"] += 1
            if calls["n"] == 2:
                raise PermissionError(errno.EACCES, "Permission denied", path)
        return real_open(path, flags, mode, **kw)  # type: ignore[arg-type]

    path = repo / "dns/talos.yaml"
    path.write_text(path.read_text().replace("10.96.0.53", "10.96.0.54").replace("prod-talos", "prod-talos2"))
    before = snapshot_tree(repo)
    monkeypatch.setattr(gen.render.journal.os, "open", refusing_open)
    result = runner.invoke(app, ["render", "--repo", str(repo), str(path)])
    assert (result.exit_code, result.stderr) == (3, "overlays/talos/prod-talos2/coredns-configmap.yaml: cannot write it (nothing was changed): "
                                                    "Permission denied — fix: check the permissions of the file and its folder\n")
    assert snapshot_tree(repo) == before
    assert not (repo / "overlays/talos/prod-talos2").exists()


@pytest.mark.parametrize("name", [b"in\nupstream:\n  resolvers: [6.6.6.6]\n#.yaml", b"caf\xe9.yaml", b"a\xc2\x85b.yaml"],
                         ids=["newline", "latin1", "nel"])
def test_a_values_file_whose_name_is_no_printable_utf8_is_bad_input(repo: Path, name: bytes) -> None:
    """Its name goes into every generated file's header comment: a line break there would end the
    comment (the rest becomes live YAML), a name that is not UTF-8 crashed the render (exit 4)."""
    before = snapshot_tree(repo)
    path = os.path.join(os.fsencode(repo / "dns"), name)
    with open(path, "wb") as handle:
        handle.write((repo / "dns/talos.yaml").read_bytes().replace(b"prod-talos", b"other"))  # a cluster of its own
    proc = subprocess.run([os.fsencode(sys.executable), b"-m", b"gen", b"render", b"--repo", os.fsencode(repo), path],
                          cwd=repo, capture_output=True, timeout=120, check=False, env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})
    stderr = proc.stderr.decode("utf-8", "replace")
    assert (proc.returncode, "Traceback" in stderr) == (2, False), stderr
    assert "VALUES_FILE: the file name" in stderr and "rename the values file" in stderr
    assert "\n  resolvers" not in stderr
    os.remove(path)
    assert snapshot_tree(repo) == before


def test_a_config_glob_matching_a_fifo_is_bad_input_not_skipped(repo: Path) -> None:
    """`values: [dns/*.yaml]` matched a FIFO and render went on without it, saying nothing."""
    os.mkfifo(repo / "dns/pipe.yaml")
    (repo / ".coredns-gen.yaml").write_text('values: ["dns/*.yaml"]\n')
    code, stderr = _cli(repo, "render", "--repo", str(repo))
    assert code == 2, stderr
    assert "matches dns/pipe.yaml, which is not a regular file" in stderr
