"""The package has no import cycle, and nothing hides one behind an import inside a function.

Three checks: every module of `gen` imports on its own in a fresh interpreter; the graph of
module-level imports between `gen` modules is acyclic; and no function imports a `gen` module,
except in `gen/cli.py`, which is the entry point (nothing imports it, so its lazy imports cannot
close a cycle) and defers each command's modules so `coredns-gen render` does not pay for
guard's or verify's start-up. A module that only some runs need is imported on first use in one
named form (gen/lazy.py): its import is written under `if TYPE_CHECKING:`, so the graph and the
layer check count it like any other, and the stand-in beside it names the same module.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO_ROOT

GEN = REPO_ROOT / "gen"
LAZY_ALLOWED = {"gen/cli.py"}


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(GEN.rglob("*.py")):
        parts = list(path.relative_to(REPO_ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


MODULES = _modules()
RUNS_ON_IMPORT = {"gen.__main__"}  # `python -m gen`: importing it runs the CLI


def _targets(node: ast.Import | ast.ImportFrom, module: str) -> list[str]:
    """The gen modules an import statement loads (`from gen import flux` loads gen.render.flux_objects)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name.split(".")[0] == "gen"]
    assert not node.level, f"{module}: relative import (gen imports absolutely)"
    base = node.module or ""
    if base.split(".")[0] != "gen":
        return []
    return [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]


