"""The policy for a release newer than the tables: it borrows a known release's facts only where
the platform's own source agrees.

Platforms ship patches faster than anyone re-reads their sources. A patch of a minor we hold
facts for usually keeps that minor's Corefile and CoreDNS, so it takes the facts of the newest
release of its minor we know (its *stand-in*) and the render says so on stderr, with how to pin
the CoreDNS it really runs. The branch heads read beside the tags (`Head`) say when that is not
so: a head of its minor or a later one that ships a newer CoreDNS makes the release's own unknown
(refused until `corednsVersion:` pins it), a head of its minor with another stock Corefile makes
its layout unknown (refused). A minor newer than every one we know is refused, unless a head
carries it with the newest known release's stock Corefile: then it takes that release's facts,
with a warning naming both (docs/platform-data.md)."""

from __future__ import annotations

from typing import Callable, Iterable, NamedTuple

from gen.versions import Version, parse_version

REFRESH_HINT = "upgrade coredns-gen, or add the release to its tables as docs/platform-data.md says"


class Head(NamedTuple):
    """A branch head of the platform's source, read beside its tags (gen/platforms/releases.py HEADS)."""

    branch: str
    minor: tuple[int, int]  # the Kubernetes (k3s, RKE2) or Talos minor the branch carries
    coredns: Version | None  # None: the branch pins a chart whose values are not vendored
    base: str  # the newest tabled release at or below `minor`
    same_layout: bool  # the branch's stock Corefile (RKE2: chart) is base's
    source: str  # repository, branch and commit, for messages


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


def newer_minor_base(release: str, known: Iterable[str], heads: Iterable[Head]) -> str | None:
    """For a release of a minor newer than every tabled one: the tabled release whose facts it takes,
    when a branch head of the platform's source carries that minor with the same stock Corefile
    (None: no source read carries it, or its Corefile differs)."""
    v = parse_version(release)
    if any(parse_version(name)[:2] >= v[:2] for name in known):
        return None
    return next((h.base for h in heads if h.minor == v[:2] and h.same_layout), None)


def assumption(platform: str, release: str, stood_in: str, coredns: Version | None, via: Head | None = None) -> str:
    """The warning a render prints when `release` takes the facts of `stood_in` (`coredns`
    None: the values pin CoreDNS, only the layout is assumed); `via`: the branch head that carries
    a minor the tables do not hold, whose stock Corefile is `stood_in`'s."""
    what = f"the Corefile layout{f' and CoreDNS {coredns}' if coredns else ''} of {stood_in}"
    if via is None:
        said = (f"{platform} {release} is newer than coredns-gen's tables: assumed {what}, "
                f"the newest {platform} release of its minor they hold")
    else:
        said = (f"{platform} {release} is a minor coredns-gen's tables do not hold: assumed {what}, the newest {platform} "
                f"release they hold, because {via.source} (carrying {via.minor[0]}.{via.minor[1]}) ships the same stock Corefile")
    if coredns is None:
        return said + " (CoreDNS as `corednsVersion:` pins it)"
    return (said + f" — if the cluster runs another CoreDNS, pin it: `corednsVersion: {coredns}` with the tag of "
            "`kubectl -n kube-system get deploy -o jsonpath='{..image}'`")


def carrier(release: str, heads: Iterable[Head]) -> Head | None:
    """The branch head that carries `release`'s minor (None: no source read carries it)."""
    v = parse_version(release)
    return next((h for h in heads if h.minor == v[:2]), None)


def beyond(platform: str, release: str, known: tuple[Version, ...], newest: str, heads: tuple[Head, ...] = (),
           stood_in: str | None = None, stood_coredns: Version | None = None, pinned: bool = False) -> tuple[str, str] | None:
    """(problem, hint) when the tables and the branch heads read beside them do not say enough to
    render `release` (a release the tables hold is never judged here):

    - a minor newer than every tabled one, unless a branch head carries it with the same stock
      Corefile as the newest tabled release (`stood_in` is then that release);
    - a release newer than the tables whose own minor's branch head changed the stock Corefile;
    - without `corednsVersion:` (`pinned`), one a branch head of its minor or a later one ships a
      newer CoreDNS than `stood_in`'s: which of the two the release runs is not known.
    """
    v = parse_version(release)
    if stood_in == release or not known:
        return None
    read = "; ".join(f"{h.source} carries {h.minor[0]}.{h.minor[1]}" for h in heads) or "none"
    mine = carrier(release, heads)
    untabled = f"{platform} {release} is a minor release coredns-gen's tables do not hold yet (newest known: {newest})"
    if v[:2] > max(known)[:2]:
        if mine is None:
            why = f"no source read carries it (branch heads read: {read}); its Corefile may differ, so nothing is assumed"
            return f"{untabled}, and {why}", REFRESH_HINT
        if not mine.same_layout:
            return f"{untabled}, and its stock Corefile at {mine.source} differs from {mine.base}'s, so nothing is assumed", REFRESH_HINT
    if stood_in is None:
        return None  # an older patch than every tabled one: the platform's check_version says why
    newer_than = f"{platform} {release} is newer than coredns-gen's tables"
    if mine is not None and not mine.same_layout:
        carrying = f"{mine.source} (carrying {mine.minor[0]}.{mine.minor[1]})"
        return f"{newer_than}, and the stock Corefile at {carrying} differs from {stood_in}'s, so nothing is assumed", REFRESH_HINT
    if pinned or stood_coredns is None:
        return None
    moved = [h for h in heads if h.minor >= v[:2] and (h.coredns is None or h.coredns > stood_coredns)]
    if not moved:
        return None
    h = min(moved, key=lambda h: h.minor)
    ships = f"ships CoreDNS {h.coredns}" if h.coredns else "pins a CoreDNS not in coredns-gen's data"
    problem = (f"{newer_than}, and {h.source} (carrying {h.minor[0]}.{h.minor[1]}) {ships} where {stood_in} ships "
               f"{stood_coredns}: which CoreDNS {release} runs is not known, so it is not assumed")
    hint = (f"pin it: `corednsVersion:` with the tag of `kubectl -n kube-system get deploy -o jsonpath='{{..image}}'` "
            f"(the Corefile layout of {stood_in} is then assumed, with a warning); or {REFRESH_HINT}")
    return problem, hint
