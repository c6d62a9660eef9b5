"""Real chart repositories on loopback for the Helm layer's tests: no test reaches the internet.

- `http_charts`: a chart repository (index.yaml and archives) served by a Python HTTP server on
  127.0.0.1, charts packaged and indexed by Helm's own library (coredns-gen-helper helm package/index);
- `oci_registry`: the distribution project's `registry` (built by scripts/setup-dev with `go
  install` into ~/.cache/coredns-gen/bin), started on 127.0.0.1 with storage in tmp_path, charts
  pushed by Helm's registry client.
Both are what source-controller would talk to; the HelmReleases under test name public origins,
which `--chart-mirror` maps to these (as a user maps them to a CI mirror).
Test charts: tests/data/charts (the coredns chart and app-template; SOURCES.md there).
"""

from __future__ import annotations

import http.server
import json
import os
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from gen.tools import cache_bin, helper_binary
from tests.conftest import missing_tool

CHARTS = Path(__file__).resolve().parents[2] / "data" / "charts"


def helm_op(request: dict[str, Any]) -> dict[str, Any]:
    """One request to coredns-gen-helper helm (the tests' packaging and pushing)."""
    binary = helper_binary(build=True)
    assert binary is not None
    out = subprocess.run([str(binary), "helm"], input=json.dumps(request) + "\n", capture_output=True, text=True,
                         timeout=300, check=True)
    answer = json.loads(out.stdout)
    assert not answer.get("error"), answer
    return dict(answer)


def chart_copy(tmp: Path, name: str, version: str | None = None, edit: Callable[[Path], None] | None = None) -> Path:
    """A copy of test chart `name` (tests/data/charts), at `version` and edited by `edit`."""
    dest = tmp / f"src-{name}-{version or 'orig'}-{len(list(tmp.glob('src-*')))}"
    shutil.copytree(CHARTS / name, dest)
    if version is not None:
        chart = dest / "Chart.yaml"
        lines = [f"version: {version}" if line.startswith("version:") else line
                 for line in chart.read_text().splitlines()]
        chart.write_text("\n".join(lines) + "\n")
    if edit is not None:
        edit(dest)
    return dest


def package(chart: Path, dest: Path) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    return Path(helm_op({"op": "package", "chart": str(chart), "dest": str(dest)})["path"])


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def http_charts(tmp_path: Path) -> Iterator[Callable[[list[Path]], str]]:
    """publish(charts) -> the url of a chart repository serving them (packaged and indexed)."""
    if helper_binary(build=True) is None:
        missing_tool("coredns-gen-helper", FileNotFoundError("not built"))
    folder = tmp_path / "http-repo"
    folder.mkdir()
    def handler(*a: Any, **kw: Any) -> _Quiet:
        return _Quiet(*a, directory=str(folder), **kw)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_address[1]}"

    def publish(charts: list[Path]) -> str:
        for chart in charts:
            package(chart, folder)
        helm_op({"op": "index", "dest": str(folder), "url": ""})
        return url

    try:
        yield publish
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def oci_registry(tmp_path: Path) -> Iterator[Callable[[list[Path], str], str]]:
    """push(charts, path) -> the oci:// url of `path` in a real registry on loopback (plain HTTP)."""
    binary = shutil.which("registry") or (str(cache_bin() / "registry") if (cache_bin() / "registry").is_file() else None)
    if binary is None or helper_binary(build=True) is None:
        missing_tool("the distribution registry (scripts/setup-dev builds it) and coredns-gen-helper",
                     FileNotFoundError("registry"))
        raise AssertionError("unreachable")
    port = _free_port()
    config = tmp_path / "registry.yml"
    config.write_text(f"version: 0.1\nlog: {{level: error}}\nstorage:\n  filesystem:\n    rootdirectory: {tmp_path / 'registry'}\n"
                      f"http:\n  addr: 127.0.0.1:{port}\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    env["OTEL_TRACES_EXPORTER"] = "none"
    proc = subprocess.Popen([binary, "serve", str(config)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    try:
        for _ in range(200):
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                if proc.poll() is not None:
                    raise AssertionError(f"registry exited: {proc.stderr.read().decode() if proc.stderr else ''}") from None
                time.sleep(0.05)
        else:
            raise AssertionError("registry did not listen")
        staged = tmp_path / "oci-packages"

        def push(charts: list[Path], path: str) -> str:
            url = f"oci://127.0.0.1:{port}/{path}"
            for chart in charts:
                archive = package(chart, staged)
                helm_op({"op": "push", "chart": str(archive), "url": url, "plain_http": True})
            return url

        yield push
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stderr is not None:
            proc.stderr.close()
