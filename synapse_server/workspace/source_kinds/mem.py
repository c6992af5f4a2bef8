"""``mem``: memdsl ``.mem`` files, a folder searched recursively or a single file, each declaration a node."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from adapters.base import LoadResult
from synapse_server.workspace.source_kinds.base import Detected, SourceKind, SourceSite, relative


class MemKind(SourceKind):
    name = "mem"
    family = "memory"
    scheme = "mem"
    unit = ".mem file"
    finds = "folders holding `*.mem` files (the top-most of nested ones)"
    tool_folders = (".memdsl",)
    codes = ("mem-syntax",)

    def detect(self, root: Path, folders: Sequence[Path]) -> list[Detected]:
        mem_dirs = sorted({path.parent for folder in folders for path in folder.glob("*.mem") if path.is_file()})
        tops = [d for d in mem_dirs if not any(other in d.parents for other in mem_dirs)]
        found: list[Detected] = []
        for index, folder in enumerate(tops):
            count = sum(1 for d in mem_dirs if d == folder or folder in d.parents for _ in d.glob("*.mem"))
            found.append(Detected(relative(folder, root), None if len(tops) == 1 else f"mem{index + 1}", count))
        return found

    def loader(self, site: SourceSite) -> Callable[[], LoadResult]:
        from adapters.mem_files import MemFilesAdapter

        return MemFilesAdapter(site.folder, site.root, site.repo, site.segment).load
