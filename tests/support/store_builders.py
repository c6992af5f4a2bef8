"""Builders for real workspaces in tmp_path: a git repository with real commits and store files.

Kept apart from conftest.py so test modules can import the helpers by name.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

_GIT_ENV = {
    "GIT_AUTHOR_NAME": "Synapse Test",
    "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_NAME": "Synapse Test",
    "GIT_COMMITTER_EMAIL": "test@example.invalid",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(root: Path, *args: str) -> str:
    """Run git in ``root`` with a fixed identity and no user configuration."""
    env = {**os.environ, **_GIT_ENV}
    done = subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True, text=True)
    return done.stdout.strip()


def init_repo(root: Path) -> None:
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "--quiet", "--initial-branch=main")


def commit(root: Path, message: str, *paths: str) -> str:
    """Stage ``paths`` (all changes when none) and commit; returns the full commit sha."""
    git(root, "add", "--all", "--", *(paths or (".",)))
    git(root, "commit", "--quiet", "-m", message)
    return git(root, "rev-parse", "HEAD")


def write(root: Path, relative: str, text: str) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def write_bytes(root: Path, relative: str, data: bytes) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def front_matter(fields: str, body: str = "") -> str:
    """A Markdown store file: ``fields`` is YAML text (no delimiters)."""
    return f"---\n{fields.strip()}\n---\n\n{body}"


COSTS_V1 = '''"""Cost model."""


def cost(bps: float) -> float:
    """Cost of a trade in basis points."""
    return bps / 10_000
'''

COSTS_V2 = '''"""Cost model."""


def cost(bps: float) -> float:
    """Cost of a trade in basis points, with a floor."""
    return max(bps, 1) / 10_000
'''

UTIL = '''"""Utilities."""

import functools


class Ledger:
    """Keeps entries."""

    def add(self, entry: str) -> None:
        self.entries.append(entry)

    @property
    def size(self) -> int:
        return len(self.entries)

    @size.setter
    def size(self, value: int) -> None:
        raise AttributeError(value)

    class Entry:
        def render(self) -> str:
            return "entry"


@functools.cache
def total(values: tuple[int, ...]) -> int:
    def inner() -> int:
        return sum(values)

    return inner()


async def fetch() -> None:
    return None
'''


@dataclass(frozen=True)
class Repo:
    """A workspace repository with three commits.

    c1 adds models/costs.py (v1), models/fees.py, pkg/, broken.py, a binary file and old.py;
    c2 changes models/costs.py to v2; c3 deletes old.py. HEAD is c3.
    """

    root: Path
    c1: str
    c2: str
    c3: str


def build_repo(root: Path) -> Repo:
    init_repo(root)
    write(root, "models/costs.py", COSTS_V1)
    write(root, "models/fees.py", '"""Fees."""\nFEE = 3\n')
    write(root, "pkg/__init__.py", '"""The package."""\n')
    write(root, "pkg/util.py", UTIL)
    write(root, "broken.py", "def broken(:\n    pass\n")
    write(root, "README.md", "# Demo\n\nA demo repository.\n")
    write_bytes(root, "assets/logo.bin", b"\x89PNG\x00\x01\x02binary")
    write(root, "old.py", "def old() -> None:\n    pass\n")
    c1 = commit(root, "first")
    write(root, "models/costs.py", COSTS_V2)
    c2 = commit(root, "raise the floor")
    (root / "old.py").unlink()
    c3 = commit(root, "drop old")
    return Repo(root, c1, c2, c3)
