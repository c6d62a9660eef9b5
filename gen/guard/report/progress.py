"""What a long guard run is doing, for a person watching a terminal.

A fleet of thousands of Kustomizations takes seconds to minutes. `run_guard` reports each stage
and, while building, how many of how many builds are done, to a `Report` callback; cli.py prints
it to stderr only when stderr is a terminal (CI logs get nothing extra). The count is taken as the
engine's outcomes arrive; only a watched run is counted, so an unwatched one pays nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Callable

from gen.guard.build.engine import Engine, Job, Outcome

# (what is happening, done, total); total 0 means a stage without a count
Report = Callable[[str, int, int], None]

class ReportingEngine(Engine):
    """An Engine that reports `building <what>: done/total` between slices of each batch."""

    def __init__(self, parallel: int | None, report: Report) -> None:
        super().__init__(parallel)
        self.report = report

    def run(self, jobs: list[Job]) -> Iterator[tuple[str, Outcome]]:
        if not jobs:
            return iter(())
        return self._counted(jobs, super().run(jobs))

    def _counted(self, jobs: list[Job], outcomes: Iterator[tuple[str, Outcome]]) -> Iterator[tuple[str, Outcome]]:
        """About 20 reports a batch, as its outcomes arrive, each naming the builds sent next."""
        step = max(4 * self.parallel, -(-len(jobs) // 20))
        self.report(f"building {_what(jobs[:step])}", 0, len(jobs))
        for done, outcome in enumerate(outcomes, 1):
            yield outcome
            if done % step == 0 and done < len(jobs):
                self.report(f"building {_what(jobs[done:done + step])}", done, len(jobs))
        self.report("built", len(jobs), len(jobs))


def _what(jobs: list[Job]) -> str:
    """`Kustomizations of clusters/c042/flux-system/gotk-sync.yaml …` for the slice at hand."""
    clusters = sorted({job.cluster for job in jobs})
    first = clusters[0] if clusters else ""
    more = f" and {len(clusters) - 1} more clusters" if len(clusters) > 1 else ""
    return f"Kustomizations of {first}{more}" if first else "Kustomizations"