def _imports(path: Path, module: str) -> tuple[set[str], list[tuple[int, str]]]:
    """(gen modules imported at module level, (line, target) of imports inside functions)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top: set[str] = set()
    nested: list[tuple[int, str]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                for target in _targets(child, module):
                    if in_function:
                        nested.append((child.lineno, target))
                    else:
                        top.add(target)
            visit(child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))

    visit(tree, False)
    return top, nested


def test_every_module_imports_on_its_own_in_a_fresh_interpreter() -> None:
    script = (
        "import importlib, sys, traceback\n"
        "failed = []\n"
        f"for name in {sorted(set(MODULES) - RUNS_ON_IMPORT)!r}:\n"
        "    for loaded in [m for m in sys.modules if m == 'gen' or m.startswith('gen.')]:\n"
        "        del sys.modules[loaded]\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except Exception:\n"
        "        failed.append(name + ': ' + traceback.format_exc().splitlines()[-1])\n"
        "print('\\n'.join(failed))\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO_ROOT,
                          env={"PYTHONPATH": str(REPO_ROOT), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "", f"modules that do not import on their own:\n{proc.stdout}"


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the directed graph as a path that ends where it starts, or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt):], nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for name in sorted(graph):
        if name not in state:
            cycle = visit(name)
            if cycle:
                return cycle
    return None


def test_module_level_imports_between_gen_modules_form_no_cycle() -> None:
    graph = {name: {t for t in _imports(path, name)[0] if t != name} for name, path in MODULES.items()}
    assert "gen.render.flux_objects" in graph["gen.render.cluster"]  # the walk sees real edges
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


# The guard's layers, lowest first: a package imports only from its own layer and those below
# (gen.guard.model, the shared vocabulary, is below them all); rules never import other rules.
GUARD_LAYERS = ("gen.guard.repo", "gen.guard.flux", "gen.guard.build")
GUARD_ABOVE = ("gen.guard.rules", "gen.guard.report")


def test_the_guard_keeps_its_layers() -> None:
    """repo (git, files) < flux (the Flux model) < build (the helper client, caches); rules and
    reports read what the run found and never reach into how it was found; no rule imports
    another rule (shared facts live in gen/guard/diff.py, change.py, evidence.py)."""
    def package(name: str) -> str | None:
        return next((p for p in GUARD_LAYERS + GUARD_ABOVE if name == p or name.startswith(p + ".")), None)

    wrong = []
    for name, path in MODULES.items():
        mine = package(name)
        if mine is None:
            continue
        for target in _imports(path, name)[0]:
            theirs = package(target)
            if theirs is None or theirs == mine and mine != "gen.guard.rules":
                continue
            if mine in GUARD_LAYERS and (theirs in GUARD_ABOVE or GUARD_LAYERS.index(theirs) > GUARD_LAYERS.index(mine)):
                wrong.append(f"{name} -> {target}")
            elif mine == theirs == "gen.guard.rules" and "gen.guard.rules" not in (name, target):  # (the registry lists rules)
                wrong.append(f"{name} -> {target} (a rule imports a rule)")
            elif mine == "gen.guard.rules" and theirs == "gen.guard.build":  # (progress reports count builds)
                wrong.append(f"{name} -> {target}")
            elif {mine, theirs} == {"gen.guard.rules", "gen.guard.report"} and name != "gen.guard.rules":
                wrong.append(f"{name} -> {target} (rules and reports do not import each other)")
    assert wrong == []


def test_rules_and_reports_never_import_the_guard_package() -> None:
    """gen/guard/__init__.py runs the pipeline; what it produces (gen/guard/result.py) and the
    facts rules share (change.py, diff.py, evidence.py, errortext.py) sit below it."""
    wrong = [f"{name} -> gen.guard" for name, path in MODULES.items()
             if name.startswith(("gen.guard.rules.", "gen.guard.report.")) and "gen.guard" in _imports(path, name)[0]]
    assert wrong == []


def test_lint_rules_are_imported_only_by_lint_machinery() -> None:
    """A lint rule imports no other rule; the guard asks lint's facts by id (gen/lint/objects.py),
    never by importing a rule, so lint and guard share facts without reaching into each other."""
    wrong = []
    for name, path in MODULES.items():
        for target in _imports(path, name)[0]:
            if not target.startswith("gen.lint.rules."):
                continue
            if name.startswith("gen.lint.rules.") or name not in {"gen.lint.run", "gen.lint.objects"}:
                wrong.append(f"{name} -> {target}")
    assert wrong == []


def test_the_layer_walk_sees_the_leaks_it_forbids() -> None:
    """The walk reads real imports: a rule that imported a report or a lint rule would be seen."""
    assert "gen.guard.report.shard" in _imports(MODULES["gen.guard.result"], "gen.guard.result")[0]
    assert "gen.lint.rules.forward_next_ignored" in _imports(MODULES["gen.lint.objects"], "gen.lint.objects")[0]


def test_find_cycle_reports_a_cycle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_no_function_imports_a_gen_module() -> None:
    found = []
    for name, path in MODULES.items():
        rel = path.relative_to(REPO_ROOT).as_posix()
        if rel in LAZY_ALLOWED:
            continue
        found += [f"{rel}:{line}: imports {target} inside a function" for line, target in _imports(path, name)[1]]
    assert not found, "move these imports to the top of the module (a lazy import can hide a cycle):\n" + "\n".join(found)


def _lazy_declarations(path: Path) -> tuple[list[str], list[str]]:
    """(module names declared lazy in the checked form, problems with any other run-time import by name)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    declared: list[str] = []
    problems: list[str] = []
    checked: set[int] = set()  # ids of the lazy_module calls written in the checked form
    for node in tree.body:
        if not (isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"):
            continue
        typed: dict[str, str] = {}  # name bound under TYPE_CHECKING -> the gen module it is
        for stmt in node.body:
            if isinstance(stmt, ast.ImportFrom) and stmt.module:
                for alias in stmt.names:
                    full = f"{stmt.module}.{alias.name}"
                    if full in MODULES:
                        typed[alias.asname or alias.name] = full
            elif isinstance(stmt, ast.Import):
                for alias in stmt.names:
                    if alias.asname:
                        typed[alias.asname] = alias.name
        for stmt in node.orelse:
            call = stmt.value if isinstance(stmt, ast.Assign) else None
            if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "lazy_module"):
                continue
            checked.add(id(call))
            target = stmt.targets[0] if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else None
            name = call.args[0].value if len(call.args) == 1 and isinstance(call.args[0], ast.Constant) else None
            if not isinstance(target, ast.Name) or not isinstance(name, str) or name not in MODULES:
                problems.append(f"line {stmt.lineno}: lazy_module needs one literal name of a gen module")
            elif typed.get(target.id) != name:
                problems.append(f"line {stmt.lineno}: {target.id} = lazy_module({name!r}) without "
                                f"`from ... import {target.id}` of that module under TYPE_CHECKING")
            else:
                declared.append(name)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            called = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if called == "lazy_module" and id(node) not in checked:
                problems.append(f"line {node.lineno}: lazy_module outside the `if TYPE_CHECKING: ... else:` form")
            if called in ("import_module", "__import__"):
                problems.append(f"line {node.lineno}: imports a module by name (use gen/lazy.py's form)")
    return declared, problems


