"""`lint --load` agrees with the real CoreDNS on every real Corefile and fragment in tests/data/corpus.

The verdict of truth comes from the binary alone (gen.corefile.loadcheck: the text on loopback
ports, nothing of lint's): a Corefile by itself, a fragment as the files its platform's own
Corefile imports. `lint --load` must give the same verdict, and put a refusal in the file it
came from. `lint` without --load is scored, not required to match: its score is the floor below,
so a static rule that stops catching a refusal fails here.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import pytest
import yaml

from gen.corefile import CorefileError, parse_corefile
from gen.corefile.loadcheck import adapt_for_loopback, try_load, write_resolv_conf
from gen.finding import Finding, Severity
from gen.launcher import binary_version
from gen.lint.load import load_check
from gen.lint.run import RULES, run_lint
from gen.platforms import get
from gen.versions import parse_version

pytestmark = pytest.mark.coredns
CORPUS = Path(__file__).resolve().parents[1] / "data" / "corpus"
_ROW = re.compile(r"^\| `(?P<file>[^`]+)` \| .* \| (?P<context>[^|]+) \|$")
STATIC_FLOOR = 26  # of the entries below, how many `lint` without --load judges as the binary does


def _entries() -> list[tuple[str, str]]:
    out = []
    for line in (CORPUS / "SOURCES.md").read_text(encoding="utf-8").splitlines():
        m = _ROW.match(line)
        if m:
            out += [(m["file"], c.strip()) for c in m["context"].split(";")]
    return out


ENTRIES = _entries()


def _context(context: str) -> tuple[str | None, str | None]:
    return (None, None) if context == "-" else tuple(context.split())  # type: ignore[return-value]


def _truth(path: Path, context: str, binary: Path) -> bool:
    """Whether the real CoreDNS starts on what the cluster would load (no lint code involved)."""
    platform, release = _context(context)
    custom: dict[str, str] = {}
    if path.suffix == ".yaml":
        doc = yaml.safe_load(path.read_text())
        if doc["metadata"]["name"] == "coredns":
            main = doc["data"]["Corefile"]
        else:
            custom = {str(k): str(v) for k, v in doc["data"].items()}
            assert platform and release, f"{path.name}: a fragment needs its platform"
            main = get(platform).stock_corefile(parse_version(release), "cluster.local") or ""
    else:
        main = path.read_text()
    main = main.replace("/etc/coredns/custom/", "custom/")  # k3s imports by absolute path
    with tempfile.TemporaryDirectory() as tmp:
        resolv = write_resolv_conf(Path(tmp))
        files = {}
        for key, text in custom.items():
            if key.endswith(".server"):  # whole server blocks: on loopback ports like the main one
                text = _adapted(text, key, resolv)
            files[f"custom/{key}"] = text
        return try_load(_adapted(main, "Corefile", resolv), binary, files=files).started


def _adapted(text: str, name: str, resolv: str) -> str:
    """On loopback ports; text our parser cannot read goes to CoreDNS as written (it listens on
    53 then, which this sandbox may not bind: such text is refused before listening anyway)."""
    try:
        return adapt_for_loopback(parse_corefile(text, filename=name), resolv).render()
    except CorefileError:
        return text


def _lint(path: Path, context: str, binary: Path | None, version: str) -> list[Finding]:
    """Findings; a Corefile lint cannot parse (exit 2: CoreDNS refuses it too) as one error."""
    platform, release = _context(context)
    try:
        return run_lint([path], coredns_version=version, platform=platform, platform_version=release,
                        load=load_check(binary) if binary is not None else None)
    except CorefileError as err:
        p = err.problems[0]
        return [Finding("corefile-syntax", Severity.ERROR, p.file or str(path), p.line or 1, p.problem)]


REFUSING = {r.ID for r in RULES if r.REFUSES}


def test_the_corpus_has_at_least_25_entries() -> None:
    assert len(ENTRIES) >= 25 and len({f for f, _ in ENTRIES}) >= 25


@pytest.mark.parametrize(("name", "context"), ENTRIES, ids=[f"{f}@{c}" for f, c in ENTRIES])
def test_lint_load_agrees_with_the_real_coredns(name: str, context: str, coredns_bin: Path) -> None:
    path = CORPUS / name
    started = _truth(path, context, coredns_bin)
    findings = _lint(path, context, coredns_bin, binary_version(coredns_bin))
    refusals = [f for f in findings if f.rule in ("coredns-refused", "corefile-syntax") and f.severity is Severity.ERROR]
    assert bool(refusals) is (not started), [str(f.message) for f in refusals]
    for f in refusals:  # mapped back to the user's file and a line in it
        assert Path(f.file) == path and 1 <= f.line <= len(path.read_text().splitlines()), (f.file, f.line)


def test_static_lint_score_on_the_corpus(coredns_bin: Path) -> None:
    version = binary_version(coredns_bin)
    right = []
    for name, context in ENTRIES:
        path = CORPUS / name
        started = _truth(path, context, coredns_bin)
        refused = any(f.rule in REFUSING | {"corefile-syntax"} and f.severity is Severity.ERROR
                      for f in _lint(path, context, None, version))
        right.append((refused is not started, name, context, started))
    wrong = [(n, c, "CoreDNS starts" if s else "CoreDNS refuses") for ok, n, c, s in right if not ok]
    assert sum(ok for ok, *_ in right) >= STATIC_FLOOR, f"static lint misjudges: {wrong}"
