"""One module per guard rule; the registry is gen.guard.RULES.

SHARD_MERGES lists the rules whose findings speak for the whole fleet, with how the shards'
findings become what one run says (gen/guard/report/merge.py takes it as an argument, so the
report layer never imports a rule).
"""

from __future__ import annotations

from typing import Callable

from gen.finding import Finding
from gen.guard.rules import sourceignore_hides

SHARD_MERGES: dict[str, Callable[[list[Finding]], list[Finding]]] = {sourceignore_hides.ID: sourceignore_hides.merged}
