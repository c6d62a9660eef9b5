"""An `import` of a single name that is neither a snippet defined above it nor a file is refused.

CoreDNS resolves `import NAME` to a snippet only if `(NAME)` was defined *earlier* in the file;
otherwise it looks for a file and, for a name without a glob, fails with "File to import not
found". Lint judges what it can see: bare names (snippet references), paths under
/etc/coredns/custom when `coredns-custom` is among the inputs, and paths outside /etc/coredns
(where the pod has only what a volume of its Deployment mounts: with no such mount among the
inputs the file is not there, as `lint --load` finds too). Globs never fail (an empty glob only
logs a warning).

PASS: `(base) { errors }` then `.:53 { import base }`
FAIL: `.:53 { import base }` with no snippet `base` above it -> error at the import.
"""

from __future__ import annotations

import posixpath
from typing import Iterator

from gen.corefile import walk_directives
from gen.finding import Finding, Severity
from gen.lint.context import LintContext, at
from gen.lint.inputs import CUSTOM_CONFIGMAP, CUSTOM_DIR
from gen.lint.wiring import COREFILE_DIR, DEPLOYMENT, import_target

ID = "import-not-found"
SEVERITY = Severity.ERROR
REFUSES = True  # an error finding means CoreDNS refuses to load the Corefile


def _mounted(ctx: LintContext) -> list[str]:
    """Every mountPath of the coredns Deployments among the inputs."""
    out = []
    for dep in ctx.inputs.deployments:
        if dep.name == DEPLOYMENT:
            spec = ((dep.node.get("spec") or {}).get("template") or {}).get("spec") or {}
            out += [str(m.get("mountPath", "")) for c in spec.get("containers") or [] for m in c.get("volumeMounts") or []]
    return [m.rstrip("/") for m in out if m]


def check(ctx: LintContext) -> Iterator[Finding]:
    custom = ctx.inputs.configmap(CUSTOM_CONFIGMAP)
    mounted = _mounted(ctx)
    for unit in ctx.units:
        if unit.in_main:
            continue
        # files a bare name could also mean: keys mounted beside the Corefile or beside the fragment
        beside = set(unit.configmap.data) if unit.configmap is not None else set()
        beside |= set(custom.data) if custom is not None else set()
        snippets = sorted(unit.raw.snippets)
        imports = [*unit.effective.imports, *(d for b in unit.effective.server_blocks for d in walk_directives(b.directives))]
        for d in imports:
            if d.name != "import" or any(c in d.args[0] for c in "*?["):
                continue
            pattern = d.args[0]
            target = import_target(pattern)
            if "/" not in pattern and pattern not in beside:
                later = " (it is defined further down: move it above this import)" if pattern in snippets else ""
                known = f"; snippets: {', '.join(snippets)}" if snippets else ""
                yield at(ID, SEVERITY, d, f"`import {pattern}`: no snippet `({pattern})` above it and no file "
                         f"{COREFILE_DIR}/{pattern}{later}; CoreDNS refuses the file (File to import not found)",
                         f"define `({pattern}) {{ … }}` before this line{known}")
            elif target.startswith(CUSTOM_DIR + "/") and custom is not None:
                yield at(ID, SEVERITY, d, f"`import {pattern}`: {CUSTOM_CONFIGMAP} has no key "
                         f"`{target.rsplit('/', 1)[1]}`; CoreDNS refuses the file (File to import not found)",
                         f"add the key to {CUSTOM_CONFIGMAP}, or import a glob (`custom/*.server`)")
            elif not target.startswith(COREFILE_DIR + "/") and not any(target.startswith(m + "/") for m in mounted):
                yield at(ID, SEVERITY, d, f"`import {pattern}`: no input puts a file at {target} (the ConfigMaps mount "
                         f"under {COREFILE_DIR}, and no volume of the coredns Deployment among the inputs mounts "
                         f"{posixpath.dirname(target)}); CoreDNS refuses the file (File to import not found)",
                         "import a key of a ConfigMap mounted under /etc/coredns, or give the Deployment that mounts "
                         "the file among the inputs")
