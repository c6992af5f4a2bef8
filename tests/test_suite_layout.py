"""The suite's own shape: every test folder is a package, helpers come from ``tests.support``, profiles load."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import settings

from tests.support import REPOSITORY
from tests.support.properties import PROFILES, load_profile

TESTS = REPOSITORY / "tests"
DATA_FOLDERS = {"golden", "invalid", "wild", "__pycache__"}
"""Folders of data, not tests: ``wild`` holds verbatim subsets of public repositories (their READMEs name the licences)."""


def _test_folders() -> list[Path]:
    return [TESTS, *(p for p in TESTS.rglob("*") if p.is_dir() and not DATA_FOLDERS & set(p.relative_to(TESTS).parts))]


def test_every_test_folder_is_a_package_so_module_names_never_collide() -> None:
    missing = [
        str(folder.relative_to(REPOSITORY)) for folder in _test_folders() if not (folder / "__init__.py").exists()
    ]
    assert not missing, f"add an empty __init__.py to: {missing}"


def test_no_test_edits_the_import_path_or_imports_a_helper_by_its_bare_name() -> None:
    bare = re.compile(
        r"^\s*(?:from conftest import|import conftest|sys\.path\.(?:append|insert)\((?!0, sys\.argv))", re.M
    )
    offenders = [
        str(path.relative_to(REPOSITORY))
        for path in TESTS.rglob("*.py")
        if bare.search(path.read_text(encoding="utf-8"))
    ]
    assert not offenders


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_each_hypothesis_profile_sets_its_example_count(name: str) -> None:
    try:
        assert load_profile({"HYPOTHESIS_PROFILE": name}) == name
        assert settings.default.max_examples == PROFILES[name]
    finally:
        load_profile()


def test_the_ci_profile_is_the_default_and_an_unknown_one_is_refused() -> None:
    try:
        assert load_profile({}) == "ci"
        with pytest.raises(ValueError, match="HYPOTHESIS_PROFILE"):
            load_profile({"HYPOTHESIS_PROFILE": "fast"})
    finally:
        load_profile()


def test_no_test_module_imports_another_test_module() -> None:
    """Shared pieces live in tests.support; a test module imported by another would run its tests twice."""
    other = re.compile(r"^\s*(?:from|import) tests\.(?!support\b)[\w.]*\btest_\w+", re.M)
    offenders = [
        str(path.relative_to(REPOSITORY))
        for path in TESTS.rglob("*.py")
        if other.search(path.read_text(encoding="utf-8"))
    ]
    assert not offenders
