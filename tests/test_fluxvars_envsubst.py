"""gen/fluxvars.py's Flux variables held equal to Flux's own parser (fluxcd/pkg/envsubst, through
coredns-gen-helper `envsubst`) on generated strings.

fluxvars accepts a subset of Flux's syntax (`${NAME}`, `${NAME:=default}`, a default that stays
one Corefile word) and substitutes it with its own regex, VAR. For every string syntax_problem
accepts, Flux must parse it, look up exactly the names VAR finds, and give the text
fluxvars.substituted gives for the same values (a default where a value is unset or empty), as
kustomize-controller's postBuild would (an unset variable without a default is "").
"""

from __future__ import annotations

import json
import random
import subprocess
from typing import Any

import pytest

from gen import fluxvars
from gen.tools import helper_binary
from tests.conftest import missing_tool

# Accepted forms and plain text; near-misses of them and what Flux reads that fluxvars does not accept.
GOOD = ["${A}", "${B_1}", "${_}", "${A:=b}", "${A:=}", "${B_1:=10.0.0.1:53}", "${A:=x/y%z,^w=v:u}", "${Zz9:=é}",
        "${A:=Ω.example}", "$", "$A", "$1", "$A}", "$ {A}", "}", "{", "a", "b.example", "10.0.0.1", ":", "=", "-", "\\",
        "/", " ", "\t", "é", "Ω", "\u00a0", "#", "'", '"', ";", "%", ",", "^", "A", "_", "1"]
BAD = ["$$", "${", "${1A}", "${A:-b}", "${A:=b c}", "${A:=${B}}", "${A:=$B}", "${A=b}", "${A:b}", "${#A}", "${A^^}",
       "${A/b/c}", "${A%b}", "${Aé}", "${é}", "${A:=\\}", "${A:=\\\\}", "${A:='q'}", '${A:="q"}', "${A:=#}", "${A:=;}",
       "${A:=`}", "${A:=\u00a0}", "${ A}", "${A }", "${}", "$${A}"]
NAMES = ["A", "B_1", "_", "Zz9", "1A", "Aé", "é"]


def _strings(count: int) -> list[str]:
    """Every piece, every pair of pieces, then random runs of up to six (one in six a near-miss)."""
    rng = random.Random(20261202)
    pieces = GOOD + BAD
    out = dict.fromkeys(pieces + [a + b for a in pieces for b in pieces])
    while len(out) < count:
        out["".join(rng.choice(BAD if rng.random() < 1 / 6 else GOOD) for _ in range(rng.randint(1, 6)))] = None
    return list(out)


def _value_sets(text: str, rng: random.Random) -> list[dict[str, str]]:
    """Every name set; every name set to ""; only the names without a default set (the rest unset)."""
    found = [(m[1], m[2]) for m in fluxvars.VAR.finditer(text)]
    bare = {name for name, default in found if default is None}
    names = sorted({name for name, _ in found})
    return [{n: rng.choice(["v", "10.9.0.1", "x-y", "é"]) for n in names}, dict.fromkeys(names, ""),
            {n: "set" for n in sorted(bare)}]


@pytest.fixture(scope="module")
def flux() -> Any:
    binary = helper_binary()
    if binary is None:
        missing_tool("coredns-gen-helper", RuntimeError("scripts/setup-dev builds it (or the first guard run)"))
    assert binary is not None

    def substitute(items: list[tuple[str, dict[str, str]]]) -> list[dict[str, Any]]:
        request = json.dumps({"items": [{"text": t, "vars": v} for t, v in items]}) + "\n"
        proc = subprocess.run([str(binary), "envsubst"], input=request, capture_output=True, text=True, timeout=120,
                              check=False)
        assert proc.returncode == 0, proc.stderr
        results: list[dict[str, Any]] = json.loads(proc.stdout)["results"]
        assert len(results) == len(items)
        return results
    return substitute


def test_every_string_fluxvars_accepts_flux_reads_and_fills_the_same(flux: Any) -> None:
    rng = random.Random(7)
    texts = _strings(8000)
    accepted = [t for t in texts if fluxvars.syntax_problem(t) is None]
    items = [(t, values) for t in accepted for values in _value_sets(t, rng)]
    disagreements = []
    for (text, values), got in zip(items, flux(items), strict=True):
        wanted = [m[1] for m in fluxvars.VAR.finditer(text)]
        ours = fluxvars.substituted(text, "line", defaults=True, inline=values)
        if got.get("error") or got["names"] != wanted or got["output"] != ours:
            disagreements.append((text, values, wanted, ours, got))
    assert not disagreements, disagreements[:20]
    # the generator reaches both sides of syntax_problem, and variables on the accepted side
    assert len(accepted) > 1000 and len(texts) - len(accepted) > 1000
    assert sum("${" in t for t in accepted) > 500


def test_the_near_misses_are_refused_here_whatever_flux_makes_of_them(flux: Any) -> None:
    """fluxvars refuses every form it does not model, including those Flux reads its own way."""
    near = ["$$", "${1A}", "${A:-b}", "${A:=b c}", "${A:=${B}}", "${A=b}", "${A:b}", "${#A}", "${A^^}", "${A/b/c}",
            "${Aé}", "${é}", "${A:=\\}", "${A:='q'}", "${A:=#}", "${A:=;}", "${ A}", "${}", "$${A}", "${A"]
    assert [t for t in near if fluxvars.syntax_problem(t) is None] == []
    read_by_flux = [t for t, got in zip(near, flux([(t, {}) for t in near]), strict=True) if not got.get("error")]
    assert "${1A}" in read_by_flux and "${A:-b}" in read_by_flux and "${é}" in read_by_flux  # Flux's own, refused here


def test_names_flux_reads_beyond_ours_are_not_accepted(flux: Any) -> None:
    """Flux reads any Unicode letter or digit in a name; fluxvars accepts `[_A-Za-z][_A-Za-z0-9]*` only,
    the names a postBuild.substitute key may have (kustomize-controller's varsub regex)."""
    results = flux([(f"${{{n}}}", {}) for n in NAMES])
    assert [r["names"] for r in results] == [[n] for n in NAMES]
    assert [n for n in NAMES if fluxvars.syntax_problem(f"${{{n}}}") is None] == ["A", "B_1", "_", "Zz9"]


def test_the_generated_strings_are_deterministic() -> None:
    assert _strings(8000) == _strings(8000)
