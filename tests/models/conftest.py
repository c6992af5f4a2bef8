"""Fixtures for the model-provider tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.loopback_http import LoopbackAPI, serve_loopback_api


@pytest.fixture
def loopback_api() -> Iterator[LoopbackAPI]:
    """A fresh recording API server on 127.0.0.1 for one test."""
    with serve_loopback_api() as api:
        yield api
