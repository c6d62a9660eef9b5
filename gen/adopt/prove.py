"""The proof of an import: render the values in memory and compare what CoreDNS would load with
what it loads today, structurally, through CoreDNS's own parser.

Both sides are the effective Corefile (gen.lint.effective: the repository's own Corefile, or the
platform's stock one with the coredns-custom keys spliced in where it imports them), parsed and
written out in one canonical form, so only what CoreDNS reads differently differs. The canonical
form leaves out what CoreDNS does not read as a difference:
  - comments, layout, quoting;
  - the order of server blocks (a query goes to the block with the longest matching zone) and of
    different plugins in a block (CoreDNS runs them in its compiled order, plugin.cfg; the order
    of the same plugin's lines, such as two `forward`s, is kept);
  - a zone's spelling (`Example.com.:53` and `example.com:53` are one zone; a missing port is 53);
  - `policy random` on a forward (CoreDNS's default), and any policy of a forward with one upstream;
  - the order of a forward's or a cache's options (their setup sets one field per option, whatever the order);
  - an import that matches no file (CoreDNS imports nothing then).
The chart values of RKE2 beyond `servers` and an EKS add-on's configurationValues beyond
`corefile` are compared key by key.
"""

from __future__ import annotations

import difflib
import json
from typing import Any, Iterable, Mapping, NamedTuple

from gen import yamlio
from gen.adopt.mapping import corefile_lines
from gen.adopt.differences import Difference
from gen.corefile import Directive, ServerKey, normalize_zone, parse_corefile
from gen.corefile.facts import DEFAULT_PORT, FORWARD_DEFAULT_POLICY
from gen.errors import Problem
from gen.lint.effective import effective_corefile
from gen.lint.reader import ManifestError
from gen.platforms.base import ObjectRef, Platform
from gen.platforms.stock_edit import STOCK_EDITED
from gen.rendered import RenderedFile



def rendered_objects(files: list[RenderedFile], documents: list[tuple[str, str]]) -> list[dict[str, Any]]:
    """The objects a render applies; EKS's configurationValues document stands as the add-on it configures."""
    objects = [dict(o) for f in files for o in f.objects]
    if documents and not any(o.get("kind") == "Addon" for o in objects):
        objects.append({"apiVersion": "eks.services.k8s.aws/v1alpha1", "kind": "Addon",
                        "metadata": {"name": "coredns", "namespace": "kube-system"},
                        "spec": {"name": "coredns", "configurationValues": documents[0][1]}})
    return objects


def _key(text: str) -> str:
    """A server block address as CoreDNS serves it: the zone normalised (a Flux `${VAR}` kept as
    written: Flux's names are case-sensitive), the port CoreDNS listens on when none is written."""
    key = ServerKey.parse(text)
    normal = normalize_zone(key.zone) if "${" not in key.zone else key.zone.rstrip(".") + "."
    if normal is None:
        return text
    return ("" if key.scheme == "dns" else key.scheme + "://") + normal + ":" + (key.port or DEFAULT_PORT)


def _directive(d: Directive) -> Directive:
    block = None if d.block is None else [_directive(x) for x in d.block]
    if d.name == "forward" and block is not None:
        single = len(d.args) == 2
        block = [o for o in block if not (o.name == "policy" and (single or o.args == [FORWARD_DEFAULT_POLICY]))]
        block = sorted(block, key=lambda o: o.name) or None  # (each option sets its own field: order means nothing)
    elif d.name == "cache" and block is not None:  # (the same: `disable success` and `disable denial` are two fields)
        block = sorted(block, key=lambda o: o.render(0))
    return Directive(d.name, list(d.args), d.line, block=block)


def canonical(text: str, name: str) -> list[tuple[str, str]]:
    """(server block head, line) of the Corefile as CoreDNS reads it, in canonical form."""
    blocks = []
    for block in parse_corefile(text, filename=name).server_blocks:
        keys = sorted(_key(k) for k in block.keys)
        directives = sorted((_directive(d) for d in block.directives), key=lambda d: d.name)
        blocks.append((" ".join(keys), directives))
    out: list[tuple[str, str]] = []
    for head, directives in sorted(blocks, key=lambda b: b[0]):
        out.append((head, head + " {"))
        out += [(head, line) for d in directives for line in corefile_lines(d.render(1))]
        out.append((head, "}"))
    return out


class Proof(NamedTuple):
    diff: str  # unified diff, input -> render, of the canonical effective Corefiles ("" when equal)
    differences: list[Difference]  # what the diff shows that no named difference accounts for, and value keys


def _flat(node: Any, prefix: str) -> dict[str, str]:
    if isinstance(node, dict):
        out: dict[str, str] = {}
        for k, v in node.items():
            out.update(_flat(v, f"{prefix}.{k}" if prefix else str(k)))
        return out or {prefix: "{}"}
    return {prefix: json.dumps(node, sort_keys=True)}


