"""Shared fixtures: the real embedding model, loaded once per test session."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from adapters.index import Embedder
from synapse_server.sources_config import CACHE_ENV


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    """The packaged all-MiniLM-L6-v2, loaded once: every index test shares it (~8 s cold)."""
    model = Embedder()
    model.load()
    return model


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session", autouse=True)
def _user_cache_in_tmp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """A git repository not initialised for Synapse keeps its index in the user cache folder: a temporary one here."""
    previous = os.environ.get(CACHE_ENV)
    os.environ[CACHE_ENV] = str(tmp_path_factory.mktemp("user-cache"))
    yield
    if previous is None:
        os.environ.pop(CACHE_ENV, None)
    else:
        os.environ[CACHE_ENV] = previous
