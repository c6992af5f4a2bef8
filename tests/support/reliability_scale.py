"""How big each reliability check runs: a bounded size for every CI run, a full size on request.

A check that has two sizes is parametrized with :func:`twins`: the ``bounded``
case runs by default, the ``full`` case is marked ``slow`` and runs with
``-m slow`` (full cases only) or ``SYNAPSE_RELIABILITY_FULL=1`` (full cases
instead of the bounded ones). The selection itself lives in this folder's
``conftest.py``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import pytest

FULL_ENV = "SYNAPSE_RELIABILITY_FULL"


@dataclass(frozen=True)
class Scale:
    """One size of a check: ``name`` is ``bounded`` or ``full``; ``n`` is its count (examples, calls...)."""

    name: str
    n: int

    @property
    def full(self) -> bool:
        return self.name == "full"


def full_requested() -> bool:
    """True when the environment asks for the full reliability run."""
    return os.environ.get(FULL_ENV, "").strip().lower() in {"1", "true", "yes", "on"}


def twins(bounded: int, full: int) -> list[Any]:
    """The two parametrize cases of a sized check: ``bounded`` (default) and ``full`` (marked slow)."""
    return [
        pytest.param(Scale("bounded", bounded), id="bounded"),
        pytest.param(Scale("full", full), id="full", marks=pytest.mark.slow),
    ]
