"""Fixtures of the reliability suite, and which size of each check runs.

Selection (see ``reliability_scale.py``): with no ``-m`` expression and no
``SYNAPSE_RELIABILITY_FULL``, the ``slow`` (full) cases of this folder are
skipped, so a plain ``pytest`` runs the bounded suite. ``-m slow`` runs the full
cases; ``SYNAPSE_RELIABILITY_FULL=1`` runs the full cases and skips their
bounded twins.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.reliability_checks import changed_paths, source_digest
from tests.support.reliability_scale import Scale, full_requested

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    full = full_requested()
    explicit = bool(config.getoption("markexpr", ""))
    for item in items:
        if HERE not in item.path.parents:
            continue
        if full and _scale_of(item) == "bounded":
            item.add_marker(pytest.mark.skip(reason="the full reliability run replaces this bounded case"))
        elif not full and not explicit and item.get_closest_marker("slow") is not None:
            item.add_marker(
                pytest.mark.skip(reason="full reliability case: run with -m slow or SYNAPSE_RELIABILITY_FULL=1")
            )


def _scale_of(item: pytest.Item) -> str | None:
    callspec = getattr(item, "callspec", None)
    if callspec is None:
        return None
    for value in callspec.params.values():
        if isinstance(value, Scale):
            return value.name
    return None


@pytest.fixture(scope="session")
def warm_demo(indexed_demo: Path) -> Path:
    """A demo workspace with a built index cache, never served: the template every other demo is copied from."""
    return indexed_demo


def copy_demo(template: Path, target: Path) -> Path:
    """A byte-for-byte copy (git history and warm cache included; symlinks kept as links)."""
    shutil.copytree(template, target, symlinks=True)
    return target


@pytest.fixture(scope="session")
def sealed_demo(tmp_path_factory: pytest.TempPathFactory, warm_demo: Path) -> Iterator[Path]:
    """The demo shared by every check that must not change it; its sources are compared at the end.

    Every file outside the derived cache and the overlay folder is hashed when
    the demo is made and again after the last test that used it: a difference
    fails that teardown, naming the changed paths.
    """
    root = copy_demo(warm_demo, tmp_path_factory.mktemp("reliability") / "demo")
    before = source_digest(root)
    yield root
    changed = changed_paths(before, source_digest(root))
    assert not changed, f"the reliability run changed source files: {changed[:20]}"


@pytest.fixture
def demo_copy(tmp_path: Path, warm_demo: Path) -> Path:
    """A private, warm demo workspace for a check that edits its stores or its cache."""
    return copy_demo(warm_demo, tmp_path / "demo")
