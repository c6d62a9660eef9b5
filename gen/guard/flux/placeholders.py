"""The values the guard substitutes for a variable it cannot read, and how they are shown again.

A `postBuild.substituteFrom` source the repository cannot show (a SOPS-encrypted Secret, one an
ExternalSecret makes, a ConfigMap made by hand) still sets its variables in the cluster. The guard
builds such a Kustomization twice, as Flux does, with each such variable set to one of two
placeholders (gen/guard/flux/unread.py): text that no repository writes, so wherever it shows up
in a build, the variable reached it. Findings and the Corefile view show a placeholder as the
variable it stands for (`${SECRET_DOMAIN}`), never as a value. So do they show a token, which is
how a SOPS value decrypted with the CI's key is written (gen/guard/flux/secrets.py).

A placeholder holds the variable's name between `-` (never part of a name Flux substitutes), so
it maps back exactly; it is lower-case letters, digits and `-` around the name, which keeps it a
valid word in a hostname, a Corefile and a YAML plain scalar.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Literal

from gen.finding import Finding

Which = Literal[1, 2]
PREFIX = "zz-cgvar"  # how every placeholder starts
_PLACEHOLDER = re.compile(r"zz-cgvar([12])-([A-Za-z_][A-Za-z0-9_]*)-zz")
# how the helper writes a decrypted SOPS value (tools/helper/secrets/secrets.go TokenPrefix)
TOKEN_PREFIX = "zz-cgsec"
_TOKEN = re.compile(r"zz-cgsec[0-9a-f]{20}(?:-([A-Za-z_][A-Za-z0-9_]*))?-zz")


def placeholder(name: str, which: Which) -> str:
    """The value variable `name` gets in the guard's first or second build."""
    return f"{PREFIX}{which}-{name}-zz"


def variables_in(text: str) -> list[str]:
    """The variables whose placeholders `text` holds, in order, once each."""
    return list(dict.fromkeys(m.group(2) for m in _PLACEHOLDER.finditer(text)))


def shown(text: str) -> str:
    """`text` with every placeholder and every token of a decrypted value written as the variable
    it stands for: `${NAME}` (a token of a value under a key that is no variable name: `${…}`)."""
    if PREFIX in text:
        text = _PLACEHOLDER.sub(lambda m: "${" + m.group(2) + "}", text)
    if TOKEN_PREFIX in text:
        text = _TOKEN.sub(lambda m: "${" + (m.group(1) or "…") + "}", text)
    return text


def shown_finding(finding: Finding) -> Finding:
    """A finding whose text shows each placeholder as its variable (it is unchanged when it holds none)."""
    texts = (finding.message, finding.hint, *finding.details.values())
    if not any(PREFIX in t or TOKEN_PREFIX in t for t in texts):
        return finding
    return replace(finding, message=shown(finding.message), hint=shown(finding.hint),
                   details={k: shown(v) for k, v in finding.details.items()})
