"""The policy for a release newer than the tables: a later patch borrows, a new minor is refused.

Platforms ship patches faster than anyone re-reads their sources. A patch of a minor we hold
facts for nearly always keeps that minor's Corefile and CoreDNS, so it takes the facts of the
newest release of its minor we know (its *stand-in*) and the render says so on stderr, with how
to pin the CoreDNS it really runs. A minor newer than every one we know may change the Corefile
itself, so it is refused with the newest release we know and how to refresh the tables.
"""

from __future__ import annotations

from typing import Callable, Iterable

from gen.versions import Version, parse_version

REFRESH_HINT = "upgrade coredns-gen, or add the release to its tables as docs/platform-data.md says"


def stand_in(release: str, known: Iterable[str], key: Callable[[str], tuple[int, ...]]) -> str | None:
    """The newest known release of `release`'s minor at or below it (by `key`), or None.

    `release` itself when it is known; None when no release of its minor precedes it (an older
    patch than every one we hold is not guessed: its CoreDNS may be older).
    """
    v = parse_version(release)
    mine = key(release)
    best: tuple[tuple[int, ...], str] | None = None
    for name in known:
        if parse_version(name)[:2] != v[:2]:
            continue
        k = key(name)
        if k <= mine and (best is None or k > best[0]):
            best = (k, name)
    return best[1] if best else None


def assumption(platform: str, release: str, stood_in: str, coredns: Version | None) -> str:
    """The warning a render prints when `release` takes the facts of `stood_in` (`coredns`
    None: the values pin CoreDNS, only the layout is assumed)."""
    said = (f"{platform} {release} is newer than coredns-gen's tables: assumed the Corefile layout"
            f"{f' and CoreDNS {coredns}' if coredns else ''} of {stood_in}, the newest {platform} release of its minor they hold")
    if coredns is None:
        return said + " (CoreDNS as `corednsVersion:` pins it)"
    return (said + f" — if the cluster runs another CoreDNS, pin it: `corednsVersion: {coredns}` with the tag of "
            "`kubectl -n kube-system get deploy -o jsonpath='{..image}'`")


def beyond(platform: str, release: str, known: tuple[Version, ...], newest: str) -> tuple[str, str] | None:
    """(problem, hint) when `release`'s minor is newer than every minor the tables hold."""
    v = parse_version(release)
    if not known or v[:2] <= max(known)[:2]:
        return None
    return (f"{platform} {release} is a minor release coredns-gen's tables do not hold yet (newest known: {newest}); "
            "its Corefile may differ, so nothing is assumed", REFRESH_HINT)
