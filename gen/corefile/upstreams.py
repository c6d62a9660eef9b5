"""Whether CoreDNS's forward accepts each TO, decided by CoreDNS's own plugin/pkg/parse.HostPortOrFile
(the coredns/coredns module tools/helper/go.mod pins), asked through coredns-gen-corefile.

The `corefile` helper process a command already runs answers (gen.corefile.helper), every TO a
lint run asks about in one round trip, remembered per TO. It decides without reading this
machine's files (tools/helper/upstream): a bare word finds no resolv.conf, as in CoreDNS's own
working directory, and a TO it would read as a file named with a `/` is `file`: on the node, not
judged here. Without the helper nothing is judged: ToolError (exit 3), never a model.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Sequence

from gen.corefile.helper import judge_upstreams
from gen.errors import ToolError
from gen.tools import COREFILE_BUILD_HINT

Verdict = Literal["ok", "refused", "file"]
VERDICTS: tuple[Verdict, ...] = ("ok", "refused", "file")


@dataclass(frozen=True)
class Judged:
    """HostPortOrFile's answer for one TO: accepted, refused (`error` is CoreDNS's own message), or
    a file on the node that only the cluster can judge."""

    verdict: Verdict
    error: str = ""


def judge(tos: Sequence[str]) -> dict[str, Judged]:
    """HostPortOrFile's verdict on each TO, in one round trip for all those not yet judged.

    Raises:
        ToolError: the helper is missing, failed or answered no known verdict (exit 3).
    """
    out: dict[str, Judged] = {}
    for to, raw in judge_upstreams(tos).items():
        verdict = next((v for v in VERDICTS if v == raw.get("verdict")), None)
        if verdict is None:
            raise ToolError(f"coredns-gen-corefile judged upstream {to!r} {raw!r}, not one of {', '.join(VERDICTS)}",
                            hint="rebuild it from this checkout: " + COREFILE_BUILD_HINT)
        out[to] = Judged(verdict, str(raw.get("error", "")))
    return out
