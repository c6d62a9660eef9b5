"""Is a bootstrap's source this repository under a name it had or will have (a rename, a transfer)?

A forge keeps redirecting a repository's old URL after a rename or a transfer, so a cluster may
sync `github.com/acme/fleet` while CI cloned `github.com/acme/homelab` (or the reverse) and both
are this repository. A URL that differs from every remote in only one of owner and name, on the
same host, is such a candidate; it is taken as this repository only when what it syncs is here:
the synced folder exists in this revision, and the file that declares the bootstrap lies in it
(the repository at that URL holds this very file at this path: flux bootstrap's and a FluxInstance
written in its own cluster folder), or the folder holds Flux objects of its own. Anything else
stays "not this repository", with the reason. The verdict says which evidence decided.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable

from gen.guard.repo.revision import normalize_url


def renamed_from(url: str, remotes: set[str]) -> tuple[str, str] | None:
    """(the remote, "name" or "owner") when `url` differs from that remote only by the
    repository's name or only by its owner, on the same host; None otherwise."""
    host, _, path = normalize_url(url).partition("/")
    owner, _, name = path.rpartition("/")
    if not host or not owner or not name:
        return None
    for remote in sorted(remotes):
        r_host, _, r_path = remote.partition("/")
        r_owner, _, r_name = r_path.rpartition("/")
        if r_host != host or not r_owner or (r_owner, r_name) == (owner, name):
            continue
        if r_owner == owner:
            return remote, "name"
        if r_name == name:
            return remote, "owner"
    return None


def renamed_here(url: str, remotes: set[str], files: Iterable[str], path: str, file: str | None) -> str:
    """Why the source at `url`, syncing `path`, declared in `file`, is this repository renamed
    ("" when it is not shown to be); `files` are this revision's files (or those with Flux objects)."""
    found = renamed_from(url, remotes)
    if found is None:
        return ""
    remote, what = found
    folder = posixpath.normpath(path.strip().lstrip("/") or ".")
    folder = "" if folder == "." else folder.removeprefix("./")
    lead = folder + "/" if folder else ""
    files = [p for p in files if p.startswith(lead)]
    if not files:
        return ""
    where = f"./{folder}" if folder else "the repository root"
    if file and file.startswith(lead):
        because = f"{where} exists here and holds {file}, the file that declares it"
    elif any(p.endswith((".yaml", ".yml")) for p in files):
        because = f"{where} exists here with its manifests"
    else:
        return ""
    return (f"{url} differs from this clone's remote {remote} only by the repository's {what} (a rename or "
            f"transfer the forge redirects), and the folder it syncs, {because}")
