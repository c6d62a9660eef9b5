"""verify's engine in the confined child (gen/confine.py): the fakes, the DNS client and CoreDNS
share its loopback, and CoreDNS opens nothing of the machine but its sandbox."""

from __future__ import annotations

import dataclasses
import tempfile
from pathlib import Path
from typing import Any

from gen.confine import CONFINED, UNCONFINED, child_main, run_confined, unconfined
from gen.verify.engine import Outcome, QueryResult, run_scenarios
from gen.verify.sandbox import VerifyConfig


def run_contained(config: VerifyConfig, binary: Path) -> tuple[list[Outcome], str, str]:
    """The engine's outcomes and resolv.conf mode, and how CoreDNS was confined (the report says which).

    Raises:
        ToolError: no namespaces here (refused, with the fix), or the binary does not run.
        UsageError: an upstream or server block verify cannot fake.
    """
    if unconfined():
        outcomes, mode = run_scenarios(config, binary)
        return outcomes, mode, UNCONFINED
    with tempfile.TemporaryDirectory(prefix="coredns-gen-confined-") as tmp:
        answer = run_confined("gen.verify.contained", {"config": dataclasses.asdict(config), "binary": str(binary)},
                              binary, Path(tmp))
    return [_outcome(o) for o in answer["outcomes"]], str(answer["mode"]), CONFINED


def serve(request: dict[str, Any], _sandbox: Path) -> dict[str, Any]:
    """In the child: every scenario (the engine's temporary folders are in the sandbox)."""
    outcomes, mode = run_scenarios(VerifyConfig(**request["config"]), Path(request["binary"]))
    return {"outcomes": [dataclasses.asdict(o) for o in outcomes], "mode": mode}


def _outcome(data: dict[str, Any]) -> Outcome:
    queries = tuple(QueryResult(**{**q, "reached": tuple(q["reached"])}) for q in data.pop("queries"))
    return Outcome(**data, queries=queries)


if __name__ == "__main__":  # the confined child (gen/confine.py run_confined)
    child_main(serve)
