"""Why a file was left out, in a few plain words: the grouping reason of a :class:`~adapters.base.Skipped`.

An adapter that drops a file already says why in a :class:`Diagnostic`
(``encoding``, ``front-matter``, ...). ``synapse lint`` and ``init --adopt``
group skipped files by reason per source (``3 skipped: 2 not UTF-8, 1 broken
front matter``), so the reason must be the same phrase for the same cause in
every store: the phrases live here, keyed by diagnostic code, and an adapter
turns the diagnostic that cost a file into its skip with :func:`skipped_for`.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from adapters.base import Diagnostic, Skipped

__all__ = ["SKIP_REASONS", "drop", "skip_reason", "skipped_for"]

SKIP_REASONS: Mapping[str, str] = MappingProxyType(
    {
        "unreadable": "unreadable",
        "binary": "binary file",
        "encoding": "not UTF-8",
        "front-matter": "broken front matter",
        "yaml": "broken YAML",
        "missing-field": "a required field missing",
        "bad-field": "a field with a bad value",
        "bad-id": "an id that is not an address",
        "duplicate-id": "a duplicate id",
        "path-escape": "a link out of the workspace",
        "too-large": "too large",
        "missing-record": "no record file",
    }
)
"""Diagnostic code -> the reason a file it cost is grouped under; a code not listed is its own reason."""


def skip_reason(code: str) -> str:
    """The grouping reason for a file dropped with diagnostic ``code``."""
    return SKIP_REASONS.get(code, code)


def skipped_for(diagnostic: Diagnostic) -> Skipped:
    """The skip a file-dropping diagnostic stands for: same path, the reason its code groups under."""
    return Skipped(diagnostic.path, skip_reason(diagnostic.code))


def drop(diagnostic: Diagnostic, diagnostics: list[Diagnostic], skipped: list[Skipped]) -> None:
    """Record a diagnostic that cost its file: a finding in ``diagnostics`` and the file's skip in ``skipped``."""
    diagnostics.append(diagnostic)
    skipped.append(skipped_for(diagnostic))
