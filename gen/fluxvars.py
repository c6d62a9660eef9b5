"""Flux postBuild variables (`${NAME}`, `${NAME:=default}`) in the values Flux fills at apply time.

kustomize-controller substitutes `${…}` in the built overlay only when the Kustomization has
`spec.postBuild` (fluxcd/pkg/kustomize SubstituteVariables, through fluxcd/pkg/envsubst). So a
variable may stand where such a value is written (a zone name, an upstream, a zone's or an
override's lines), is rendered verbatim, and is allowed only when the Flux Kustomization this
tool renders sets postBuild. Only the two plain forms are accepted, and a default may hold only
characters that stay inside one bare Corefile word: whatever Flux puts in, the default or a
value, replaces a word fragment and never a brace, quote, comment or line. Every check that
judges such a value judges it twice: with each variable replaced by a placeholder word, and by
its default; the structural proof reads the rendered text with the same placeholders.
VAR and syntax_problem model fluxcd/pkg/envsubst for that subset only: tests/test_fluxvars_envsubst.py
holds every accepted string equal to Flux's own parser (coredns-gen-helper `envsubst`): the same
names looked up, the same text substituted.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Iterator, Literal

from gen.errors import Problem, UsageError, quote
from gen.schema_errors import key_path, locate
from gen.spec import Values

NAME = "[_A-Za-z][_A-Za-z0-9]*"  # fluxcd/pkg/kustomize varsub: `^[_[:alpha:]][_[:alpha:][:digit:]]*$`
# A variable as accepted here; the default excludes what could end a Corefile word or line and
# what envsubst itself would read ($, braces).
VAR = re.compile(r"\$\{(" + NAME + r")(?::=([^\s{}$\"'#\\;`]*))?\}")
Context = Literal["zone", "address", "line"]
# The placeholder word each kind of value gets in the checks and the structural proof: a
# zone label, a documentation address (RFC 5737), a bare word.
PLACEHOLDER: dict[Context, str] = {"zone": "flux-variable", "address": "192.0.2.1", "line": "flux-variable"}
POST_BUILD_HINT = ("add `flux: {postBuild: {substitute: {NAME: value}}}` (or substituteFrom a ConfigMap or Secret): "
                   "Flux substitutes ${…} only in a Kustomization with spec.postBuild; or write the value itself")


def has_variables(text: str) -> bool:
    return "${" in text


def syntax_problem(text: str) -> tuple[str, str] | None:
    """(problem, fix) when a `$` in `text` is Flux substitution syntax other than the plain
    variables accepted here (envsubst would read `${…}` and `$$`; a lone `$` it leaves alone)."""
    i = 0
    while True:
        i = text.find("$", i)
        if i < 0 or i + 1 >= len(text):
            return None
        nxt = text[i + 1]
        if nxt == "$":
            return ("has `$$`, which Flux's substitution turns into `$`",
                    "write the value without `$$` (Flux would change it)")
        if nxt == "{":
            match = VAR.match(text, i)
            if match is None:
                return (f"has {text[i:i + 40]!r}, which is not a Flux variable coredns-gen accepts",
                        "write ${NAME} or ${NAME:=default}: NAME of letters, digits and '_' (not starting with a digit), "
                        "the default without spaces, braces, quotes, '#', ';', '$' or '\\'")
            i = match.end()
            continue
        i += 1


def substituted(text: str, context: Context, defaults: bool, inline: dict[str, str] | None = None) -> str:
    """`text` with each variable replaced by its postBuild.substitute value (`inline`, when it has
    one), else by its default (`defaults`, when it has one), else by the placeholder."""
    placeholder = PLACEHOLDER[context]

    def one(m: re.Match[str]) -> str:
        if inline is not None and m[1] in inline and (inline[m[1]] or m[2] is None):
            return inline[m[1]]
        return str(m[2]) if defaults and m[2] is not None else placeholder
    return VAR.sub(one, text)


def inline_values(data: Any) -> dict[str, str]:
    """postBuild.substitute of a values document, as Flux reads it (newlines dropped)."""
    flux = data.get("flux") if isinstance(data, dict) else None
    post = flux.get("postBuild") if isinstance(flux, dict) else None
    sub = post.get("substitute") if isinstance(post, dict) else None
    if not isinstance(sub, dict):
        return {}
    return {str(k): v.replace("\n", "") for k, v in sub.items() if isinstance(v, str)}


def forms(text: str, context: Context, inline: dict[str, str] | None = None) -> list[str]:
    """The texts a check judges for one value: itself when it has no variable, else the
    placeholder form, the default form (when a variable has a default) and the form with the
    values postBuild.substitute gives (`inline`: what Flux will put there, judged like the rest)."""
    if "${" not in text:
        return [text]
    out = [substituted(text, context, defaults=False)]
    for more in (substituted(text, context, defaults=True), substituted(text, context, defaults=True, inline=inline or {})):
        if more not in out:
            out.append(more)
    return out


def lower_outside(text: str) -> str:
    """`text` lower-cased except inside variables (Flux's names are case-sensitive)."""
    out, last = [], 0
    for match in VAR.finditer(text):
        out += [text[last:match.start()].lower(), match[0]]
        last = match.end()
    return "".join(out) + text[last:].lower()


def value_paths(data: Any) -> Iterator[tuple[list[Any], Context]]:
    """Where a values document may hold variables: zone names, upstreams, zone, override and default-block lines."""
    def items(*path: Any) -> Iterator[list[Any]]:
        node = data
        for part in path:
            node = node.get(part) if isinstance(node, dict) else None
        if isinstance(node, list):
            yield from ([*path, i] for i, item in enumerate(node) if isinstance(item, str))

    yield from ((p, "address") for p in items("upstream", "resolvers"))
    yield from ((p, "address") for p in items("upstream", "fallback"))
    zones = data.get("zones") if isinstance(data, dict) else None
    for i, zone in enumerate(zones if isinstance(zones, list) else []):
        if isinstance(zone, dict) and isinstance(zone.get("zone"), str):
            yield ["zones", i, "zone"], "zone"
        lists: tuple[tuple[str, Context], ...] = (("upstreams", "address"), ("fallback", "address"), ("lines", "line"))
        for key, context in lists:
            yield from ((["zones", i, key, p[-1]], context) for p in _list(zone, key))
    overrides = data.get("overrides") if isinstance(data, dict) else None
    for i, override in enumerate(overrides if isinstance(overrides, list) else []):
        yield from ((["overrides", i, "lines", p[-1]], "line") for p in _list(override, "lines"))
    yield from ((p, "line") for p in items("defaultBlock", "lines"))


def _list(node: Any, key: str) -> Iterator[list[Any]]:
    items = node.get(key) if isinstance(node, dict) else None
    if isinstance(items, list):
        yield from ([key, j] for j, item in enumerate(items) if isinstance(item, str))


def get(data: Any, path: list[Any]) -> Any:
    for part in path:
        data = data[part]
    return data


def check(data: Any, shown: str, reported: set[str]) -> Iterator[Problem]:
    """Variables where Flux will not fill them, or written in a form not accepted (keys the
    schema already refused, in `reported`, are not reported twice)."""
    if not isinstance(data, dict):
        return
    flux = data.get("flux")
    post = flux.get("postBuild") if isinstance(flux, dict) else None
    substitute = post.get("substitute") if isinstance(post, dict) else None
    known = set(substitute) if isinstance(substitute, dict) else set()
    elsewhere = isinstance(post, dict) and bool(post.get("substituteFrom"))
    # SubstituteVariables runs envsubst only when there is a variable to put in
    post_build = isinstance(post, dict) and (bool(known) or elsewhere)
    for path, _ in value_paths(data):
        text = get(data, path)
        key = key_path(path)
        if "$" not in text or key in reported:
            continue
        line, col = locate(data, path)
        found = syntax_problem(text)
        if found is not None:
            yield Problem(f"{quote(text)} {found[0]}", file=shown, line=line, col=col, key=key, hint=found[1])
        elif has_variables(text) and data.get("platform") == "eks":
            yield Problem(f"{quote(text)} holds a Flux variable, but the EKS add-on's configurationValues are applied "
                          "by `aws eks` (or ACK) from the rendered document, which Flux never substitutes",
                          file=shown, line=line, col=col, key=key, hint="write the value itself")
        elif has_variables(text) and not post_build:
            yield Problem(f"{quote(text)} holds a Flux variable, but the Flux Kustomization coredns-gen renders has no "
                          "postBuild (with a substitute or a substituteFrom), so Flux would apply it as the literal text",
                          file=shown, line=line, col=col, key=key, hint=POST_BUILD_HINT)
        elif not elsewhere and (empty := [m[1] for m in VAR.finditer(text) if m[2] is None and m[1] not in known]):
            yield Problem(f"{quote(text)}: Flux would substitute ${{{empty[0]}}} with an empty string: it is not under "
                          "postBuild.substitute, has no default, and there is no postBuild.substituteFrom",
                          file=shown, line=line, col=col, key=key,
                          hint=f"add {empty[0]} under flux.postBuild.substitute, a substituteFrom, or a default: ${{{empty[0]}:=value}}")


PROOF_WORD = "flux-variable"  # what the structural proof reads in place of every variable


def in_text(text: str, word: str = PROOF_WORD) -> str:
    """A rendered text with every variable (as accepted here) replaced by one bare word."""
    return VAR.sub(word, text) if "${" in text else text


def in_values(values: Values, fill: Callable[[str], str]) -> Values:
    """`values` with `fill` applied to every value that may hold variables (gen.fluxvars.value_paths)."""
    up = values.upstream
    if up is not None:
        up = up._replace(resolvers=tuple(map(fill, up.resolvers)), fallback=tuple(map(fill, up.fallback)))
    zones = tuple(z._replace(zone=fill(z.zone), upstreams=tuple(map(fill, z.upstreams)), fallback=tuple(map(fill, z.fallback)),
                             lines=tuple(map(fill, z.lines))) for z in values.zones)
    overrides = tuple(o._replace(lines=tuple(map(fill, o.lines))) for o in values.overrides)
    return values._replace(upstream=up, zones=zones, overrides=overrides)


def uses_variables(values: Values) -> bool:
    up = values.upstream
    texts = [*(up.resolvers + up.fallback if up else ()), *(o for z in values.zones for o in (z.zone, *z.upstreams, *z.fallback, *z.lines)),
             *(line for o in values.overrides for line in o.lines)]
    return any("${" in t for t in texts)


def filled(values: Values) -> Values:
    """`values` with each variable as Flux would fill it from postBuild.substitute, else its
    default (what `verify` runs).

    Raises:
        UsageError: a variable has neither (its value comes from a ConfigMap or Secret in the
            cluster, which this tool cannot read).
    """
    known = {k: v.replace("\n", "") for k, v in values.flux.substitute or ()}
    missing: list[str] = []

    def fill(text: str) -> str:
        def one(match: re.Match[str]) -> str:  # (`:=`: the default when unset or empty)
            if match[1] in known and (known[match[1]] != "" or match[2] is None):
                return known[match[1]]
            if match[2] is not None:
                return str(match[2])
            missing.append(match[1])
            return match[0]
        return VAR.sub(one, text) if "${" in text else text

    out = in_values(values, fill)
    if missing:
        raise UsageError(f"{values.source}: Flux fills {', '.join('${' + m + '}' for m in sorted(set(missing)))} from "
                         "postBuild.substituteFrom (a ConfigMap or Secret in the cluster), which is not in the values: "
                         "the Corefile CoreDNS would load cannot be known here, so it is not verified",
                         hint="add the value under flux.postBuild.substitute, or a default: ${NAME:=value}")
    return out