def _extra_values(objects: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """RKE2 chart values beyond `servers`, EKS configurationValues beyond `corefile`, flattened."""
    out: dict[str, str] = {}
    for obj in objects:
        spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
        assert isinstance(spec, dict)
        if obj.get("kind") == "HelmChartConfig":
            docs = yamlio.load_all_safe(str(spec.get("valuesContent") or ""))
            values = docs[0] if docs and isinstance(docs[0], dict) else {}
            out.update(_flat({k: v for k, v in values.items() if k != "servers"}, "valuesContent"))
        elif obj.get("kind") == "Addon":
            values = json.loads(str(spec.get("configurationValues") or "{}"))
            out.update(_flat({k: v for k, v in values.items() if k != "corefile"}, "configurationValues"))
            out.update(_flat({k: v for k, v in spec.items() if k not in ("configurationValues", "name")}, "Addon spec"))
    return {k: v for k, v in out.items() if k not in ("valuesContent", "configurationValues", "Addon spec")}


def prove(held: list[dict[str, Any]], rendered: list[dict[str, Any]], platform: Platform, release: str,
          named: list[Difference]) -> Proof:
    """Compare the input's effective Corefile and extra values with the render's.

    Raises:
        ManifestError: what CoreDNS would load from the input does not parse (exit 2).
    """
    before = effective_corefile(held, platform, release)
    after = effective_corefile(rendered, platform, release)
    differences: list[Difference] = []
    if before is not None and before.problem:  # nothing to reproduce: CoreDNS itself would refuse it
        raise ManifestError(Problem(f"what CoreDNS would load ({before.origin}) does not parse: {before.problem}",
                                    key="PATH", hint="fix the input first (`coredns-gen lint --load` shows it in CoreDNS)"))
    if after is not None and after.problem:
        differences.append(Difference("the Corefile of the render", after.origin, f"does not parse: {after.problem}"))
        return Proof("", differences)
    a = canonical(before.text, "input") if before is not None else []
    b = canonical(after.text, "render") if after is not None else []
    left, right = [line for _, line in a], [line for _, line in b]
    diff = "".join(difflib.unified_diff([f"{x}\n" for x in left], [f"{x}\n" for x in right],
                                        "what CoreDNS loads now", "what CoreDNS loads from the imported values", n=2))
    accounted: dict[str, int] = {}
    added = {_key(head) for d in named for head in d.adds}
    default = _key(f".:{platform.SERVER_PORT}")
    kept = (f" ({platform.NAME} {release}'s stock default server block is kept as the platform writes it; values "
            "change only its root forward (upstream), and send zones elsewhere with zones[])")
    if platform.NAME in STOCK_EDITED:
        kept = (f" ({platform.NAME} {release}'s stock default server block is kept as the platform writes it, changed "
                "only by upstream (its root forward) and defaultBlock (cache, omit, lines))")
    for d in named:
        for line in d.lines:
            accounted[line.strip()] = accounted.get(line.strip(), 0) + 1
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, left, right, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        for head, line in a[i1:i2]:
            if accounted.get(line.strip(), 0) > 0:
                accounted[line.strip()] -= 1
            elif line.strip() != "}" and line != f"{head} {{":
                differences.append(Difference(f"server block {head}", f"`{line.strip()}`",
                                              f"is not in the render: no values key says it{kept if head == default else ''}"))
        for head, line in b[j1:j2]:
            if line.strip() != "}" and line != f"{head} {{" and head not in added:
                differences.append(Difference(f"server block {head}", f"`{line.strip()}`",
                                              f"the render adds it{kept if head == default else ''}"))
    theirs, ours = _extra_values(held), _extra_values(rendered)
    for key in sorted(set(theirs) | set(ours)):
        if theirs.get(key) != ours.get(key):
            why = "no values key says it" if key not in ours else \
                "the render adds it" if key not in theirs else f"the render says {ours[key]}"
            differences.append(Difference(key, theirs.get(key, "(not set)"), why))
    return Proof(diff, differences)


def _ref(obj: Mapping[str, Any]) -> ObjectRef:
    meta = obj.get("metadata") or {}
    return ObjectRef(str(obj.get("kind")), str(meta.get("namespace") or "kube-system"), str(meta.get("name")))


def compare_others(others: list[dict[str, Any]], rendered: list[dict[str, Any]], platform: Platform) -> tuple[list[Difference], list[str]]:
    """The input's other cluster DNS objects (an HPA, a PDB, a PrometheusRule) against the
    render's, `spec` key by key; the platform's own (its Deployment) are left as they are.
    Returns (differences, notes); an object the render adds by design is a note."""
    mine = {_ref(o): o for o in rendered}
    diffs: list[Difference] = []
    notes: list[str] = []
    seen = set()
    for obj in others:
        ref = _ref(obj)
        seen.add(ref)
        if ref in platform.NEVER_TOUCH:
            notes.append(f"{ref} is {platform.NAME}'s own and stays as it is")
            continue
        ours = mine.get(ref)
        if ours is None and not any(_ref(o).kind == ref.kind for o in rendered):
            # a kind the render never writes on this platform (a PDB beside a self-managed
            # CoreDNS on Talos): nothing of it moves, so nothing is lost as long as its file stays
            notes.append(f"{ref}: coredns-gen renders no {ref.kind} on {platform.NAME}; it stays as it is: keep its file "
                         "when the old DNS files go")
            continue
        if ours is None:
            diffs.append(Difference(str(ref), "the whole object", f"coredns-gen does not render it on {platform.NAME}: "
                                                                  "no values key says it"))
            continue
        theirs_spec, our_spec = _flat(obj.get("spec") or {}, "spec"), _flat(ours.get("spec") or {}, "spec")
        for key in sorted(set(theirs_spec) | set(our_spec)):
            if theirs_spec.get(key) != our_spec.get(key):
                why = "no values key says it" if key not in our_spec else \
                    "the render adds it" if key not in theirs_spec else f"the render says {our_spec[key]}"
                diffs.append(Difference(f"{ref} {key}", theirs_spec.get(key, "(not set)"), why))
    for ref in sorted(set(mine) - seen - {_ref(o) for o in rendered if o.get("kind") in ("ConfigMap", "HelmChartConfig", "Addon")}):
        if ref.kind != "Kustomization":
            notes.append(f"the render adds {ref} (coredns-gen renders it on {platform.NAME})")
    return diffs, notes
