"""Done when of the real-formats issue: one repository holding an ADR folder, a vault, an MLflow folder and memdsl
files, all verbatim from public projects, is adopted once, and search then finds a record of each by a body word.

Integration level: the fixtures are committed into one real git repository, ``synapse init --adopt`` runs as a
user runs it (the CLI), and search goes through the real server over the in-memory MCP client with the session's
embedding model.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from adapters.index import Embedder
from synapse_server.actions.deps import ServerSettings
from synapse_server.mcp.server import build_server
from tests.support.source_fixtures import commit_all, make_repo
from tests.support.wild_repos import wild_files

pytestmark = pytest.mark.anyio

PARTS = ("adr-madr", "obsidian-kepano", "mlflow-16aryan", "memdsl-0.4")


@pytest.fixture(scope="module")
def adopted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """The four fixtures side by side in one committed repository, adopted by the CLI (its --json report)."""
    root = tmp_path_factory.mktemp("wild") / "monorepo"
    for name in PARTS:
        shutil.copytree(wild_files(name), root / name)
    make_repo(root)
    commit_all(root, "four formats from four projects")
    done = subprocess.run(
        [sys.executable, "-m", "synapse_server", "init", "--adopt", ".", "--json"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
        env={"HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin", "HOME": str(root.parent)},
    )
    assert done.returncode == 0, done.stderr
    return root, json.loads(done.stdout)


def test_adopt_finds_one_source_of_each_kind_in_its_own_folder(adopted: tuple[Path, dict[str, Any]]) -> None:
    _, report = adopted
    found = {(source["kind"], source["path"].split("/")[0]) for source in report["sources"]}
    assert {
        ("adr", "adr-madr"),
        ("notes", "obsidian-kepano"),
        ("mlflow", "mlflow-16aryan"),
        ("mem", "memdsl-0.4"),
    } <= found


@pytest.mark.parametrize(
    ("query", "address"),
    [
        ("dashes in filenames", "mem:adr:0005-use-dashes-in-filenames"),  # a MADR record
        ("Blade Runner directed by Ridley Scott", "zk:obsidian-kepano:blade-runner"),  # only its properties say so
        ("l1_ratio alpha", "data:runs:"),  # an MLflow run's params
        ("litestream turso", "mem:alex:aurora.db_postgres_migration"),  # a memdsl declaration's alternatives field
    ],
)
async def test_search_after_adopt_finds_each_kind_by_a_word_of_its_body(
    adopted: tuple[Path, dict[str, Any]], embedder: Embedder, query: str, address: str
) -> None:
    root, _ = adopted
    server = build_server(ServerSettings(root=root, prespawn=False), embedder=embedder)
    async with Client(server) as client:
        result = await client.call_tool("synapse", {"action": "search", "query": query, "limit": 3})
    hits = json.loads(result.content[0].text)["hits"]  # type: ignore[union-attr]
    assert hits and hits[0]["address"].startswith(address), hits
