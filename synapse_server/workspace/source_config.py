"""The ``sources:`` list of ``.synapse/config.yaml``: existing knowledge read in place, and the cache default.

A source is a folder the project already keeps (ADRs, a markdown or Obsidian
vault, an MLflow ``mlruns/`` folder, memdsl ``.mem`` files) that an adapter
reads without converting it. Each entry names its kind and path; ``name`` is
the address segment it contributes (``mem:<name>:…`` for adr and mem,
``zk:<name>:…`` for notes) and defaults to what the kind says (the kind's
name, or for notes the folder's name). The kinds, and so the values ``kind``
accepts, are the registry ``SOURCE_KINDS`` (``workspace/source_kinds/``).
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from synapse_server.errors import WorkspaceError
from synapse_server.workspace.source_kinds import SOURCE_KINDS, plain_name

if TYPE_CHECKING:
    KindName = str
else:  # the schema's enum and the error a wrong kind gets ("Input should be 'adr', 'notes', …") come from the registry
    KindName = Literal[tuple(SOURCE_KINDS)]
CACHE_NAME = ".angelo"
CACHE_ENV = "SYNAPSE_CACHE_HOME"
"""Overrides the user cache folder (else ``$XDG_CACHE_HOME/synapse``, else ``~/.cache/synapse``)."""
_MARKERS = (".synapse", ".memory", ".zettelkasten", ".git")
_PLAIN = re.compile(r"[A-Za-z0-9_-]+")


class SourceConfig(BaseModel):
    """One existing-knowledge folder: ``{kind: adr, path: doc/adr}``."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    kind: KindName = Field(..., description=" | ".join(SOURCE_KINDS))
    path: str = Field(
        ..., min_length=1, description="The folder (or, for mem, a single .mem file), workspace-relative."
    )
    name: str | None = Field(
        None, description="Address segment: mem:<name>:… (adr, mem) or zk:<name>:… (notes); default from the kind."
    )

    @field_validator("name")
    @classmethod
    def _name_is_plain(cls, value: str | None) -> str | None:
        if value is not None and not _PLAIN.fullmatch(value):
            raise ValueError(f"source name {value!r} must be letters, digits, '-' or '_' (no dot, colon or space)")
        return value

    @property
    def segment(self) -> str:
        """The address segment this source's nodes use."""
        return self.name if self.name is not None else SOURCE_KINDS[self.kind].default_segment(self.path)


def notes_projects(sources: Iterable[SourceConfig]) -> set[str]:
    """The zettelkasten project names adopted notes folders contribute (they join the default scope)."""
    return {source.segment for source in sources if SOURCE_KINDS[source.kind].family == "zk"}


def is_workspace_folder(root: Path) -> bool:
    """A Synapse workspace or a git repository: the only folders a command may create a cache for."""
    return any((root / marker).exists() for marker in _MARKERS)


def default_cache_dir(root: Path, env: dict[str, str] | None = None) -> Path:
    """Where the index lives when the config names no ``cache``.

    Inside the workspace (``.angelo``) when it is not a git repository or its
    ``.gitignore`` already ignores ``.angelo``; otherwise in the user cache
    folder, keyed by the workspace path, so adopting a repository never leaves
    an untracked folder in it. A folder that is not a workspace gets no cache.
    """
    if not is_workspace_folder(root):
        raise WorkspaceError(
            f"{root.name or 'this folder'} is not a Synapse workspace or git repository; no cache is created there "
            "(run `synapse init` or `synapse init --adopt` first)",
            root=root.name,
        )
    if not (root / ".git").exists() or _ignores_cache(root):
        return root / CACHE_NAME
    environ = os.environ if env is None else env
    base = environ.get(CACHE_ENV) or os.path.join(
        environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "synapse"
    )
    key = hashlib.sha256(os.fsencode(root.resolve())).hexdigest()[:16]
    return Path(base) / f"{plain_name(root.name) or 'workspace'}-{key}"


def _ignores_cache(root: Path) -> bool:
    try:
        text = (root / ".gitignore").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    return any(line.strip().strip("/") == CACHE_NAME for line in text.splitlines())
