"""The registry of source kinds: every format of existing knowledge Synapse reads in place, registered once.

``SOURCE_KINDS`` maps each ``kind:`` value to its :class:`SourceKind`, in the
order ``adopt`` reports findings. The config schema's ``kind`` values, loading
(``workspace/sources.py``), detection (``workspace/adopt.py``) and lint's checks
on a ``sources:`` entry all read it; docs/sources.md's kinds table is
:func:`kinds_table`, checked by the tests.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from synapse_server.workspace.source_kinds.adr import AdrKind
from synapse_server.workspace.source_kinds.base import Detected, SourceKind, SourceSite, plain_name, relative
from synapse_server.workspace.source_kinds.mem import MemKind
from synapse_server.workspace.source_kinds.mlflow import MlflowKind
from synapse_server.workspace.source_kinds.notes import NotesKind

__all__ = ["SOURCE_KINDS", "Detected", "SourceKind", "SourceSite", "kinds_table", "plain_name", "relative"]

SOURCE_KINDS: Mapping[str, SourceKind] = MappingProxyType(
    {kind.name: kind for kind in (AdrKind(), NotesKind(), MlflowKind(), MemKind())}
)


def kinds_table() -> str:
    """The markdown table docs/sources.md shows between its ``source-kinds`` markers, one row per kind."""
    rows = [
        "| kind | adopt finds | address | family | left out of code | adds lint codes |",
        "|---|---|---|---|---|---|",
    ]
    for kind in SOURCE_KINDS.values():
        address = kind.wildcard("<name>").removesuffix("*") + "…"
        claimed = "the whole folder" if kind.claims_whole_folder else "the files it reads"
        claimed += "".join(f", `{folder}/`" for folder in kind.tool_folders)
        codes = ", ".join(f"`{code}`" for code in kind.codes) or "—"
        rows.append(f"| `{kind.name}` | {kind.finds} | `{address}` | {kind.family} | {claimed} | {codes} |")
    return "\n".join(rows)
