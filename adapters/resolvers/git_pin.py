"""The git-pin resolver: is ``path@sha`` retrievable, and has HEAD moved on since?

Three findings: the pinned blob exists (``ok``); the commit or the path at
that commit does not (``stale``: the bytes the node relies on cannot be
produced); the blob exists but HEAD's committed blob for the path differs or
the path is gone at HEAD (``outdated``: still grounded, with the canonical
disclosure). Lookups are cached per ref and per commit (one ``git ls-tree``
per commit), so resolving a thousand pins over a few commits costs a few git
calls. The repository access sits behind :class:`GitLookup` so tests and the
engine can inject another source of commits and trees.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Protocol

import git

from adapters.base import Tether, TetherCheck
from adapters.code import open_repository, tree_entries

_SHA = re.compile(r"[0-9a-f]{4,40}")


class GitLookup(Protocol):
    """The three questions a pin check asks of a repository."""

    def commit(self, ref: str) -> str | None:
        """The full sha of the commit a (short) hex sha names; None when absent or ambiguous."""
        ...

    def blob(self, commit: str, path: str) -> str | None:
        """The blob sha of ``path`` in ``commit``'s tree; None when the path is not there."""
        ...

    def head(self) -> str | None:
        """The full sha of the commit HEAD points at; None without commits."""
        ...


class GitRepoLookup:
    """:class:`GitLookup` over a real repository, opened lazily and cached per ref and per commit."""

    def __init__(self, repo_path: Path, boundary: Path | None = None) -> None:
        self.repo_path = repo_path
        self.boundary = boundary
        self._opened = False
        self._repo: git.Repo | None = None
        self._head: str | None = None
        self._commits: dict[str, str | None] = {}
        self._trees: dict[str, dict[str, str]] = {}

    def _open(self) -> git.Repo | None:
        if not self._opened:
            self._opened = True
            self._repo, self._head = open_repository(self.repo_path, self.boundary)
            if self._repo is None:
                self._head = None
        return self._repo

    def head(self) -> str | None:
        self._open()
        return self._head

    def commit(self, ref: str) -> str | None:
        if ref not in self._commits:
            self._commits[ref] = self._rev_parse(ref)
        return self._commits[ref]

    def blob(self, commit: str, path: str) -> str | None:
        if commit not in self._trees:
            repo = self._open()
            try:
                entries = tree_entries(repo, commit) if repo is not None else []
            except git.GitCommandError:  # not a commit of this repository
                entries = []
            self._trees[commit] = {entry.path: entry.blob for entry in entries}
        return self._trees[commit].get(path)

    def close(self) -> None:
        if self._repo is not None:
            self._repo.close()

    def _rev_parse(self, ref: str) -> str | None:
        repo = self._open()
        if repo is None or not _SHA.fullmatch(ref):  # hex only: never an option, a range or a ref name
            return None
        try:
            return str(repo.git.rev_parse("--verify", "--quiet", f"{ref}^{{commit}}")).strip() or None
        except git.GitCommandError:
            return None


class GitPinResolver:
    """Checks :attr:`TetherKind.GIT_PIN` tethers (``target`` = path, ``ref`` = commit sha)."""

    def __init__(self, lookup: GitLookup | None) -> None:
        self.lookup = lookup

    def check(self, tether: Tether) -> TetherCheck:
        path, ref = tether.target, (tether.ref or "").lower()
        if self.lookup is None or self.lookup.head() is None:
            return TetherCheck(tether, "unverifiable", f"{path}@{ref[:7]}: no git history to check the pin against")
        if not _SHA.fullmatch(ref):
            return TetherCheck(tether, "stale", f"{path}: pin {tether.ref!r} is not a commit sha")
        commit = self.lookup.commit(ref)
        if commit is None:
            return TetherCheck(tether, "stale", f"{path}@{ref[:7]}: commit {ref[:7]} is not in the repository")
        pinned = self.lookup.blob(commit, path)
        if pinned is None:
            return TetherCheck(tether, "stale", f"{path}@{ref[:7]}: {path} is absent at commit {commit[:7]}")
        head = self.lookup.head() or ""
        current = self.lookup.blob(head, path)
        if current is None:
            detail = f"{path}@{commit[:7]}: pinned blob {pinned[:7]}; {path} is gone at HEAD {head[:7]}"
            return TetherCheck(tether, "outdated", detail)
        if current != pinned:
            detail = f"{path}@{commit[:7]}: pinned blob {pinned[:7]}; HEAD {head[:7]} has blob {current[:7]}"
            return TetherCheck(tether, "outdated", detail)
        return TetherCheck(tether, "ok", f"{path}@{commit[:7]}: blob {pinned[:7]} unchanged at HEAD {head[:7]}")
