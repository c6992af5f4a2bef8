"""``notes``: a markdown folder or an Obsidian vault, read as one zettelkasten project."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path, PurePosixPath

from adapters.base import LoadResult
from synapse_server.workspace.source_kinds.base import Detected, SourceKind, SourceSite, plain_name, relative


class NotesKind(SourceKind):
    name = "notes"
    family = "zk"
    scheme = "zk"
    unit = "note"
    finds = "a folder holding `.obsidian/` (up to four levels down)"
    tool_folders = (".obsidian", ".trash")

    def default_segment(self, path: str) -> str:
        """The folder's own name (``vault`` for a vault at the root), so two vaults do not share a project."""
        return plain_name(PurePosixPath(path).name) or "notes"

    def detect(self, root: Path, folders: Sequence[Path]) -> list[Detected]:
        found: list[Detected] = []
        for folder in folders:
            if (folder / ".obsidian").is_dir():
                rel = relative(folder, root)
                found.append(Detected(rel, None if rel != "." else "vault", len(_markdown(folder))))
        return found

    def loader(self, site: SourceSite) -> Callable[[], LoadResult]:
        from adapters.notes import NotesAdapter

        return NotesAdapter(site.folder, site.root, site.repo, site.segment, site.code_name, site.elsewhere).load


def _markdown(folder: Path) -> list[Path]:
    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        found.extend(Path(dirpath) / f for f in filenames if f.endswith(".md"))
    return found
