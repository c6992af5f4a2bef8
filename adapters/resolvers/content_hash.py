"""The content-hash resolver: do the bytes on disk still hash to the recorded sha256?

``ok`` when they do, ``stale`` when they differ (the data changed under the
record), ``unresolved`` when the file is absent or its path leaves the
workspace. Digests are memoised per path for the resolver's lifetime (one
navigation turn), so a file shared by many runs is read once.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from adapters.base import Tether, TetherCheck
from adapters.paths import PathEscape, open_regular, resolve_inside

_SHA256 = re.compile(r"[0-9a-f]{64}")
_CHUNK = 1 << 20


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file's bytes, read in chunks."""
    digest = hashlib.sha256()
    with os.fdopen(open_regular(path), "rb") as handle:  # a FIFO must not block the resolver
        for chunk in iter(lambda: handle.read(_CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


class ContentHashResolver:
    """Checks :attr:`TetherKind.CONTENT_HASH` tethers (``target`` = workspace-relative path, ``ref`` = sha256)."""

    def __init__(self, workspace_root: Path) -> None:
        self.workspace_root = workspace_root
        self._digests: dict[Path, str | None] = {}

    def check(self, tether: Tether) -> TetherCheck:
        path, recorded = tether.target, (tether.ref or "").lower()
        if not _SHA256.fullmatch(recorded):
            return TetherCheck(tether, "unverifiable", f"{path}: no sha256 recorded to check against")
        try:
            resolved = resolve_inside(self.workspace_root, path)
        except PathEscape:
            return TetherCheck(tether, "unresolved", f"{path}: path leaves the workspace; not read")
        actual = self._digest(resolved)
        if actual is None:
            return TetherCheck(tether, "unresolved", f"{path}: file is absent")
        if actual != recorded:
            return TetherCheck(tether, "stale", f"{path}: sha256 {actual[:12]} on disk, {recorded[:12]} recorded")
        return TetherCheck(tether, "ok", f"{path}: sha256 {recorded[:12]} verifies")

    def _digest(self, path: Path) -> str | None:
        if path not in self._digests:
            try:
                self._digests[path] = sha256_file(path) if path.is_file() else None
            except OSError:
                self._digests[path] = None
        return self._digests[path]
