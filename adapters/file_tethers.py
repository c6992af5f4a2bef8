"""Tethers for files read in place (ADRs, notes): a git pin when committed, a content hash otherwise.

A file that is tracked and whose bytes on disk equal its blob at ``HEAD`` is
pinned at the last commit that changed it (``path@sha``), so the git-pin
resolver grounds it and reports ``outdated`` once a later commit changes the
file. A merge counts as a change when its result differs from every parent
(both branches edited the file); a merge that took one side's bytes is
followed to the commit that wrote them, so the pinned blob is always HEAD's. A file with uncommitted edits, or one git does not track, is tethered by
the sha256 of the bytes that were read: what a citation quotes is then
exactly what was on disk, and an edit afterwards makes it stale. One ``git
ls-tree`` and one ``git log`` per folder, however many files it holds.

A store whose record is rendered from many small files (an MLflow run) asks
:meth:`FileTethers.pin` instead: the pin, or nothing when the bytes are not
the committed blob, so the record stays unverified rather than measured by a
hash of bytes nobody committed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import git

from adapters.base import Tether, TetherKind
from adapters.code import open_repository, tree_entries


def git_blob_sha(data: bytes) -> str:
    """The sha git gives a blob of these bytes (``git hash-object``)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


@dataclass
class FileTethers:
    """Tethers for workspace files; ``repo_dir`` (the code repository) None means there is no git history.

    Paths given and returned by content hash are workspace-relative; pins are
    repository-relative, as every pin is.
    """

    root: Path
    repo_dir: Path | None
    _head: str | None = None
    _blobs: dict[str, str] = field(default_factory=dict)
    _last: dict[str, str] = field(default_factory=dict)

    def prepare(self, paths: Iterable[str]) -> None:
        """Read HEAD's tree and the last commit of each of ``paths`` (workspace-relative) in two git calls."""
        self._prepare(list(paths), None)

    def prepare_folder(self, folder: str) -> None:
        """As :meth:`prepare` for every file under ``folder`` (workspace-relative): one pathspec, not one per file,
        so a folder of thousands of small files never overflows git's command line."""
        self._prepare([], folder)

    def _prepare(self, paths: list[str], folder: str | None) -> None:
        if self.repo_dir is None:
            return
        wanted = sorted({p for p in (self._in_repo(path) for path in paths) if p is not None})
        under = self._in_repo(folder) if folder is not None else None
        repo, head = open_repository(self.repo_dir)
        if repo is None or head is None:
            return
        try:
            self._head = head
            self._blobs = {e.path: e.blob for e in tree_entries(repo, head) if e.mode != "120000"}
            tracked = [p for p in wanted if p in self._blobs]
            if under is not None:
                tracked = [under or "."]
            if tracked:
                # --cc: a merge whose result differs from every parent (both sides edited the file) lists it;
                # without it a merge lists no files and the pin fell to a parent's older blob ("outdated").
                # core.quotePath=false: git would print "v/\303\234ber.md" for v/Über.md, which matches no path
                # literal pathspecs: a folder named ":(glob)…" is a name, never pathspec magic
                log = repo.git(c="core.quotePath=false", literal_pathspecs=True).log(
                    "--format=%x00%H", "--name-only", "--no-renames", "--cc", head, "--", *tracked
                )
                commit = ""
                for line in str(log).splitlines():
                    if line.startswith("\0"):
                        commit = line[1:].strip()
                    elif line and commit and line not in self._last:
                        self._last[line] = commit
        except git.GitCommandError:
            self._blobs, self._last = {}, {}
        finally:
            repo.close()

    def tether(self, rel_path: str, data: bytes) -> Tether:
        """A git pin when ``data`` is the committed blob of ``rel_path`` at HEAD, else a content hash."""
        pinned = self.pin(rel_path, data)
        if pinned is not None:
            return pinned
        return Tether(TetherKind.CONTENT_HASH, rel_path, hashlib.sha256(data).hexdigest())

    def pin(self, rel_path: str, data: bytes) -> Tether | None:
        """A git pin at the last commit that changed ``rel_path`` when ``data`` is its blob at HEAD, else None:
        an untracked file, or one whose bytes differ from the commit (uncommitted edits), has no pin."""
        in_repo = self._in_repo(rel_path)
        blob = self._blobs.get(in_repo) if in_repo is not None else None
        commit = self._last.get(in_repo or "", self._head)
        if in_repo is not None and blob is not None and commit is not None and blob == git_blob_sha(data):
            return Tether(TetherKind.GIT_PIN, in_repo, commit)
        return None

    def tracked(self, rel_path: str) -> bool:
        """Whether git tracks ``rel_path`` at HEAD (whatever its bytes on disk are now)."""
        in_repo = self._in_repo(rel_path)
        return in_repo is not None and in_repo in self._blobs

    def _in_repo(self, rel_path: str) -> str | None:
        if self.repo_dir is None:
            return None
        try:
            return (self.root / rel_path).relative_to(self.repo_dir).as_posix()
        except ValueError:
            return None


def provenance_of(tether: Tether) -> str:
    """The provenance string stores already use: ``file:path@sha7`` or ``hash:path@sha12``."""
    if tether.kind is TetherKind.GIT_PIN:
        return f"file:{tether.target}@{(tether.ref or '')[:7]}"
    return f"hash:{tether.target}@{(tether.ref or '')[:12]}"
