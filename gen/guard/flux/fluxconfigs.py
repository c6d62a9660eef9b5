"""Azure's Flux extension (`Microsoft.KubernetesConfiguration/fluxConfigurations`): the Flux
configurations a repository's Bicep, ARM templates, Terraform and `az` scripts create.

On AKS (and Azure Arc) Flux is usually installed by the `microsoft.flux` cluster extension, and a
cluster's roots are written outside YAML: a fluxConfiguration names one source (`gitRepository:
{url, repositoryRef}`) and its `kustomizations` (`{infra: {path, prune, dependsOn}}`). The
extension makes, in the configuration's `namespace`, a GitRepository named after the
configuration and a Kustomization `<configuration>-<kustomization>` per entry (Azure's GitOps
tutorial: configuration `cluster-config` makes `cluster-config/cluster-config-infra`). Each
writer's own defaults are kept: `prune` is false unless written (Azure's fluxConfigurations API and
`az k8s-configuration flux create --kustomization`), Terraform's `garbage_collection_enabled` is
false unless written (azurerm provider docs), a missing `path` is the repository's root, and the
namespace `az` and ARM fall back to is `default`. A `prune` written as an expression is taken as
true: the guard cannot tell, so it fails closed.

These readers are tolerant, not full parsers of Bicep or HCL: they read literal values and mark
everything else (a parameter, a function call, an interpolation) as a variable, `${}`, which the
caller treats like any other templated path (gen/guard/flux/bootstraps.py). ARM templates are JSON
and read with the JSON parser. A `null` is a value not written, in all three: Bicep and ARM leave
the property out of the request, Terraform takes the provider's default (`repositoryRef: {branch:
'main', tag: null}` is a branch, mspnp/aks-baseline's cluster-stamp.bicep writes it so).
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field, replace
from typing import Any, Literal

Tool = Literal["bicep", "arm", "terraform", "az-cli"]
TOOL_LABEL: dict[Tool, str] = {"bicep": "Bicep", "arm": "ARM template", "terraform": "Terraform",
                               "az-cli": "az k8s-configuration flux create"}
VAR = "${}"  # a value the file does not write literally
TYPE = "microsoft.kubernetesconfiguration/fluxconfigurations"
_REF_KEYS = ("branch", "tag", "semver", "commit")


@dataclass(frozen=True)
class FluxKustomization:
    name: str
    path: str  # as written, variables as VAR; "" when not written (the repository root)
    prune: bool
    depends_on: tuple[str, ...] = ()


@dataclass(frozen=True)
class FluxConfig:
    """One fluxConfiguration as its file writes it."""

    tool: Tool
    line: int
    name: str
    namespace: str
    kind: str  # the source kind: GitRepository, or what the extension syncs instead (Bucket, …)
    url: str
    ref: tuple[tuple[str, str], ...]
    kustomizations: tuple[FluxKustomization, ...] = field(default=())


class _Expr(str):
    """A value written as an expression, not a literal."""


class _Body(list):  # type: ignore[type-arg]
    """An HCL block's body: (name, value or body, offset) entries."""


def _text(value: Any) -> str:
    """A written value as text, any expression part as VAR."""
    if isinstance(value, _Expr):
        return VAR
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value) if isinstance(value, (str, int)) else VAR


def _prune(value: Any) -> bool:
    """A Kustomization's prune: as written, false when not written (every writer's default), and
    true when written as an expression (a parameter, a variable): the guard cannot tell, so it
    judges the removals as the deletions they may be rather than pass them as orphans."""
    if value is None:
        return False
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and not isinstance(value, _Expr) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    return True


def _name(value: Any) -> str:
    """An object name; a name the file does not write is unknown, said as such."""
    text = _text(value)
    return text.rsplit("/", 1)[-1] if text and VAR not in text else "(unnamed)"


def _from_properties(tool: Tool, line: int, name: Any, props: dict[str, Any]) -> FluxConfig:
    """A configuration from its ARM/Bicep `properties`."""
    git: dict[str, Any] = props["gitRepository"] if isinstance(props.get("gitRepository"), dict) else {}
    ref_in: dict[str, Any] = git["repositoryRef"] if isinstance(git.get("repositoryRef"), dict) else {}
    ref = tuple((k, _text(ref_in[k])) for k in _REF_KEYS if k in ref_in)
    kind = _text(props.get("sourceKind", "GitRepository"))
    found = []
    kustomizations = props.get("kustomizations")
    for ks_name, spec in (kustomizations.items() if isinstance(kustomizations, dict) else []):
        spec = spec if isinstance(spec, dict) else {}
        deps = spec.get("dependsOn")
        found.append(FluxKustomization(
            _name(ks_name), _text(spec.get("path", "")), _prune(spec.get("prune")),
            tuple(_text(d) for d in deps) if isinstance(deps, list) else ()))
    return FluxConfig(tool, line, _name(name), _text(props.get("namespace", "default")) or "default", kind,
                      _text(git.get("url", "")), ref, tuple(found))


