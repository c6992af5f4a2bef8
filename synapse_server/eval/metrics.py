"""Retrieval figures: recall over a ranked list and the reciprocal rank of the first relevant item.

Pure functions over address lists, so the harness and its tests compute the
same numbers from the same lists.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

__all__ = ["mean", "recall", "reciprocal_rank"]


def recall(ranked: Sequence[str], relevant: Collection[str]) -> float:
    """Share of ``relevant`` found anywhere in ``ranked`` (1.0 for an empty label set)."""
    wanted = set(relevant)
    return len(wanted & set(ranked)) / len(wanted) if wanted else 1.0


def reciprocal_rank(ranked: Sequence[str], relevant: Collection[str]) -> float:
    """1 / the 1-based position of the first relevant item; 0.0 when none is present."""
    wanted = set(relevant)
    return next((1.0 / position for position, address in enumerate(ranked, 1) if address in wanted), 0.0)


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0