def test_lazy_imports_are_declared_in_the_checked_form() -> None:
    """A lazy import names a real module, and the same module is imported under TYPE_CHECKING
    (so the cycle and layer checks see the edge); nothing else imports by name at run time."""
    found = []
    lazy = []
    for name, path in MODULES.items():
        if name == "gen.lazy":  # where the stand-in imports, by the name it was given
            continue
        declared, problems = _lazy_declarations(path)
        lazy += declared
        found += [f"{path.relative_to(REPO_ROOT).as_posix()}:{p}" for p in problems]
    assert not found, "\n".join(found)
    assert "gen.guard.flux.fluxconfigs" in lazy  # the walk sees the declarations


def test_the_checked_form_refuses_what_it_must(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("from typing import TYPE_CHECKING\nimport importlib\nif TYPE_CHECKING:\n"
                   "    from gen.guard.flux import roots as fluxconfigs\nelse:\n"
                   "    fluxconfigs = lazy_module('gen.guard.flux.fluxconfigs')\n"
                   "x = lazy_module('gen.guard.flux.fluxconfigs')\nimportlib.import_module('gen.guard')\n")
    declared, problems = _lazy_declarations(bad)
    assert declared == []
    assert len(problems) == 3, problems


def test_a_lazy_module_is_imported_on_first_use() -> None:
    script = ("import sys\nfrom gen.guard.flux import bootstraps\nbefore = 'gen.guard.flux.fluxconfigs' in sys.modules\n"
              "bootstraps.fluxconfigs.TOOL_LABEL\nprint(before, 'gen.guard.flux.fluxconfigs' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO_ROOT,
                          env={"PYTHONPATH": str(REPO_ROOT), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["False", "True"]


# What a command's modules must leave unimported: other commands' machinery, and libraries
# needed only on first use (jinja2 at the first render, pathspec for an artifact's own ignore
# rules, ruamel to explain a YAML problem). Each would be start-up that every run of the
# command pays again (benchmarks/startup.py measures it).
LEFT_OUT = {
    "import gen.guard": ("gen.render.values", "gen.render.cluster", "gen.lint.run", "gen.lint.reader", "gen.lint.load", "gen.verify",
                         "gen.launcher", "jinja2", "dns", "pathspec", "jsonschema", "ruamel", "fastjsonschema",
                         "gen.guard.flux.fluxconfigs"),
    "import gen.lint.run": ("gen.render.values", "gen.render.cluster", "gen.verify", "gen.lint.load", "gen.launcher", "dns", "jinja2"),
    "import pathlib, sys, tempfile; from gen.config import load_config; d = pathlib.Path(tempfile.mkdtemp()); "
    "(d / '.coredns-gen.yaml').write_text('values: [dns/*.yaml]\\nguard: {allow: [x]}\\n'); load_config(d)": ("ruamel",),
}


def test_a_command_imports_none_of_what_it_does_not_use() -> None:
    found = {}
    for code, left_out in LEFT_OUT.items():
        script = f"import sys\n{code}\nprint(' '.join(m for m in {left_out!r} if m in sys.modules))"
        proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO_ROOT,
                              env={"PYTHONPATH": str(REPO_ROOT), "PATH": "/usr/bin:/bin"})
        assert proc.returncode == 0, proc.stderr
        if proc.stdout.split():
            found[code[:40]] = proc.stdout.split()
    assert not found, f"imported although never used on that path (see who imports them: python3 -X importtime): {found}"


# Module and package names that more than one package uses, each for the same idea in its own package.
SHARED_NAMES = {
    "__init__": "a package",
    "run": "`coredns-gen <command>` end to end (lint, verify, import)",
    "rules": "one module per rule (lint's, the guard's)",
    "engine": "what runs a package's many jobs (verify's scenarios, the guard's builds)",
    "boundary": "the repository boundary (every path a command touches; every file a build reads)",
    "sources": "where Flux's source-controller fetches from (a Kustomization's source, a chart's)",
    "inputs": "what a stage reads (lint's Corefile units, a build's files)",
}


def test_no_two_modules_share_a_name_unless_they_mean_the_same() -> None:
    """`gen/flux.py` beside `gen/guard/flux/`, three `model.py`: a reader took one for the other."""
    seen: dict[str, list[str]] = {}
    for path in sorted(GEN.rglob("*.py")):
        seen.setdefault(path.stem, []).append(path.relative_to(REPO_ROOT).as_posix())
    for package in sorted(p for p in GEN.rglob("*") if p.is_dir() and (p / "__init__.py").exists()):
        seen.setdefault(package.name, []).append(package.relative_to(REPO_ROOT).as_posix() + "/")
    shared = {name: where for name, where in seen.items() if len(where) > 1 and name not in SHARED_NAMES}
    assert shared == {}, "rename one of each (or say in SHARED_NAMES what they share)"
