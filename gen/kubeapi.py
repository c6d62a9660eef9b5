"""A stand-in Kubernetes API on loopback, so the `kubernetes` plugin loads with its options intact.

`lint --load` keeps the plugin as written and points it here (`endpoint`, or a `kubeconfig` of
ours): CoreDNS then parses every option itself and refuses what it refuses (`upstream`, removed
in 1.7.0: "unknown property"). Every list is answered empty and every watch is held open, so the
informers sync at once: measured with CoreDNS 1.13.1, the server starts about 1.4 s after launch
here; with `endpoint` on a closed loopback port it waits out the plugin's 5 s `startup_timeout`
("starting server with unsynced Kubernetes API") on every load.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from urllib.parse import parse_qs, urlsplit

from gen.loopback import free_port

LOOPBACK = "127.0.0.1"
# The resources CoreDNS lists (services, endpoints/endpointslices, namespaces, pods; mcs for
# multicluster): the kind of each empty list, by the path's last segment.
_KINDS = {"services": ("ServiceList", "v1"), "endpoints": ("EndpointsList", "v1"),
          "endpointslices": ("EndpointSliceList", "discovery.k8s.io/v1"),
          "namespaces": ("NamespaceList", "v1"), "pods": ("PodList", "v1"),
          "serviceimports": ("ServiceImportList", "multicluster.x-k8s.io/v1alpha1")}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: "_Server"

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
        return

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        url = urlsplit(self.path)
        if parse_qs(url.query).get("watch", [""])[0] in ("true", "1"):
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.wfile.flush()
            self.server.stopped.wait()  # no events, until the load is over
            return
        kind, api = _KINDS.get(url.path.rstrip("/").rsplit("/", 1)[-1], ("List", "v1"))
        body = json.dumps({"kind": kind, "apiVersion": api, "metadata": {"resourceVersion": "1"}, "items": []}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    stopped: threading.Event


class FakeKubeAPI:
    """`with FakeKubeAPI() as api:` serves on `api.url` until the block ends."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"http://{LOOPBACK}:{self.port}"
        self._server = _Server((LOOPBACK, self.port), _Handler)
        self._server.stopped = threading.Event()
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True, name="fake-kube-api")

    def __enter__(self) -> "FakeKubeAPI":
        self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, err: BaseException | None, tb: TracebackType | None) -> None:
        self._server.stopped.set()
        self._server.shutdown()
        self._server.server_close()

    def kubeconfig(self, context: str = "coredns-gen") -> str:
        """A kubeconfig naming this server, with `context` as its current context."""
        return (f"apiVersion: v1\nkind: Config\nclusters:\n- name: fake\n  cluster:\n    server: {self.url}\n"
                f"users:\n- name: fake\n  user: {{}}\ncontexts:\n- name: {json.dumps(context)}\n  context:\n"
                f"    cluster: fake\n    user: fake\ncurrent-context: {json.dumps(context)}\n")
