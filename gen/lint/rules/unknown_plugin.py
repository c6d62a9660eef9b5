"""Every directive of a server block must be a plugin the target CoreDNS build has.

CoreDNS refuses a Corefile with an unknown directive ("Unknown directive 'x'"). The list is the
stock build's plugin.cfg (v1.13.1) with the release that added each plugin (versions.py);
`proxy`/`federation` were removed. Names built from `{$ENV}` placeholders are not judged, nor
plugins a custom build declares (`--plugin NAME`, `lint: {plugins: [...]}` in .coredns-gen.yaml).

PASS: `.:53 { errors health forward . /etc/resolv.conf }`
FAIL: `.:53 { forwrd . 1.1.1.1 }` -> error at `forwrd`; `nomad` with --coredns-version 1.12.4.
"""

from __future__ import annotations

import difflib
from typing import Iterator

from gen.corefile import has_placeholder
from gen.finding import Finding, Severity
from gen.lint.context import LintContext, at
from gen.lint.option_releases import PLUGINS, plugin_status

ID = "unknown-plugin"
SEVERITY = Severity.ERROR
REFUSES = True  # an error finding means CoreDNS refuses to load the Corefile


def check(ctx: LintContext) -> Iterator[Finding]:
    for _unit, block in ctx.blocks():
        for d in block.directives:
            if has_placeholder(d.name) or d.name in ctx.plugins:
                continue  # declared with --plugin / lint.plugins: compiled into this build
            status, detail = plugin_status(d.name, ctx.version)
            if status == "ok":
                continue
            if status == "unknown":
                close = difflib.get_close_matches(d.name, sorted(PLUGINS), n=1)
                hint = (f"did you mean `{close[0]}`? (a plugin of a custom build: pass --plugin {d.name})" if close else
                        f"check the spelling against coredns.io/plugins, or declare a custom build's plugin: --plugin {d.name}")
                if ":" in d.name or d.name.endswith("."):
                    hint = "this looks like a server block address: server blocks cannot nest"
                yield at(ID, SEVERITY, d, f"unknown plugin `{d.name}`: CoreDNS refuses the Corefile "
                         f"(Unknown directive '{d.name}')", hint)
            else:
                yield at(ID, SEVERITY, d, f"plugin `{d.name}` is not in {ctx.where()}: {detail}",
                         f"upgrade CoreDNS or remove `{d.name}`")
