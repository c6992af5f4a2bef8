"""Real git repositories built from the verbatim public fixtures under ``tests/sources/wild/<name>/repo``.

Each fixture is a subset of a public repository at its upstream paths (the
fixture's README names upstream, commit and licence). Tests copy it into a
temporary folder and commit it, so adopt, load, lint and search run over a
real repository exactly as a user's clone would present it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.support.source_fixtures import commit_all, make_repo

WILD = Path(__file__).resolve().parents[1] / "sources" / "wild"


def wild_files(name: str) -> Path:
    """The upstream files of fixture ``name`` (read-only: tests copy them)."""
    folder = WILD / name / "repo"
    if not folder.is_dir():
        raise FileNotFoundError(f"no wild fixture {name!r}")
    return folder


def wild_repo(name: str, dest: Path, message: str = "Import the upstream files") -> Path:
    """``dest`` made a git repository holding fixture ``name``'s files, committed once on ``main``."""
    shutil.copytree(wild_files(name), dest, dirs_exist_ok=True)
    make_repo(dest)
    commit_all(dest, message)
    return dest
