"""sourceignore-hides, from the revisions' files and what each build read, in memory.

Which files a `.sourceignore` leaves out of the artifact is source-controller's answer (fluxcd/pkg
sourceignore, asked through the helper as the guard asks it: gen/guard/flux/sourceignore.py), so
these tests ask it for a handful of files given as text: no git repository, no build.
"""

from __future__ import annotations

from gen.finding import Severity
from tests.guard.rules.change_builder import Ks, change, findings

BASE = {"clusters/prod/dns.yaml": "kind: Kustomization\n",
        "dns/kustomization.yaml": "resources:\n- custom.yaml\n",
        "dns/custom.yaml": "kind: ConfigMap\n",
        "docs/notes.yaml": "a: b\n"}
READ = ("dns/custom.yaml", "dns/kustomization.yaml")  # what the base build of `dns` read


def _hidden_by(ignore: str, path: str = ".sourceignore"):
    head = {**BASE, path: ignore}
    return findings(change([Ks("dns", inputs=READ)], [Ks("dns")], changed=[path], files={"base": BASE, "head": head}),
                    "sourceignore-hides")


def test_hiding_an_overlay_is_refused_at_the_pattern_that_hides_it():
    [found] = _hidden_by("# keep the render out of the artifact\ndns/\n")
    assert (found.severity, found.file, found.line) == (Severity.ERROR, ".sourceignore", 2)
    assert found.message.startswith(".sourceignore pattern `dns/` hides 2 file(s) Flux builds from: "
                                    "dns/custom.yaml, dns/kustomization.yaml")
    assert found.details == {"hidden": "dns/custom.yaml,dns/kustomization.yaml", "pattern": "dns/"}


def test_hiding_only_files_no_build_reads_is_no_finding():
    assert _hidden_by("docs/\n") == []


def test_a_nested_sourceignore_is_named_at_its_own_path():
    [found] = _hidden_by("*.md\n*.yaml\n", path="dns/.sourceignore")
    assert (found.file, found.line) == ("dns/.sourceignore", 2)
