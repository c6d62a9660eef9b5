"""lint and `lint --load` against the real CoreDNS on real-world files new to the project.

tests/data/corefiles-realworld holds Corefiles and ConfigMaps from issue threads and repositories
(SOURCES.md). The truth is the binary's alone: CoreDNS started on the text (a fragment spliced
into its platform's stock Corefile as its imports read it), with only listeners, `bind`, the
resolv.conf and the kubernetes API moved to loopback (gen.corefile.loadcheck with a fake API
server: every option of every plugin reaches CoreDNS). `lint --load` must agree on every file;
`lint` alone too (0 false alarms, no miss). Run for CoreDNS
1.13.1 and, when `coredns-1.11.3` sits beside it (or COREDNS_BIN_1_11_3 names one), 1.11.3.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

import pytest
import yaml

from gen.corefile import CorefileError, parse_corefile
from gen.corefile.loadcheck import adapt_for_loopback, try_load, write_resolv_conf
from gen.finding import Finding, Severity
from gen.kubeapi import FakeKubeAPI
from gen.launcher import binary_version
from gen.lint.load import load_check
from gen.lint.run import RULES, run_lint
from gen.platforms import get
from gen.versions import parse_version
from tests.conftest import missing_tool

pytestmark = [pytest.mark.coredns, pytest.mark.slow]
DATA = Path(__file__).resolve().parents[1] / "data" / "corefiles-realworld"
_ROW = re.compile(r"^\| `(?P<file>[^`]+)` \| .* \| (?P<context>[^|]+) \| (?P<verdict>[^|]+) \|$")
VERSIONS = ("1.13.1", "1.11.3")
REFUSING = {r.ID for r in RULES if r.REFUSES} | {"corefile-syntax"}


def _entries() -> tuple[list[tuple[str, str]], dict[tuple[str, str, str], bool]]:
    """(file, context) rows, and the verdict recorded for each at each version (True: starts)."""
    out, recorded = [], {}
    for line in (DATA / "SOURCES.md").read_text(encoding="utf-8").splitlines():
        m = _ROW.match(line)
        if m:
            contexts = [c.strip() for c in m["context"].split(";")]
            verdicts = [v.strip() for v in m["verdict"].split(";")]
            assert len(verdicts) == len(contexts), f"{m['file']}: one verdict per context"
            for context, verdict in zip(contexts, verdicts, strict=True):
                out.append((m["file"], context))
                words = [w.strip() for w in verdict.split("/")]
                assert len(words) == len(VERSIONS) and set(words) <= {"starts", "refused"}, f"{m['file']}: {verdict!r}"
                recorded.update({(m["file"], context, v): w == "starts" for v, w in zip(VERSIONS, words, strict=True)})
    return out, recorded


ENTRIES, RECORDED = _entries()


def _binaries() -> list[str]:
    return list(VERSIONS)


def _binary(version: str, coredns_bin: Path) -> Path:
    if version == "1.13.1":
        return coredns_bin
    named = os.environ.get("COREDNS_BIN_1_11_3")
    for candidate in ([Path(named)] if named else []) + [coredns_bin.parent / "coredns-1.11.3",
                                                        Path(os.environ.get("COREDNS_GEN_HELPER", "/nonexistent")).parent / "coredns-1.11.3"]:
        if candidate.is_file():
            return candidate
    missing_tool("CoreDNS 1.11.3", RuntimeError("scripts/setup-dev builds it beside 1.13.1 as coredns-1.11.3 "
                                               "(or set COREDNS_BIN_1_11_3)"))
    raise AssertionError("unreachable")


def _context(context: str) -> tuple[str | None, str | None]:
    return (None, None) if context == "-" else tuple(context.split())  # type: ignore[return-value]


def _truth(path: Path, context: str, binary: Path) -> bool:
    """Whether the real CoreDNS starts on what the cluster would load (no lint code involved)."""
    platform, release = _context(context)
    custom: dict[str, str] = {}
    mounted: dict[str, str] = {}
    if path.suffix == ".yaml":
        doc = yaml.safe_load(path.read_text())
        data = {str(k): str(v) for k, v in doc["data"].items()}
        if doc["metadata"]["name"] == "coredns":
            main = data.pop("Corefile")
            mounted = data
        else:
            custom = data
            assert platform and release, f"{path.name}: a fragment needs its platform"
            stock = get(platform).stock_corefile(parse_version(release), "cluster.local")
            assert stock is not None, f"{path.name}: no stock Corefile for {platform} {release} in gen/platforms"
            main = stock
    else:
        main = path.read_text()
    with tempfile.TemporaryDirectory() as tmp, FakeKubeAPI() as api:
        root = Path(tmp) / "etc" / "coredns"
        main = main.replace("/etc/coredns/", f"{root}/")  # where the pod mounts the ConfigMaps
        resolv = write_resolv_conf(Path(tmp))
        files = {f"etc/coredns/{k}": v for k, v in mounted.items()}
        ports: dict[str, int] = {}  # one map for every file: `.:53` in a key is the pod's `.:53` too
        for key, text in custom.items():
            if key.endswith(".server"):  # whole server blocks: on loopback ports like the main one
                text = _adapted(text, key, resolv, api.url, ports)
            files[f"etc/coredns/custom/{key}"] = text
        text = _adapted(main, "Corefile", resolv, api.url, ports).replace("import custom/", f"import {root}/custom/")
        _write(files, Path(tmp))
        return try_load(text, binary).started


def _write(files: dict[str, str], root: Path) -> None:
    """Files at absolute paths under `root` (try_load's own `files` sit beside its Corefile)."""
    for rel, text in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


def _adapted(text: str, name: str, resolv: str, api: str, ports: dict[str, int]) -> str:
    """On loopback ports; text our parser cannot read goes to CoreDNS as written (it listens on
    53 then, which this sandbox may not bind: such text is refused before listening anyway)."""
    try:
        return adapt_for_loopback(parse_corefile(text, filename=name), resolv, ports, api=api).render()
    except CorefileError:
        return text


def _lint(path: Path, context: str, binary: Path | None, version: str) -> list[Finding]:
    platform, release = _context(context)
    try:
        return run_lint([path], coredns_version=version, platform=platform, platform_version=release,
                        load=load_check(binary) if binary is not None else None)
    except CorefileError as err:
        p = err.problems[0]
        return [Finding("corefile-syntax", Severity.ERROR, p.file or str(path), p.line or 1, p.problem)]


def _refused(findings: list[Finding], rules: set[str]) -> bool:
    return any(f.rule in rules and f.severity is Severity.ERROR for f in findings)


def test_at_least_40_files() -> None:
    assert len({f for f, _ in ENTRIES}) >= 40
    assert all((DATA / f).is_file() for f, _ in ENTRIES)


@pytest.mark.parametrize("version", _binaries())
def test_lint_agrees_with_the_real_coredns(version: str, coredns_bin: Path) -> None:
    binary = _binary(version, coredns_bin)
    ran = binary_version(binary)
    assert ran == version
    rows = []
    for name, context in ENTRIES:
        path = DATA / name
        started = _truth(path, context, binary)
        assert started is RECORDED[(name, context, version)], \
            f"{name} ({context}): CoreDNS {version} {'starts' if started else 'refuses'}, SOURCES.md records otherwise"
        loaded = _refused(_lint(path, context, binary, ran), {"coredns-refused", "corefile-syntax"})
        static = _refused(_lint(path, context, None, ran), REFUSING)
        rows.append((name, context, started, loaded, static))
    refused = sum(1 for r in rows if not r[2])
    load_wrong = [(n, c, "CoreDNS starts" if s else "CoreDNS refuses") for n, c, s, lo, _ in rows if lo is s]
    false_alarms = [(n, c) for n, c, s, _, st in rows if s and st]
    static_right = sum(1 for *_, s, _, st in rows if st is not s)
    print(f"CoreDNS {ran}: {len(rows)} entries, {refused} refused; lint --load agrees on "
          f"{len(rows) - len(load_wrong)}, lint on {static_right}")
    assert load_wrong == []
    assert false_alarms == []
    static_wrong = [(n, c) for n, c, s, _, st in rows if st is s]
    assert static_wrong == []
