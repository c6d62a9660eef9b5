"""CoreDNS's own Corefile lexer and parser, asked through coredns-gen-corefile (`corefile`).

Every Corefile text coredns-gen judges (rendered, linted, guarded) is read by the caddyfile
package CoreDNS links, not by a model of it: the helper answers each text's tokens (text, line),
the parser's own error, and its server blocks. One helper process serves a whole command run
(one per forked worker: a pipe cannot be shared across fork), texts are sent in batches, and
answers are remembered per text, so a fleet pays a pipe round trip per distinct text. Without
the helper nothing can be judged: ToolError (exit 3) naming the build command, never a model.
The same process judges forward TOs with CoreDNS's own HostPortOrFile (gen.corefile.upstreams),
so a lint run that asks about its upstreams starts no second process.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import subprocess
import threading
from dataclasses import dataclass
from typing import IO, Any, Callable, Hashable, Sequence, TypeVar

from gen.errors import ToolError
from gen.tools import COREFILE_BUILD_HINT, COREFILE_NAME, corefile_binary

INSIDE_KEY = "coredns-gen-inside"  # the server block an `inside` text is spliced into (tools/helper/corefile)
_CACHE_LIMIT = 1 << 14
_K = TypeVar("_K", bound=Hashable)
_V = TypeVar("_V")


@dataclass(frozen=True)
class Block:
    """One server block as CoreDNS's parser returns it: keys, and each directive's tokens."""

    keys: tuple[str, ...]
    tokens: dict[str, tuple[tuple[str, int], ...]]


@dataclass(frozen=True)
class Reading:
    """What CoreDNS makes of one text: its tokens, its parse error (None: accepted), its blocks."""

    tokens: tuple[tuple[str, int], ...]
    error: str | None
    blocks: tuple[Block, ...]


class _Client:
    def __init__(self) -> None:
        self.pid = -1
        self.proc: subprocess.Popen[bytes] | None = None
        self.lock = threading.Lock()
        self.cache: dict[tuple[str, str, bool], Reading] = {}
        self.judged: dict[str, dict[str, str]] = {}
        self.setups: dict[tuple[str, str, tuple[str, ...]], dict[str, str]] = {}

    def _start(self) -> subprocess.Popen[bytes]:
        if self.proc is not None and self.pid == os.getpid() and self.proc.poll() is None:
            return self.proc
        binary = corefile_binary()
        if binary is None:
            raise ToolError(f"{COREFILE_NAME} not found: it reads Corefiles with CoreDNS's own parser",
                            hint=COREFILE_BUILD_HINT)
        try:
            # An empty environment: `{$VAR}` placeholders read as CoreDNS reads an unset variable,
            # whatever the machine running coredns-gen has set.
            proc = subprocess.Popen([str(binary), "corefile"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, env={})
        except OSError as err:
            raise ToolError(f"cannot run {binary}: {err}", hint=COREFILE_BUILD_HINT) from err
        self.proc, self.pid = proc, os.getpid()
        atexit.register(_close, proc)
        return proc

    def read(self, items: Sequence[tuple[str, str, bool]]) -> list[Reading]:
        with self.lock:
            found = {i: self.cache[i] for i in items if i in self.cache}  # held here: a full cache is cleared below
            todo = [i for i in dict.fromkeys(items) if i not in found]
            if todo:
                found.update(self._ask(todo))
            return [found[i] for i in items]

    def upstreams(self, tos: Sequence[str]) -> dict[str, dict[str, str]]:
        """The helper's raw answer ({"verdict", "error"}) for each TO, one round trip for all not yet asked."""
        known = self._memo(self.judged, tos, lambda todo: self._listed(
            {"texts": [], "upstreams": todo}, "upstreams", len(todo), "judge the upstreams"))
        return {t: known[t] for t in tos}

    def setup(self, asks: Sequence[tuple[str, str, tuple[str, ...]]]) -> list[dict[str, str]]:
        """The helper's raw answer ({"verdict", "error"}) for each (plugin, text, keys), one round trip."""
        known = self._memo(self.setups, asks, lambda todo: self._listed(
            {"texts": [], "setups": [{"plugin": p, "text": t, "keys": list(k)} for p, t, k in todo]},
            "setups", len(todo), "run the plugins' setup"))
        return [known[a] for a in asks]

    def _memo(self, memo: dict[_K, _V], keys: Sequence[_K], ask: Callable[[list[_K]], list[_V]]) -> dict[_K, _V]:
        """`memo`'s answer for each key, asking `ask` once for those it lacks; the answers are held
        here, as a full memo is cleared before the new ones go in."""
        with self.lock:
            known = {k: memo[k] for k in keys if k in memo}
            todo = [k for k in dict.fromkeys(keys) if k not in known]
            if todo:
                fresh = dict(zip(todo, ask(todo), strict=True))
                known.update(fresh)
                if len(memo) + len(fresh) > _CACHE_LIMIT:
                    memo.clear()
                memo.update(fresh)
            return known

    def _listed(self, request: dict[str, Any], field: str, count: int, what: str) -> list[Any]:
        """The `field` list of the helper's answer to `request`, one item per question."""
        results = self._send(request).get(field)
        if not isinstance(results, list) or len(results) != count:
            raise ToolError(f"{COREFILE_NAME} corefile did not {what}",
                            hint="rebuild it (an older helper cannot): " + COREFILE_BUILD_HINT)
        return results

    def _send(self, request: dict[str, Any]) -> dict[str, Any]:
        proc = self._start()
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(json.dumps(request).encode() + b"\n")
            proc.stdin.flush()
            answer = proc.stdout.readline()
        except OSError:
            answer = b""
        if not answer:
            self.proc = None
            raise ToolError(f"{COREFILE_NAME} corefile gave no answer", stderr=_stderr(proc),
                            hint="rebuild it (an older helper has no `corefile` subcommand): " + COREFILE_BUILD_HINT)
        parsed: dict[str, Any] = json.loads(answer)
        return parsed

    def _ask(self, todo: list[tuple[str, str, bool]]) -> dict[tuple[str, str, bool], Reading]:
        answer = self._send({"texts": [{"text": t, "name": n, "inside": i} for t, n, i in todo]})
        results: list[dict[str, Any]] = answer["results"]
        if len(self.cache) > _CACHE_LIMIT:
            self.cache.clear()
        fresh: dict[tuple[str, str, bool], Reading] = {}
        for key, res in zip(todo, results, strict=True):
            self.cache[key] = fresh[key] = Reading(
                tokens=tuple((t[0], t[1]) for t in res["tokens"]),
                error=res["error"],
                blocks=tuple(Block(tuple(b["keys"]), {d: tuple((t[0], t[1]) for t in toks) for d, toks in b["tokens"].items()})
                             for b in res["blocks"]))
        return fresh


