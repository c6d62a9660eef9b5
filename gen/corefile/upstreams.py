"""Whether CoreDNS's forward accepts each TO, decided by CoreDNS's own plugin/pkg/parse.HostPortOrFile
(the coredns/coredns module tools/helper/go.mod pins), asked through coredns-gen-helper (`upstreams`).

One helper run answers every TO a command asks about (lint asks once per run, for all of its
forwards), and answers are remembered per TO. The helper decides without reading this machine's
files (tools/helper/upstream): a bare word finds no resolv.conf, as in CoreDNS's own working
directory, and a TO it would read as a file named with a `/` is `file`: on the node, not judged
here. Without the helper nothing is judged: ToolError (exit 3), never a model.
"""

from __future__ import annotations

import json
import subprocess
import threading
from dataclasses import dataclass
from typing import Literal, Sequence

from gen.errors import ToolError
from gen.tools import HELPER_BUILD_HINT, helper_binary

Verdict = Literal["ok", "refused", "file"]
VERDICTS: tuple[Verdict, ...] = ("ok", "refused", "file")
_CACHE_LIMIT = 1 << 14


@dataclass(frozen=True)
class Judged:
    """HostPortOrFile's answer for one TO: accepted, refused (`error` is CoreDNS's own message), or
    a file on the node that only the cluster can judge."""

    verdict: Verdict
    error: str = ""


_LOCK = threading.Lock()
_CACHE: dict[str, Judged] = {}


def judge(tos: Sequence[str]) -> dict[str, Judged]:
    """HostPortOrFile's verdict on each TO, in one helper run for all those not yet judged.

    Raises:
        ToolError: the helper is missing, failed or did not answer (exit 3).
    """
    with _LOCK:
        known = {t: _CACHE[t] for t in tos if t in _CACHE}
        todo = [t for t in dict.fromkeys(tos) if t not in known]
        if todo:
            answers = _ask(todo)
            known.update(answers)
            if len(_CACHE) + len(answers) > _CACHE_LIMIT:
                _CACHE.clear()
            _CACHE.update(answers)
        return {t: known[t] for t in tos}


def _ask(todo: list[str]) -> dict[str, Judged]:
    binary = helper_binary()
    if binary is None:
        raise ToolError("coredns-gen-helper not found: it judges forward upstreams with CoreDNS's own HostPortOrFile",
                        hint=HELPER_BUILD_HINT)
    request = json.dumps({"upstreams": todo}) + "\n"
    try:
        proc = subprocess.run([str(binary), "upstreams"], input=request.encode(), capture_output=True,
                              timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise ToolError(f"cannot run {binary} upstreams: {err}", hint=HELPER_BUILD_HINT) from err
    try:
        results = json.loads(proc.stdout)["results"]
        judged = [Judged(r["verdict"], str(r.get("error", ""))) for r in results]
        if proc.returncode != 0 or len(judged) != len(todo) or any(j.verdict not in VERDICTS for j in judged):
            raise ValueError("not one known verdict per upstream")
    except (ValueError, KeyError, TypeError):
        raise ToolError(f"{binary} upstreams did not answer (exit {proc.returncode})",
                        stderr=proc.stderr.decode(errors="replace"),
                        hint="rebuild it (an older helper has no `upstreams` subcommand): " + HELPER_BUILD_HINT) from None
    return dict(zip(todo, judged, strict=True))
