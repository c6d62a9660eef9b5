"""Kubernetes label keys and values, checked as the API server checks them (apimachinery
`validation.IsQualifiedName` and `IsValidLabelValue`), so a label that would be refused at
apply time is refused at the values file's line instead.
"""

from __future__ import annotations

import re
from typing import Any, Iterator

from gen.errors import Problem, quote

_NAME = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")  # fullmatch, like Go's anchored regexps
_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
KEY_HINT = ("write an optional DNS prefix and '/', then at most 63 letters, digits, '-', '_' or '.' that start and end "
            "with a letter or digit, e.g. team or example.com/team")
VALUE_HINT = "use at most 63 letters, digits, '-', '_' or '.' that start and end with a letter or digit (or leave it empty)"


def key_problem(key: str) -> str | None:
    """Why `key` is not a label key Kubernetes accepts (None: it is one)."""
    prefix, slash, name = key.rpartition("/")
    if slash:
        if "/" in prefix:
            return "has more than one '/'"
        if not prefix:
            return "has an empty prefix before '/'"
        if len(prefix) > 253 or not _SUBDOMAIN.fullmatch(prefix):
            return f"has a prefix {quote(prefix, 40)} that is not a DNS subdomain (lower case, at most 253 characters)"
    if not name:
        return "has an empty name"
    if len(name) > 63:
        return f"has a name of {len(name)} characters; at most 63"
    if not _NAME.fullmatch(name):
        return "has a name with characters other than letters, digits, '-', '_' and '.' or that does not start and end with a letter or digit"
    return None


def value_problem(value: str) -> str | None:
    if len(value) > 63:
        return f"is {len(value)} characters long; at most 63"
    if value and not _NAME.fullmatch(value):
        return "has characters other than letters, digits, '-', '_' and '.' or does not start and end with a letter or digit"
    return None


def check(data: Any, shown: str) -> Iterator[Problem]:
    """`alert.labels` (the PrometheusRule's metadata.labels) and `flux.commonMetadata.labels`
    (which Flux puts on every object it applies from the overlay): Kubernetes label syntax."""
    alert = data.get("alert")
    flux = data.get("flux")
    meta = flux.get("commonMetadata") if isinstance(flux, dict) else None
    yield from _labels(alert.get("labels") if isinstance(alert, dict) else None, "alert.labels", shown)
    yield from _labels(meta.get("labels") if isinstance(meta, dict) else None, "flux.commonMetadata.labels", shown)
    # annotation keys follow the label key rule (a qualified name); their values are free text
    yield from _labels(meta.get("annotations") if isinstance(meta, dict) else None, "flux.commonMetadata.annotations", shown,
                       values=False)


def _labels(labels: Any, where: str, shown: str, values: bool = True) -> Iterator[Problem]:
    if not isinstance(labels, dict):
        return
    lc = getattr(labels, "lc", None)
    for key, value in labels.items():
        if not isinstance(key, str):
            continue  # the schema reports a key that is not a string
        key_line, key_col = (lc.key(key)[0] + 1, lc.key(key)[1] + 1) if lc is not None else (None, None)
        value_line, value_col = (lc.value(key)[0] + 1, lc.value(key)[1] + 1) if lc is not None else (None, None)
        why = key_problem(key)
        if why:
            yield Problem(f"{'label' if values else 'annotation'} key {quote(key)} {why}", file=shown, line=key_line, col=key_col, key=where,
                          hint=KEY_HINT)
        elif values and isinstance(value, str) and (why := value_problem(value)):
            yield Problem(f"label value {quote(value)} {why}", file=shown, line=value_line, col=value_col,
                          key=f"{where}.{key}", hint=VALUE_HINT)
