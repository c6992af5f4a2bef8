"""Hostile store contents: symlinks leaving the workspace, malformed YAML, binary files, a broken config.

Planted in a private demo copy, each next to ordinary content. Every action,
called with ordinary arguments, still answers (a valid result or a structured
error that is never ``internal_error``); nothing outside the workspace is read
into a result; lint names every planted file; source files stay as planted.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from adapters.index import Embedder
from synapse_server.workspace.config import load_workspace
from synapse_server.workspace.lint import lint_workspace
from tests.support.hostile_values import ORDINARY, baseline, served
from tests.support.reliability_checks import changed_paths, error_kind, forbidden_texts, source_digest, structured
from tests.support.servers import ServerFactory

pytestmark = pytest.mark.anyio

SECRET = "SECRET-MARKER-7f3a9c"
BAIT = "zanzibar quokka"
"""Words the outside files share with the queries: a followed link would surface them, and the marker with them."""
BINARY = bytes(range(256)) * 4 + b"\x00\xff\xfe\x80" + "ünïcode".encode("utf-16")


def plant_outside(outside: Path) -> None:
    """Files outside the workspace that would parse as valid entries if a symlink were followed."""
    (outside / "run").mkdir(parents=True)
    (outside / "memory.md").write_text(
        f"---\nid: deci-escape01\nkind: decision\ntitle: {SECRET}\nstatus: active\n---\n{BAIT} {SECRET} body\n",
        encoding="utf-8",
    )
    (outside / "note.md").write_text(
        f"---\nid: 20260101-0000-escape\ntype: claim\ntitle: {SECRET}\n---\n{BAIT} {SECRET} note\n", encoding="utf-8"
    )
    (outside / "run" / "run.yaml").write_text(f"id: run-escape\ntitle: {SECRET}\n", encoding="utf-8")
    (outside / "project" / "notes").mkdir(parents=True)
    (outside / "project" / "notes" / "20260101-0001-far.md").write_text(
        f"---\nid: 20260101-0001-far\ntype: claim\ntitle: {SECRET}\n---\n{BAIT} {SECRET}\n", encoding="utf-8"
    )


PLANTED = {
    # symlinks out of the workspace
    ".memory/tree/deci-escape01.md": "path-escape",
    ".zettelkasten/research/notes/20260101-0000-escape.md": "path-escape",
    "runs/run-escape": "path-escape",
    # malformed YAML
    ".memory/tree/deci-badyaml1.md": "yaml",
    ".zettelkasten/research/notes/20260101-0002-badyaml.md": "yaml",
    "runs/run-badyaml/run.yaml": "yaml",
    # binary
    ".memory/tree/deci-binary01.md": "binary",
    ".zettelkasten/research/notes/20260101-0003-binary.md": "binary",
    "runs/run-binary/run.yaml": "binary",
}


def plant(root: Path, outside: Path) -> None:
    tree, notes, runs = root / ".memory" / "tree", root / ".zettelkasten" / "research" / "notes", root / "runs"
    os.symlink(outside / "memory.md", tree / "deci-escape01.md")
    os.symlink(outside / "note.md", notes / "20260101-0000-escape.md")
    os.symlink(outside / "run", runs / "run-escape")
    os.symlink(outside / "project", root / ".zettelkasten" / "faraway")
    os.symlink(root / "no-such-file.md", tree / "deci-dangle01.md")
    (tree / "deci-badyaml1.md").write_text(
        "---\nid: deci-badyaml1\nkind: decision\ntitle: [unclosed\n  : : :\n---\nbody\n", encoding="utf-8"
    )
    (notes / "20260101-0002-badyaml.md").write_text(
        "---\nid: 20260101-0002-badyaml\ntype: claim\n\ttitle: tab {indented\n---\nbody\n", encoding="utf-8"
    )
    (runs / "run-badyaml").mkdir()
    (runs / "run-badyaml" / "run.yaml").write_text("id: run-badyaml\n: : :\n- [\n", encoding="utf-8")
    (tree / "deci-binary01.md").write_bytes(BINARY)
    (notes / "20260101-0003-binary.md").write_bytes(BINARY)
    (runs / "run-binary").mkdir()
    (runs / "run-binary" / "run.yaml").write_bytes(BINARY)
    (runs / "run-evil").mkdir()
    (runs / "run-evil" / "run.yaml").write_text(
        "id: run-evil\ntitle: Inputs outside the workspace\n"
        'inputs:\n  - {path: ../../../../etc/passwd, sha256: "00"}\n'
        'outputs:\n  - {path: /etc/passwd, sha256: "00"}\n',
        encoding="utf-8",
    )
    (root / "blob.bin").write_bytes(BINARY)
    git = [
        "git",
        "-C",
        str(root),
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@example.invalid",
        "-c",
        "commit.gpgsign=false",
    ]
    subprocess.run([*git, "add", "blob.bin"], check=True, capture_output=True)
    subprocess.run([*git, "commit", "-q", "-m", "a binary file"], check=True, capture_output=True)


def ordinary_calls() -> list[dict[str, Any]]:
    calls = [baseline(action, spec) for action, spec in served().items()]
    calls += [
        {"action": "search", "query": BAIT},
        {"action": "get", "id": "deci-badyaml1"},
        {"action": "get", "id": "deci-binary01"},
        {"action": "get", "id": "deci-dangle01"},
        {"action": "get", "id": "zk:research:20260101-0003-binary"},
        {"action": "get", "id": "zk:faraway:20260101-0001-far"},
        {"action": "get", "id": "data:runs:run-binary"},
        {"action": "get", "id": "data:runs:run-evil"},
        {"action": "get", "id": "repo:momentum:blob.bin"},
    ]
    return calls


async def test_symlinks_out_of_the_workspace_are_refused_and_never_read(
    make_server: ServerFactory, demo_copy: Path, tmp_path: Path, embedder: Embedder
) -> None:
    plant_outside(tmp_path / "outside")
    plant(demo_copy, tmp_path / "outside")
    forbidden = forbidden_texts(demo_copy, SECRET, str(tmp_path / "outside"))
    refused = ["deci-escape01", "zk:research:20260101-0000-escape", "data:runs:run-escape"]
    async with Client(make_server(demo_copy, embedder=embedder)) as client:
        for node_id in refused:
            result = await client.call_tool("synapse", {"action": "get", "id": node_id})
            assert error_kind(result, forbidden) == "path_outside_workspace", node_id
        hits = structured(await client.call_tool("synapse", {"action": "search", "query": BAIT}), forbidden)
        assert all("escape" not in hit["address"] for hit in hits["hits"])


async def test_every_action_answers_over_symlinked_malformed_and_binary_store_files(
    make_server: ServerFactory, demo_copy: Path, tmp_path: Path, embedder: Embedder
) -> None:
    plant_outside(tmp_path / "outside")
    plant(demo_copy, tmp_path / "outside")
    planted = source_digest(demo_copy)
    forbidden = forbidden_texts(demo_copy, SECRET, str(tmp_path / "outside"), "root:x:0")
    kinds: dict[str, str | None] = {}
    async with Client(make_server(demo_copy, embedder=embedder)) as client:
        for arguments in ordinary_calls():
            result = await client.call_tool("synapse", arguments)
            kinds[f"{arguments['action']}:{arguments.get('id', '')}"] = kind = error_kind(result, forbidden)
            assert kind not in {"internal_error", "failure"}, (arguments, result.structured_content)
        again = await client.call_tool("synapse", {"action": "get", "id": ORDINARY["id"]})
        assert error_kind(again, forbidden) is None
    assert kinds["search:"] is None and kinds["navigate:"] is None, kinds
    assert changed_paths(planted, source_digest(demo_copy)) == []


def test_lint_names_every_planted_file_and_never_follows_a_link_out(demo_copy: Path, tmp_path: Path) -> None:
    plant_outside(tmp_path / "outside")
    plant(demo_copy, tmp_path / "outside")
    report = lint_workspace(load_workspace(demo_copy)).to_dict()
    by_path: dict[str, set[str]] = {}
    for diagnostic in report["diagnostics"]:
        by_path.setdefault(diagnostic["path"], set()).add(diagnostic["code"])
    missing = {path: code for path, code in PLANTED.items() if not any(p.startswith(path) for p in by_path)}
    assert missing == {}, by_path
    escapes = {p for p, codes in by_path.items() if "path-escape" in codes}
    assert {p for p, code in PLANTED.items() if code == "path-escape"} <= escapes, by_path
    assert SECRET not in str(report)


async def test_a_malformed_config_is_a_config_error_for_every_action_until_it_is_fixed(
    make_server: ServerFactory, demo_copy: Path, embedder: Embedder
) -> None:
    config = demo_copy / ".synapse" / "config.yaml"
    good = config.read_bytes()
    forbidden = forbidden_texts(demo_copy)
    async with Client(make_server(demo_copy, embedder=embedder, job="echo")) as client:
        assert error_kind(await client.call_tool("synapse", {"action": "get", "id": ORDINARY["id"]})) is None
        for broken in (b"projects: [research\n  cache: : :\n", BINARY, b"- just\n- a list\n", b"projects: 7\n"):
            config.write_bytes(broken)
            for action, spec in served().items():
                result = await client.call_tool("synapse", baseline(action, spec))
                assert error_kind(result, forbidden) == "config_error", (broken[:30], action, result.structured_content)
        config.write_bytes(good)
        assert error_kind(await client.call_tool("synapse", {"action": "get", "id": ORDINARY["id"]})) is None


def escape_the_cache(root: Path) -> None:
    config = root / ".synapse" / "config.yaml"
    config.write_text(
        config.read_text(encoding="utf-8").replace("cache: .angelo", "cache: ../escaped-cache"), encoding="utf-8"
    )


async def test_a_cache_folder_configured_outside_the_workspace_is_never_created(
    make_server: ServerFactory, demo_copy: Path, embedder: Embedder
) -> None:
    escape_the_cache(demo_copy)
    async with Client(make_server(demo_copy, embedder=embedder, job="echo")) as client:
        for action, spec in served().items():
            kind = error_kind(await client.call_tool("synapse", baseline(action, spec)))
            assert kind in {None, "config_error"}, (action, kind)
    assert not (demo_copy.parent / "escaped-cache").exists()


async def test_a_config_error_names_the_config_file_relative_to_the_workspace(
    make_server: ServerFactory, demo_copy: Path, embedder: Embedder
) -> None:
    escape_the_cache(demo_copy)
    async with Client(make_server(demo_copy, embedder=embedder)) as client:
        result = await client.call_tool("synapse", {"action": "search", "query": "momentum"})
        assert error_kind(result, forbidden_texts(demo_copy)) == "config_error"


async def test_a_symlink_loop_in_a_store_costs_one_file_not_the_store(
    make_server: ServerFactory, demo_copy: Path, embedder: Embedder
) -> None:
    tree = demo_copy / ".memory" / "tree"
    os.symlink(tree / "deci-loop0001.md", tree / "deci-loop0001.md")
    async with Client(make_server(demo_copy, embedder=embedder)) as client:
        result = await client.call_tool("synapse", {"action": "get", "id": ORDINARY["id"]})
        assert error_kind(result, forbidden_texts(demo_copy)) is None, result.structured_content
    report = lint_workspace(load_workspace(demo_copy)).to_dict()
    assert any(d["path"].endswith("deci-loop0001.md") for d in report["diagnostics"])
