"""`--inventory FILE`: what Flux really has in place, from
`kubectl get kustomizations.kustomize.toolkit.fluxcd.io -A -o json`.

Inventory refs carry no cluster: pass `--path clusters/<name>` with one cluster's file.
With it, the objects a Kustomization would prune are its `status.inventory` entries missing
from its head build (not only its base build): a cluster that still holds an object git
dropped long ago is judged as it really is.
"""

from __future__ import annotations

import json
from pathlib import Path

from gen.errors import Problem, UsageError
from gen.guard.model import KsRef, ObjKey
from gen.inputfile import read_user_file


def load_inventory(path: Path) -> dict[KsRef, set[ObjKey]]:
    text = read_user_file(path, str(path), error=UsageError, yaml=False,
                          missing_hint="pass the output of `kubectl get kustomizations.kustomize.toolkit.fluxcd.io -A -o json`")
    try:
        data = json.loads(text)
    except RecursionError:
        raise UsageError(Problem("nested too deeply to be kubectl output", str(path), key="--inventory",
                                 hint="pass unedited `kubectl get ... -o json` output")) from None
    except json.JSONDecodeError as err:
        raise UsageError(Problem(f"not JSON: {err.msg}", str(path), err.lineno, err.colno, key="--inventory",
                                 hint="use `-o json`, not `-o yaml`")) from None
    items = data.get("items") if isinstance(data, dict) else None
    if data.get("kind") == "Kustomization" if isinstance(data, dict) else False:
        items = [data]
    if not isinstance(items, list):
        raise UsageError(Problem("no `items` list", str(path), key="--inventory",
                                 hint="pass the output of `kubectl get kustomizations.kustomize.toolkit.fluxcd.io -A -o json`"))
    out: dict[KsRef, set[ObjKey]] = {}
    for i, item in enumerate(items):
        meta = item.get("metadata") or {} if isinstance(item, dict) else {}
        if not meta.get("name"):
            raise UsageError(Problem("item has no metadata.name", str(path), key=f"items[{i}]",
                                     hint="pass unedited `kubectl get ... -o json` output"))
        entries = ((item.get("status") or {}).get("inventory") or {}).get("entries") or []
        keys: set[ObjKey] = set()
        for j, entry in enumerate(entries):
            key = ObjKey.parse(str((entry or {}).get("id", "")))
            if key is None:
                raise UsageError(Problem(f"bad inventory id {entry!r}", str(path),
                                         key=f"items[{i}].status.inventory.entries[{j}].id",
                                         hint="ids look like <namespace>_<name>_<group>_<kind>"))
            keys.add(key)
        out[KsRef("", str(meta.get("namespace") or "default"), str(meta["name"]))] = keys
    return out
