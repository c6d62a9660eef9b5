"""Whether a plugin's own setup accepts its options, decided by CoreDNS's code, asked through coredns-gen-corefile.

The helper links the setup function of every stock plugin whose setup reads nothing but its
tokens (tools/helper/setup: no file, interface, credential or API decides) and runs it on the
directive as CoreDNS's own setup tests do. CoreDNS hands a plugin every occurrence of it in a
server block at once (that is how `this plugin can only be used once per Server Block` is
found), so one question is one plugin of one block. Without the helper nothing is judged:
ToolError (exit 3), never a model.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Sequence

from gen.corefile.helper import judge_setups
from gen.errors import ToolError
from gen.tools import COREFILE_BUILD_HINT

Verdict = Literal["ok", "refused", "unjudged"]
VERDICTS: tuple[Verdict, ...] = ("ok", "refused", "unjudged")


@dataclass(frozen=True)
class SetupAsk:
    """One plugin of one server block: its occurrences rendered as CoreDNS's lexer reads them."""

    plugin: str
    text: str
    keys: tuple[str, ...]


@dataclass(frozen=True)
class SetupJudged:
    """The setup's answer: ok, refused (`error` is the plugin's own message) or unjudged (not linked)."""

    verdict: Verdict
    error: str = ""


def judge(asks: Sequence[SetupAsk]) -> list[SetupJudged]:
    """CoreDNS's setup verdict on each ask, in one round trip for all not yet asked.

    Raises:
        ToolError: the helper is missing, failed or answered no known verdict (exit 3).
    """
    out: list[SetupJudged] = []
    for ask, raw in zip(asks, judge_setups([(a.plugin, a.text, a.keys) for a in asks]), strict=True):
        verdict = next((v for v in VERDICTS if v == raw.get("verdict")), None)
        if verdict is None:
            raise ToolError(f"coredns-gen-corefile judged {ask.plugin!r} {raw!r}, not one of {', '.join(VERDICTS)}",
                            hint="rebuild it from this checkout: " + COREFILE_BUILD_HINT)
        out.append(SetupJudged(verdict, str(raw.get("error", ""))))
    return out
