"""Shared fixtures: the real embedding model, loaded once per test session."""

from __future__ import annotations

import pytest

from adapters.index import Embedder


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    """The packaged all-MiniLM-L6-v2, loaded once: every index test shares it (~8 s cold)."""
    model = Embedder()
    model.load()
    return model


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    return "asyncio"
