"""Facts read off a platform's stock Corefile with the Corefile parser, decided once for all.

"Is a root `forward .` in an `*.override` key ever reached?" is a question about one Corefile:
where the platform imports `*.override` relative to its own root forward. render's value checks,
lint's `override-root-forward` and the guard's `coredns-custom-keys` all ask it here.
"""

from __future__ import annotations

from gen.corefile import is_root_forward, parse_corefile
from gen.platforms.base import Platform
from gen.versions import Version


def overrides_after_root_forward(platform: Platform, release: Version) -> bool | None:
    """True when the stock default block imports `*.override` after its own root `forward .`
    (an override's root forward is then never reached, or refused before CoreDNS 1.9.4); False
    when before it or when there is no own forward; None when the release's Corefile is unknown
    or imports no overrides."""
    points = [p for p in platform.import_points(release) if p.inside]
    text = platform.stock_corefile(release, "cluster.local")
    if not points or text is None:
        return None
    return imports_after_root_forward(text, {p.pattern for p in points}, f"{platform.NAME} stock Corefile")


def imports_after_root_forward(text: str, patterns: set[str], name: str) -> bool | None:
    """The same question of one Corefile text and its override import patterns."""
    for block in parse_corefile(text, filename=name).server_blocks:
        names = [("import" if d.name == "import" and d.args and d.args[0] in patterns else
                  "forward" if is_root_forward(d) else "") for d in block.directives]
        if "import" in names:
            return "forward" in names[: names.index("import")]
    return None


def overrides_after_root_forward_any(platform: Platform, release: Version | None) -> bool | None:
    """The same question without a release: answered when every release we know agrees."""
    if release is not None:
        return overrides_after_root_forward(platform, release)
    answers = {overrides_after_root_forward(platform, r) for r in platform.releases()}
    return answers.pop() if len(answers) == 1 else None


def stock_corefile(platform: Platform, release: Version | None) -> str | None:
    """The platform's stock Corefile for `release`; without a release, only a Corefile that is the
    same in every release we hold stands in (AKS, Gardener): k3s's differs (override order)."""
    texts = {platform.stock_corefile(r, "cluster.local") for r in ([release] if release else platform.releases())}
    return texts.pop() if len(texts) == 1 else None
