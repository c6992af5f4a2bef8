"""The adapters of a workspace's ``sources:`` and the files they claim from the code store.

Each configured source becomes one loader with its family and the wildcard
address a failure is reported under. What a source reads is *claimed*: it
is not also a ``repo:`` file node, so one document never shows up twice in
the evidence.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from adapters.base import Diagnostic, Family, LoadResult, Node
from adapters.code import CodeExclusions
from synapse_server.workspace.config import Workspace
from synapse_server.workspace.source_config import CACHE_NAME, SourceConfig
from synapse_server.workspace.source_kinds import SOURCE_KINDS, SourceSite


@dataclass(frozen=True, slots=True)
class SourceLoader:
    family: Family
    wildcard: str
    load: Callable[[], LoadResult]
    source: SourceConfig
    folder: Path


def source_loaders(workspace: Workspace) -> list[SourceLoader]:
    """One loader per configured source, in config order, each built by its kind."""
    repo = workspace.code_dir if (workspace.code_dir / ".git").exists() else None
    loaders: list[SourceLoader] = []
    for source, folder in zip(workspace.config.sources, workspace.source_dirs, strict=True):
        kind = SOURCE_KINDS[source.kind]
        others = tuple(d for d in workspace.source_dirs if d != folder) + _store_dirs(workspace)
        site = SourceSite(folder, workspace.root, repo, source.segment, workspace.code_name, others)
        loaders.append(SourceLoader(kind.family, kind.wildcard(source.segment), kind.loader(site), source, folder))
    return loaders


def code_exclusions(workspace: Workspace, loaded: Iterable[tuple[SourceLoader, Iterable[Node]]]) -> CodeExclusions:
    """``code.exclude``, Synapse's own store folders, and every file an adopted source read.

        A store folder is never code, committed or not: a committed note would
        otherwise come back as a ``repo:`` file pinned by git and vouch for
        itself (a quote its source does not hold, verified against the note's
        own copy). A kind that claims its whole folder (an mlruns store) is left out as a
    folder; the others leave out their tool folders and the files their nodes read.
    """
    code_dir = workspace.code_dir
    files: set[str] = set()
    folders: list[str] = [f for f in (_in_repo(d, code_dir) for d in _own_dirs(workspace)) if f]
    for loader, nodes in loaded:
        kind = SOURCE_KINDS[loader.source.kind]
        if kind.claims_whole_folder:
            folder = _in_repo(loader.folder, code_dir)
            if folder:
                folders.append(folder)
            continue
        for tool_folder in kind.tool_folders:
            folder = _in_repo(loader.folder / tool_folder, code_dir) if loader.folder.is_dir() else None
            if folder:
                folders.append(folder)
        for node in nodes:
            for path in (node.path, *(str(p) for p in node.meta.get("source_files", ()))):
                relative = _in_repo(workspace.root / path, code_dir) if path else None
                if relative:
                    files.add(relative)
    return CodeExclusions(tuple(workspace.config.code.exclude), frozenset(files), tuple(folders))


def _store_dirs(workspace: Workspace) -> tuple[Path, ...]:
    """Synapse's own store folders: a vault at the repository root must not read them as notes."""
    return (workspace.memory_dir, workspace.zettelkasten_dir, workspace.runs_dir, workspace.root / ".synapse")


def _own_dirs(workspace: Workspace) -> tuple[Path, ...]:
    """Every folder whose files are evidence or derived from it: the stores, federated roots, the cache."""
    cache = (workspace.root / workspace.config.cache,) if workspace.config.cache is not None else ()
    federated = tuple(workspace.federation_dirs.values())
    return (*_store_dirs(workspace), *federated, *cache, workspace.root / CACHE_NAME)


def _in_repo(path: Path, code_dir: Path) -> str | None:
    try:
        relative = path.resolve().relative_to(code_dir).as_posix()
    except (ValueError, OSError, RuntimeError):
        return None
    return None if relative == "." else relative


def collisions(results: Iterable[tuple[str, Iterable[Node]]], first: dict[str, str] | None = None) -> list[Diagnostic]:
    """Two stores or sources that give one address to different files: the later one is not read (an error).

    ``first`` (address -> the file that gave it first) carries on from an earlier call and is updated, so a
    caller merging stores one by one checks each node once instead of every earlier store's nodes again.
    """
    first = {} if first is None else first
    found: list[Diagnostic] = []
    for _, nodes in results:
        for node in nodes:
            owner = first.setdefault(node.address, node.path or "")
            if owner != (node.path or ""):
                message = f"{node.address} is already read from {owner}; give one of the sources its own name"
                found.append(Diagnostic(node.path or "", node.line or 1, "duplicate-id", message))
    return found