# -- ARM templates (JSON) -------------------------------------------------------------------------
_ARM_LITERAL = re.compile(r"'((?:[^']|'')*)'")
_ARM_TYPE_LINE = re.compile(r'"type"\s*:\s*"' + re.escape(TYPE), re.I)


def _arm(value: Any) -> Any:
    """An ARM template value: `[expression]` strings become text with VAR for every part that is
    not a literal (`concat('./clusters/', parameters('env'))` is `./clusters/${}`); `[[` escapes."""
    if isinstance(value, dict):
        return {k: _arm(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_arm(v) for v in value]
    if not isinstance(value, str) or not value.startswith("[") or value.startswith("[["):
        return value[1:] if isinstance(value, str) and value.startswith("[[") else value
    expr = value[1:-1].strip()
    call = re.fullmatch(r"(concat|format)\((.*)\)", expr, re.S)
    if call is None:
        return _Expr(VAR)
    args = _split_args(call[2])
    pieces = []
    for index, arg in enumerate(args):
        literal = _ARM_LITERAL.fullmatch(arg.strip())
        text = literal[1].replace("''", "'") if literal else None
        if call[1] == "format":
            if index == 0:
                pieces.append(re.sub(r"\{\d+\}", VAR, text) if text is not None else VAR)
            continue
        pieces.append(text if text is not None else VAR)
    return "".join(pieces) if pieces else _Expr(VAR)


def _split_args(text: str) -> list[str]:
    out, depth, start, quoted = [], 0, 0, False
    for i, ch in enumerate(text):
        if ch == "'":
            quoted = not quoted
        elif not quoted and ch in "([":
            depth += 1
        elif not quoted and ch in ")]":
            depth -= 1
        elif not quoted and ch == "," and depth == 0:
            out.append(text[start:i])
            start = i + 1
    out.append(text[start:])
    return out


def arm_configs(raw: str) -> list[FluxConfig]:
    """The fluxConfigurations resources of an ARM template (at any depth: nested deployments)."""
    try:
        doc = json.loads(raw)
    except ValueError:
        return []
    out: list[FluxConfig] = []
    lines = [i for i, text in enumerate(raw.splitlines(), 1) if _ARM_TYPE_LINE.search(text)]

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            kind = node.get("type")
            if isinstance(kind, str) and kind.lower().split("@")[0] == TYPE and isinstance(node.get("properties"), dict):
                line = lines[len(out)] if len(out) < len(lines) else (lines[-1] if lines else 1)
                out.append(_from_properties("arm", line, _arm(node.get("name", "")), _arm(node["properties"])))
                return
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(doc)
    return out


# -- Bicep ----------------------------------------------------------------------------------------
# Azure Verified Modules' flux-configuration module: its params are the resource's properties and name
_BICEP_MODULE = re.compile(r"^[ \t]*module\s+\w+\s+'(?:br/public:|br:mcr\.microsoft\.com/bicep/)"
                           r"avm/res/kubernetes-configuration/flux-configuration(?::[^']*)?'\s*=\s*", re.M | re.I)
_BICEP_RESOURCE = re.compile(r"^[ \t]*resource\s+\w+\s+'(?P<type>Microsoft\.KubernetesConfiguration/fluxConfigurations)"
                             r"(?:@[^']*)?'\s+(?:existing\s+)?=\s*", re.M | re.I)


class _Reader:
    """A tolerant reader of Bicep values and HCL bodies: literals read, the rest an _Expr."""

    def __init__(self, text: str, hcl: bool = False) -> None:
        self.text, self.i, self.hcl = text, 0, hcl

    def skip(self, newlines: bool = True) -> None:
        t = self.text
        while self.i < len(t):
            ch = t[self.i]
            if ch in " \t\r" or (newlines and (ch == "\n" or ch == ",")):
                self.i += 1
            elif t.startswith("//", self.i) or (self.hcl and ch == "#"):
                end = t.find("\n", self.i)
                self.i = len(t) if end < 0 else end
            elif t.startswith("/*", self.i):
                end = t.find("*/", self.i)
                self.i = len(t) if end < 0 else end + 2
            else:
                return

    def value(self) -> Any:
        self.skip(newlines=False)
        t = self.text
        if self.i >= len(t):
            return _Expr(VAR)
        ch = t[self.i]
        if ch == "{":
            return self.obj()
        if ch == "[":
            return self.array()
        if ch in "'\"" and not (self.hcl and ch == "'"):
            return self.string(ch)
        wrapped = re.compile(r"jsonencode\s*\(").match(t, self.i) if self.hcl else None
        if wrapped is not None:  # Terraform's jsonencode({...}): the object it encodes
            self.i = wrapped.end()
            inner = self.value()
            self.skip()
            self.i += 1 if self.i < len(t) and t[self.i] == ")" else 0
            return inner
        if not self.hcl and t.startswith("if", self.i) and re.match(r"if\s*\(", t[self.i:]):
            self.balanced("(", ")")
            return self.value()
        return self.expression()

    def string(self, quote: str) -> Any:
        t = self.text
        if not self.hcl and t.startswith("'''", self.i):
            end = t.find("'''", self.i + 3)
            end = len(t) if end < 0 else end
            text, self.i = t[self.i + 3:end], end + 3
            return text
        self.i += 1
        out: list[str] = []
        while self.i < len(t) and t[self.i] != quote:
            if t[self.i] == "\\" and self.i + 1 < len(t):
                out.append(t[self.i + 1])
                self.i += 2
            elif t.startswith("${", self.i):
                self.balanced("{", "}", start=self.i + 1)
                out.append(VAR)
            else:
                out.append(t[self.i])
                self.i += 1
        self.i += 1
        return "".join(out)

    def balanced(self, open_: str, close: str, start: int | None = None) -> None:
        """Skip from an opening bracket past its match (strings inside skipped)."""
        t, depth = self.text, 0
        self.i = self.i if start is None else start
        while self.i < len(t):
            ch = t[self.i]
            if ch in "'\"":
                self.string(ch)
                continue
            if ch == open_:
                depth += 1
            elif ch == close:
                depth -= 1
                if depth == 0:
                    self.i += 1
                    return
            self.i += 1

    def expression(self) -> Any:
        t, start, depth = self.text, self.i, 0
        while self.i < len(t):
            ch = t[self.i]
            if ch in "'\"":
                self.string(ch)
                continue
            if ch in "([{":
                depth += 1
            elif ch in ")]}":
                if depth == 0:
                    break
                depth -= 1
            elif depth == 0 and ch in "\n,":
                break
            self.i += 1
        word = t[start:self.i].strip()
        if word == "null":
            return None
        if word in ("true", "false"):
            return word == "true"
        if re.fullmatch(r"-?\d+", word):
            return int(word)
        return _Expr(word or VAR)

    def key(self) -> str | None:
        self.skip()
        t = self.text
        if self.i >= len(t) or t[self.i] in "}]":
            return None
        if t[self.i] in "'\"":
            return str(self.string(t[self.i]))
        m = re.compile(r"[A-Za-z_][\w.-]*").match(t, self.i)
        if m is None:
            self.i += 1
            return ""
        self.i = m.end()
        return m[0]

    def obj(self) -> dict[str, Any]:
        """A Bicep object `{ key: value … }`, or an HCL object `{ key = value … }`."""
        self.i += 1
        out: dict[str, Any] = {}
        while True:
            key = self.key()
            if key is None:
                break
            self.skip(newlines=False)
            if self.i < len(self.text) and self.text[self.i] in ":=":
                self.i += 1
                value = self.value()
                if value is not None:  # `key: null` is the key not written
                    out[key] = value
            elif key:
                out[key] = _Expr(VAR)
        self.i += 1
        return out

    def array(self) -> Any:
        self.i += 1
        self.skip()
        if re.match(r"for\s", self.text[self.i:]):  # [for x in xs: {...}]: the body, once
            depth = 0
            while self.i < len(self.text):
                ch = self.text[self.i]
                if ch in "([":
                    depth += 1
                elif ch in ")]":
                    depth -= 1
                elif ch == ":" and depth == 0:
                    break
                self.i += 1
            self.i += 1
            item = self.value()
            self.skip()
            self.i += 1
            return item
        out = []
        while True:
            self.skip()
            if self.i >= len(self.text) or self.text[self.i] == "]":
                break
            before = self.i
            out.append(self.value())
            if self.i == before:
                self.i += 1
        self.i += 1
        return out

    def body(self) -> _Body:
        """An HCL body `{ attr = value  block "label" { … } … }`: (name, value or body, offset)."""
        self.i += 1
        out = _Body()
        while True:
            at = self.i
            key = self.key()
            if key is None:
                break
            self.skip(newlines=False)
            while self.i < len(self.text) and self.text[self.i] in "'\"":  # block labels
                self.string(self.text[self.i])
                self.skip(newlines=False)
            if self.i < len(self.text) and self.text[self.i] == "=":
                self.i += 1
                value = self.value()
                if value is not None:  # `attr = null`: the provider's default, as if not written
                    out.append((key, value, at))
            elif self.i < len(self.text) and self.text[self.i] == "{":
                out.append((key, self.body(), at))
        self.i += 1
        return out


def bicep_configs(raw: str) -> list[FluxConfig]:
    """The fluxConfigurations resources of a Bicep file (a `[for …]` loop read once), and the
    Azure Verified Modules' flux-configuration module's (`params` are its properties)."""
    out = []
    for pattern, key in ((_BICEP_RESOURCE, "properties"), (_BICEP_MODULE, "params")):
        for match in pattern.finditer(raw):
            reader = _Reader(raw)
            reader.i = match.end()
            value = reader.value()
            if isinstance(value, dict) and isinstance(value.get(key), dict):
                name = value.get("name", "") if key == "properties" else value[key].get("name", "")
                out.append(_from_properties("bicep", raw.count("\n", 0, match.start()) + 1, name, value[key]))
    return sorted(out, key=lambda c: c.line)


# -- Terraform (azurerm, azapi) -------------------------------------------------------------------
_TF_RESOURCE = re.compile(r"\bresource\s+\"azurerm_kubernetes_flux_configuration\"\s+\"[^\"]*\"\s*(?=\{)")
_TF_AZAPI = re.compile(r"\bresource\s+\"azapi_resource\"\s+\"[^\"]*\"\s*(?=\{)")


def terraform_configs(raw: str) -> list[FluxConfig]:
    """`azurerm_kubernetes_flux_configuration` resources: `git_repository { url reference_type
    reference_value }` and `kustomizations { name path garbage_collection_enabled depends_on }`
    blocks (a `dynamic "kustomizations"` block is no evidence: its paths are variables); and
    `azapi_resource`s of the fluxConfigurations type, whose `body` (or `jsonencode(…)` of it) is
    the ARM resource's, read as ARM's `properties`."""
    out = []
    for match in _TF_RESOURCE.finditer(raw):
        reader = _Reader(raw, hcl=True)
        reader.i = match.end()
        body = reader.body()
        attrs = {k: v for k, v, _ in body if not isinstance(v, _Body)}
        blocks = [(k, v) for k, v, _ in body if isinstance(v, _Body)]
        git = next((dict((k, v) for k, v, _ in b) for name, b in blocks if name == "git_repository"), None)
        kind = "GitRepository" if git is not None else next(
            (name for name, _ in blocks if name in ("bucket", "blob_storage")), "GitRepository")
        git = git or {}
        ref_type = _text(git.get("reference_type", ""))
        ref = ((ref_type, _text(git.get("reference_value", ""))),) if ref_type in _REF_KEYS else ()
        found = []
        for name, block in blocks:
            if name != "kustomizations":
                continue
            spec = {k: v for k, v, _ in block}
            deps = spec.get("depends_on")
            found.append(FluxKustomization(
                _name(spec.get("name", "")), _text(spec.get("path", "")),
                _prune(spec.get("garbage_collection_enabled")),
                tuple(_text(d) for d in deps) if isinstance(deps, list) else ()))
        out.append(FluxConfig("terraform", raw.count("\n", 0, match.start()) + 1, _name(attrs.get("name", "")),
                              _text(attrs.get("namespace", "default")) or "default", kind,
                              _text(git.get("url", "")), ref, tuple(found)))
    for match in _TF_AZAPI.finditer(raw):  # the ARM resource itself: `body = { properties = {…} }`
        reader = _Reader(raw, hcl=True)
        reader.i = match.end()
        resource = {k: v for k, v, _ in reader.body() if not isinstance(v, _Body)}
        payload = resource.get("body")
        if _text(resource.get("type", "")).lower().split("@")[0] == TYPE and isinstance(payload, dict) \
                and isinstance(payload.get("properties"), dict):
            out.append(_from_properties("terraform", raw.count("\n", 0, match.start()) + 1, resource.get("name", ""),
                                        payload["properties"]))
    return sorted(out, key=lambda c: c.line)


# -- az k8s-configuration flux create / flux kustomization create ---------------------------------
_AZ = re.compile(r"\baz\s+k8s-configuration\s+flux\s+(?P<verb>create|kustomization\s+create)\b(?P<rest>[^\n;&|]*)")
_AZ_TEMPLATE = re.compile(r"\$\{\{[^}]*\}\}|\$\{[^}]*\}|\$\([^)]*\)|\$[A-Za-z_][A-Za-z0-9_:]*")
_AZ_OPTS = {"-n": "name", "--name": "name", "--namespace": "namespace", "--ns": "namespace", "-u": "url",
            "--url": "url", "--branch": "branch", "--tag": "tag", "--semver": "semver", "--commit": "commit",
            "--kind": "kind"}
# `flux kustomization create`: -k is the kustomization's name there
_AZ_KS_OPTS = {"-n": "name", "--name": "name", "-k": "kustomization", "--kustomization-name": "kustomization",
               "--path": "path", "--prune": "prune", "--dependencies": "depends_on", "--depends": "depends_on",
               "--depends-on": "depends_on"}


def az_configs(text: str, raw: str) -> list[FluxConfig]:
    """The configurations a script's `az k8s-configuration flux create` lines make (continuations
    joined in `text`, lines counted in `raw`), with the kustomizations `az k8s-configuration flux
    kustomization create` adds to one of them in the same file (one the file does not create has
    no source known here, so no evidence)."""
    configs: list[FluxConfig] = []
    for match in _AZ.finditer(text):
        line = raw.count("\n", 0, match.start()) + 1
        words = _az_words(match["rest"])
        if match["verb"] == "create":
            config = _az_create(words, line)
            if config is not None:
                configs.append(config)
            continue
        opts, _ = _az_options(words, _AZ_KS_OPTS, ())
        for index, config in enumerate(configs):
            if config.name == opts.get("name") and opts.get("kustomization"):
                added = FluxKustomization(opts["kustomization"], opts.get("path", ""),
                                          _prune(opts.get("prune") or "true" if "prune" in opts else None),
                                          _az_list(opts.get("depends_on", "")))
                configs[index] = replace(config, kustomizations=config.kustomizations + (added,))
    return [c for c in configs if c.kustomizations]


def _az_words(rest: str) -> list[str]:
    """The command's words, shell variables kept as written (shlex would expand no `$`, but a
    quote or backslash inside `${{ … }}` must not split it)."""
    originals = iter(m[0] for m in _AZ_TEMPLATE.finditer(rest))
    masked = _AZ_TEMPLATE.sub("\0", rest)
    try:
        words = shlex.split(masked, comments=True, posix=True)
    except ValueError:
        words = masked.split()
    return [re.sub("\0", lambda _: next(originals, VAR), w) for w in words]


def _az_list(text: str) -> tuple[str, ...]:
    """`["infra","apps"]`, `[infra]` or `infra,apps` as names."""
    return tuple(d.strip(" '\"") for d in text.strip("[]").split(",") if d.strip(" '\""))


def _az_options(words: list[str], names: dict[str, str], groups: tuple[str, ...]) -> tuple[dict[str, str], list[dict[str, str]]]:
    """The options `names` maps (`--flag value`, `--flag=value`), and each `groups` flag's
    `key=value` words (`--kustomization name=infra path=./infra prune=true`)."""
    opts: dict[str, str] = {}
    grouped: list[dict[str, str]] = []
    i = 0
    while i < len(words):
        flag, eq, inline = words[i].partition("=") if words[i].startswith("--") else (words[i], "", "")
        if flag in groups:
            spec: dict[str, str] = {}
            i += 1
            while i < len(words) and not words[i].startswith("-") and "=" in words[i]:
                key, _, val = words[i].partition("=")
                spec[key.replace("-", "_").lower()] = val
                i += 1
            grouped.append(spec)
            continue
        if flag.startswith("-"):
            value = inline if eq else (words[i + 1] if i + 1 < len(words) and not words[i + 1].startswith("-") else "")
            if flag in names:
                opts[names[flag]] = value
            i += 1 if eq or not value else 2
            continue
        i += 1
    return opts, grouped


def _az_create(words: list[str], line: int) -> FluxConfig | None:
    """One `az k8s-configuration flux create` command."""
    opts, kustomizations = _az_options(words, _AZ_OPTS, ("--kustomization", "-k"))
    kind = opts.get("kind", "git").lower()
    found = []
    for spec in kustomizations:
        found.append(FluxKustomization(
            spec.get("name", "(unnamed)"), spec.get("path", ""), _prune(spec.get("prune")),
            _az_list(spec.get("dependson") or spec.get("depends_on") or "")))
    return FluxConfig("az-cli", line, opts.get("name") or "(unnamed)", opts.get("namespace") or "default",
                      "GitRepository" if kind == "git" else kind, opts.get("url", ""),
                      tuple((k, opts[k]) for k in _REF_KEYS if k in opts), tuple(found))
