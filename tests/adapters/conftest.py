"""Fixtures for the adapter tests: a real git repository with real commits."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.store_builders import Repo, build_repo


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    """A workspace that is a git repository: c1 -> c2 (costs.py changed) -> c3 (old.py deleted)."""
    return build_repo(tmp_path / "ws")
