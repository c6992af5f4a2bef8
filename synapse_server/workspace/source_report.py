"""What each store and source read and what it left out, grouped by why: the per-source lines of lint and adopt.

A store that silently holds fewer files than the folder it reads is the worst
kind of gap: nothing fails, answers are just missing. So ``synapse lint`` and
``init --adopt`` print one line per store and ``sources:`` entry, built here
from the adapters' own account (``LoadResult.files_read`` and ``skipped``)::

    notes vault: 160 files read, 3 skipped: 2 not UTF-8 (a.md, b.md), 1 broken front matter (c.md)

Each group shows its first few paths and how many more there are; a store
that could not be read at all says why instead.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict, Field, computed_field

from adapters.base import LoadResult
from synapse_server.workspace.loading import StoreLoad

__all__ = ["SHOWN_PATHS", "SkipGroup", "SourceReport", "source_report", "source_reports"]

SHOWN_PATHS = 3
"""Paths named per skip group; the rest are counted."""


class SkipGroup(BaseModel):
    """Files one store left out for one reason."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    reason: str = Field(description="why they were left out: 'not UTF-8', 'broken front matter', ...")
    count: int = Field(description="how many files")
    paths: tuple[str, ...] = Field(description=f"the first {SHOWN_PATHS} of them, sorted, workspace-relative")

    def describe(self) -> str:
        more = self.count - len(self.paths)
        shown = ", ".join(self.paths) + (f", … {more:,} more" if more > 0 else "")
        return f"{self.count:,} {self.reason} ({shown})"


class SourceReport(BaseModel):
    """One store's or ``sources:`` entry's account: files read, files skipped by reason, or why none were read."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: str = Field(description="memory, zettelkasten, runs, code, or the source kind (adr, notes, ...)")
    path: str = Field(description="its folder, workspace-relative")
    files_read: int = Field(description="files that became evidence")
    skipped: int = Field(description="files left out")
    groups: tuple[SkipGroup, ...] = Field(default=(), description="the skipped files by reason, largest first")
    unread: str | None = Field(default=None, description="why nothing of it could be read (a failure, no repository)")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def label(self) -> str:
        return f"{self.kind} {self.path}"

    def line(self) -> str:
        if self.unread is not None:
            return f"{self.label}: not read: {self.unread}"
        text = f"{self.label}: {self.files_read:,} file{'' if self.files_read == 1 else 's'} read"
        if self.skipped:
            text += f", {self.skipped:,} skipped: " + ", ".join(group.describe() for group in self.groups)
        return text


def source_report(load: StoreLoad) -> SourceReport:
    """The account of one loaded store (pure: it reads only the load's result)."""
    result = load.result
    by_reason: dict[str, set[str]] = {}
    for skip in result.skipped:
        by_reason.setdefault(skip.reason, set()).add(skip.path)
    groups = tuple(
        SkipGroup(reason=reason, count=len(paths), paths=tuple(sorted(paths)[:SHOWN_PATHS]))
        for reason, paths in sorted(by_reason.items(), key=lambda item: (-len(item[1]), item[0]))
    )
    return SourceReport(
        kind=load.kind,
        path=load.folder,
        files_read=_files_read(result),
        skipped=sum(group.count for group in groups),
        groups=groups,
        unread=_unread(load),
    )


def source_reports(loads: Iterable[StoreLoad]) -> list[SourceReport]:
    """Accounts of every adopted source and every store that exists, in load order.

    A native store or code store with nothing in it and nothing wrong (an absent
    ``.memory/``, say) is left out: it would only add a line of zeros.
    """
    return [source_report(load) for load in loads if _worth_a_line(load)]


def _files_read(result: LoadResult) -> int:
    if result.files_read is not None:
        return result.files_read
    return len({node.path for node in result.nodes if node.path})


def _unread(load: StoreLoad) -> str | None:
    """Why a store yielded nothing at all: its failure, else its first problem when it read and skipped nothing."""
    if load.failure is not None:
        return f"failed to load ({load.failure.describe()})"
    result = load.result
    if result.nodes or result.skipped or result.files_read:
        return None
    problems = [d for d in result.diagnostics if d.severity != "info"]
    return problems[0].message if problems else None


def _worth_a_line(load: StoreLoad) -> bool:
    result = load.result
    if load.source is not None or load.failure is not None or result.nodes or result.skipped or result.files_read:
        return True
    return any(d.severity != "info" for d in result.diagnostics)
