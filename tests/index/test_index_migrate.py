"""``synapse index migrate``: the SQLite index copied into PostgreSQL with no encoder work, then shared."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from adapters.index import Embedder
from synapse_server.workspace.config import load_workspace
from synapse_server.workspace.init import make_demo
from synapse_server.workspace.stores import Stores, index_settings
from tests.support.index_corpus import CountingEncoder

REPO = Path(__file__).resolve().parents[2]
QUERY = "why did net returns drop after costs rose"

_MIGRATE = """
import json, sys
from synapse_server.cli.main import main
rc = main(["index", "migrate", "--root", sys.argv[1], "--json"])
print(json.dumps({"rc": rc, "loaded": sorted(m for m in ("onnxruntime", "torch", "tokenizers") if m in sys.modules)}))
"""


def _cli(*args: str, dsn: str | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "SYNAPSE_INDEX_DSN"}
    if dsn is not None:
        env["SYNAPSE_INDEX_DSN"] = dsn
    return subprocess.run(
        [sys.executable, *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=300, check=False
    )


def test_migrate_copies_the_index_without_an_encoder_and_a_second_clone_embeds_nothing(
    tmp_path: Path, embedder: Embedder, postgres_dsn: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SYNAPSE_INDEX_DSN", raising=False)
    first = make_demo(tmp_path / "first")
    stores = Stores.load(load_workspace(first))
    stores.open_index(embedder).close()  # the embedded SQLite index, as a single user has it
    assert (first / ".angelo" / "index-default.sqlite3").is_file()

    done = _cli("-c", _MIGRATE, str(first), dsn=postgres_dsn)
    assert done.returncode == 0, done.stderr
    report, outcome = (json.loads(part) for part in done.stdout.strip().rsplit("\n", 1))
    assert outcome == {"rc": 0, "loaded": []}  # no encoder could have run: none of its libraries was imported
    assert report["copied"] == len(stores.nodes) and report["embedded"] == 0
    assert postgres_dsn not in done.stdout + done.stderr

    checked = _cli("-m", "synapse_server", "serve", "--root", str(first), "--check", "--json", dsn=postgres_dsn)
    assert checked.returncode == 0, checked.stderr
    shown = json.loads(checked.stdout)["index"]
    assert shown["cache"].startswith("postgres (workspace ") and shown["docs"] == len(stores.nodes)
    assert shown["complete"] and postgres_dsn not in checked.stdout

    monkeypatch.setenv("SYNAPSE_INDEX_DSN", postgres_dsn)
    counter = CountingEncoder(embedder)
    with Stores.load(load_workspace(first)).open_index(counter) as index:
        assert index.path is None and len(index) == len(stores.nodes)
    assert counter.texts == []

    second = make_demo(tmp_path / "second")  # another clone: its own workspace key, the same texts
    second_ws = load_workspace(second)
    assert index_settings(second_ws).workspace != index_settings(load_workspace(first)).workspace
    counter = CountingEncoder(embedder)
    with Stores.load(second_ws).open_index(counter) as index:
        hits = index.search(QUERY, limit=5)
    assert counter.texts == [QUERY]  # its first search embedded the query and no document
    assert hits and hits[0].lexical_rank is not None and hits[0].semantic_rank is not None
    assert not (second / ".angelo" / "index-default.sqlite3").exists()

    searched = _cli("-m", "synapse_server", "search", QUERY, "--root", str(second), "--json", dsn=postgres_dsn)
    assert searched.returncode == 0, searched.stderr
    payload = json.loads(searched.stdout)
    assert payload["hits"][0]["address"] == hits[0].address
    assert postgres_dsn not in searched.stdout + searched.stderr


def test_migrate_without_a_target_or_an_index_is_invalid_input(tmp_path: Path, postgres_dsn: str) -> None:
    root = make_demo(tmp_path / "demo")
    no_target = _cli("-m", "synapse_server", "index", "migrate", "--root", str(root), "--json", dsn=None)
    assert no_target.returncode == 2 and json.loads(no_target.stderr)["error"]["parameter"] == "to"
    no_index = _cli("-m", "synapse_server", "index", "migrate", "--root", str(root), "--json", dsn=postgres_dsn)
    assert no_index.returncode == 2 and json.loads(no_index.stderr)["error"]["parameter"] == "root"


def test_an_unreachable_database_is_a_structured_error_without_the_dsn(tmp_path: Path, embedder: Embedder) -> None:
    root = make_demo(tmp_path / "demo")
    Stores.load(load_workspace(root)).open_index(embedder).close()
    dsn = f"postgresql://team:hunter2-secret@/synapse?host={tmp_path / 'no-server-here'}&connect_timeout=2"
    for args in (("index", "migrate"), ("search", "costs")):
        done = _cli("-m", "synapse_server", *args, "--root", str(root), "--json", dsn=dsn)
        error = json.loads(done.stderr.strip().splitlines()[-1])["error"]
        assert done.returncode == 1 and error["kind"] == "index_unavailable"
        assert "hunter2" not in done.stderr + done.stdout and "no-server-here" not in done.stderr + done.stdout
