"""One canonical workbench per test session: the demo and every recipe built and indexed once, shared by all bench tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from adapters.index import Embedder
from dev.synapse_bench.canonical.cases import Corpus, load_corpus
from dev.synapse_bench.canonical.workspaces import Workbench


@pytest.fixture(scope="session")
def corpus() -> Corpus:
    return load_corpus()


@pytest.fixture(scope="session")
def workbench(corpus: Corpus, embedder: Embedder, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workbench]:
    """Built lazily: a test that runs only demo cases never pays for the other recipes."""
    yield Workbench(tmp_path_factory.mktemp("bench"), corpus.recipes, embedder)