def _stderr(proc: subprocess.Popen[bytes]) -> str:
    try:
        proc.kill()
        _, err = proc.communicate(timeout=5)
        return err.decode(errors="replace")
    except (OSError, subprocess.SubprocessError):
        return ""


def _close(proc: subprocess.Popen[bytes]) -> None:
    stdin: IO[bytes] | None = proc.stdin
    try:
        if stdin is not None:
            stdin.close()
        proc.wait(timeout=5)
    except (OSError, subprocess.SubprocessError):
        proc.kill()
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            proc.wait(timeout=5)  # reaped: no zombie left behind


_CLIENT = _Client()


def close() -> None:
    """End this process's helper (the next read starts another): for callers that must have no child."""
    proc, _CLIENT.proc = _CLIENT.proc, None
    if proc is not None and _CLIENT.pid == os.getpid():
        _close(proc)


def read_many(texts: Sequence[str], *, name: str = "Corefile", inside: bool = False) -> list[Reading]:
    """CoreDNS's reading of each text, in one round trip for all those not yet read.
    inside=True: the text as CoreDNS reads an imported override, spliced into a server block."""
    return _CLIENT.read([(t, name, inside) for t in texts])


def read(text: str, *, name: str = "Corefile", inside: bool = False) -> Reading:
    return read_many([text], name=name, inside=inside)[0]


def judge_upstreams(tos: Sequence[str]) -> dict[str, dict[str, str]]:
    """The helper's HostPortOrFile answer for each forward TO (gen.corefile.upstreams types it)."""
    return _CLIENT.upstreams(tos)


def judge_setups(asks: Sequence[tuple[str, str, tuple[str, ...]]]) -> list[dict[str, str]]:
    """The helper's answer for each (plugin, directive text, server block keys): CoreDNS's own setup
    function run on the text (gen.corefile.setups types it)."""
    return _CLIENT.setup(asks)
