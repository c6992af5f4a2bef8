"""``mem``: memdsl ``.mem`` files, a folder searched recursively or a single file, each declaration a node.

``adopt`` makes one source per top-most folder holding ``.mem`` files, named
by the folder (``examples/alex`` -> ``mem:alex:…``; two folders of the same
name take their parents' names too, ``a-memory`` and ``b-memory``), except
that a single folder keeps the plain ``mem`` segment. Folders that hold
another project's test inputs (:func:`adapters.mem_files.left_out`) are not
adopted: :meth:`MemKind.hints` names each for adopt's report (and how to read it
anyway), :meth:`MemKind.left_out` lists their files.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from adapters.base import LoadResult, Skipped
from adapters.mem_files import left_out
from synapse_server.workspace.source_kinds.base import Detected, SourceKind, SourceSite, plain_name, relative

RESERVED_SEGMENTS = frozenset({"mem", "tree", "adr"})
"""Segments other sources of ``mem:`` use (the default, the memory tree, ADRs): a folder so named is ``mem-<name>``."""


class MemKind(SourceKind):
    name = "mem"
    family = "memory"
    scheme = "mem"
    unit = ".mem file"
    finds = (
        "folders holding `*.mem` files (the top-most of nested ones; not a project's test fixtures or "
        "deliberately broken examples)"
    )
    tool_folders = (".memdsl",)
    codes = ("mem-syntax",)

    def detect(self, root: Path, folders: Sequence[Path]) -> list[Detected]:
        adopted = {folder: files for folder, files, reason in _mem_folders(root, folders) if reason is None}
        tops = sorted(d for d in adopted if not any(other in d.parents for other in adopted))
        names = folder_names([folder.relative_to(root).parts for folder in tops], plain_name(root.name))
        found: list[Detected] = []
        for folder, name in zip(tops, names, strict=True):
            count = sum(n for d, n in adopted.items() if d == folder or folder in d.parents)
            found.append(Detected(relative(folder, root), None if len(tops) == 1 else name, count))
        return found

    def left_out(self, root: Path, folders: Sequence[Path]) -> list[Skipped]:
        """The ``.mem`` files ``detect`` did not adopt and why (a test fixture, a deliberately broken example)."""
        return [
            Skipped(relative(path, root), reason)
            for folder, _, reason in _mem_folders(root, folders)
            if reason is not None
            for path in sorted(folder.glob("*.mem"))
            if path.is_file()
        ]

    def hints(self, root: Path, folders: Sequence[Path]) -> list[str]:
        """One line per folder of ``.mem`` files ``detect`` left out: why, and how to read it anyway."""
        lines: list[str] = []
        for folder, count, reason in _mem_folders(root, folders):
            if reason is not None:
                rel = relative(folder, root)
                lines.append(
                    f"{rel}/ holds {count} .mem file{'' if count == 1 else 's'} left out as {reason}; "
                    f"to read {'it' if count == 1 else 'them'} as memory, add `- {{kind: mem, path: {rel}}}` to sources:"
                )
        return lines

    def loader(self, site: SourceSite) -> Callable[[], LoadResult]:
        from adapters.mem_files import MemFilesAdapter

        return MemFilesAdapter(site.folder, site.root, site.repo, site.segment).load


def _mem_folders(root: Path, folders: Sequence[Path]) -> list[tuple[Path, int, str | None]]:
    """Each folder holding ``.mem`` files: its count, and why it is left out (None when it is memory)."""
    found: list[tuple[Path, int, str | None]] = []
    for folder in folders:
        names = [p.name for p in folder.glob("*.mem") if p.is_file() and not p.name.startswith(".")]
        if names:
            found.append((folder, len(names), left_out(folder.relative_to(root).parts, names)))
    return found


def folder_names(paths: Sequence[tuple[str, ...]], root_name: str) -> list[str]:
    """A distinct address segment per folder: its own name, with as many parent names as tell it apart.

    Deterministic: the names depend only on the set of paths. Folders whose
    paths still read the same (``a-b/c`` and ``a/b-c``) get ``-2``, ``-3`` in
    path order.
    """

    def name(parts: tuple[str, ...], depth: int) -> str:
        shown = plain_name("-".join(parts[-depth:])) if parts else root_name
        shown = shown or "folder"
        return f"mem-{shown}" if shown in RESERVED_SEGMENTS else shown

    depths = [1] * len(paths)
    while True:
        names = [name(parts, depth) for parts, depth in zip(paths, depths, strict=True)]
        clashing = [i for i, n in enumerate(names) if names.count(n) > 1 and depths[i] < len(paths[i])]
        if not clashing:
            break
        for index in clashing:
            depths[index] += 1
    seen: dict[str, int] = {}
    out: list[str] = []
    for shown in names:
        seen[shown] = seen.get(shown, 0) + 1
        out.append(shown if seen[shown] == 1 else f"{shown}-{seen[shown]}")
    return out
