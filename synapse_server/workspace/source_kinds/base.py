"""What a source kind is: one class that names, detects, loads and lints one format of existing knowledge.

Adding a format (a wiki export, another tracking folder) is one subclass in this
package and one line in the registry (``SOURCE_KINDS``); the config schema,
``synapse init --adopt``, loading, the code store's exclusions, lint and the
docs table all read the registry, so nothing dispatches on a kind's name.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from adapters.base import Family, LoadResult

if TYPE_CHECKING:
    from synapse_server.workspace.source_config import SourceConfig


@dataclass(frozen=True, slots=True)
class Detected:
    """One folder ``adopt`` found for a kind: its workspace-relative path, its address segment, its file count."""

    path: str
    name: str | None
    files: int


@dataclass(frozen=True, slots=True)
class SourceSite:
    """Where one configured source sits: everything its adapter needs from the workspace."""

    folder: Path
    root: Path
    repo: Path | None
    """The code store's folder when it is a git repository (its files get git pins), else ``None``."""
    segment: str
    code_name: str
    elsewhere: tuple[Path, ...]
    """The other sources' and the stores' folders: a folder source must not read them as its own files."""


class SourceKind(ABC):
    """One format of existing knowledge read in place; subclasses declare the class attributes below."""

    name: ClassVar[str]
    """The ``kind:`` value in ``sources:``."""
    family: ClassVar[Family]
    """The store family its nodes join (memory = practice, zk = canon, data = runs)."""
    scheme: ClassVar[str]
    """The address scheme of its nodes: ``mem:<segment>:…``, ``zk:<segment>:…``."""
    unit: ClassVar[str]
    """What ``adopt`` counts, singular (``decision record``)."""
    finds: ClassVar[str]
    """What ``adopt`` looks for, one line of markdown for docs/sources.md."""
    tool_folders: ClassVar[tuple[str, ...]] = ()
    """Folders inside the source that are a tool's settings or drafts: neither evidence nor code."""
    claims_whole_folder: ClassVar[bool] = False
    """True when the whole folder is the source's (never code), not only the files its nodes name."""
    prunes: ClassVar[frozenset[str]] = frozenset()
    """Folder names ``adopt``'s walk does not enter (a tracking folder's thousands of artifacts)."""
    codes: ClassVar[tuple[str, ...]] = ()
    """The diagnostic codes its adapter adds to lint's (documented in docs/sources.md)."""

    def default_segment(self, path: str) -> str:
        """The address segment when the entry names none."""
        return self.name

    def wildcard(self, segment: str) -> str:
        """The address a failure to load the source is reported under."""
        return f"{self.scheme}:{segment}:*"

    @abstractmethod
    def detect(self, root: Path, folders: Sequence[Path]) -> list[Detected]:
        """What ``adopt`` finds of this kind under ``root``; ``folders`` is the one shared walk of the tree."""

    def hints(self, root: Path, folders: Sequence[Path]) -> list[str]:
        """Lines ``adopt`` prints for folders this kind could read but did not adopt, each naming the
        ``sources:`` entry that would read it; none by default."""
        return []

    @abstractmethod
    def loader(self, site: SourceSite) -> Callable[[], LoadResult]:
        """The load function of the adapter reading this source (adapters are imported here, lazily)."""

    def lint(self, source: SourceConfig, result: LoadResult) -> list[tuple[str, str]]:
        """Warnings ``(code, message)`` about the ``sources:`` entry itself, given what its adapter read."""
        if result.nodes:
            return []
        message = f"source {source.kind} {source.path!r} holds nothing Synapse can read (see docs/sources.md)"
        return [("empty-store", message)]


def plain_name(text: str) -> str:
    """``text`` made into an address segment: runs of other characters become one ``-``."""
    return re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-").lower()


def relative(path: Path, root: Path) -> str:
    """``path`` as a workspace-relative POSIX path, ``.`` for the root itself."""
    return path.relative_to(root).as_posix() if path != root else "."
