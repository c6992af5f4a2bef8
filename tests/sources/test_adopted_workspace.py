"""A repository adopted in place: init --adopt, no double evidence, and search/frame/build/get over its sources.

Integration level: real git repositories, the real embedding model, the real
server through the in-memory MCP client, and the CLI as a subprocess for the
fresh-clone path a new user takes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from adapters.index import Embedder
from synapse_server.actions.deps import ServerSettings
from synapse_server.mcp.server import build_server
from synapse_server.workspace.adopt import adopt
from synapse_server.workspace.config import load_workspace
from synapse_server.workspace.source_config import CACHE_ENV
from synapse_server.workspace.stores import Stores
from tests.support.source_fixtures import (
    WHY_QUESTION,
    adr_repo,
    commit_all,
    git,
    madr_files,
    mem_files,
    vault_files,
    write_files,
)

REPO_ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.anyio


def synapse(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The CLI of this checkout, as a user runs it."""
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "HF_HUB_OFFLINE": "1"}
    return subprocess.run(
        [sys.executable, "-m", "synapse_server", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


@pytest.fixture
def knowledge_repo(tmp_path: Path) -> Path:
    """A repository that keeps ADRs (both layouts), a vault, .mem files and a little code; all committed."""
    root = adr_repo(tmp_path / "repo")
    madr_files(root / "docs" / "decisions")
    vault_files(root / "notes")
    (root / "notes" / ".obsidian").mkdir(exist_ok=True)
    mem_files(root / "memory")
    write_files(
        root, {"README.md": "# Billing\n\nThe billing service.\n", "billing/ledger.py": "def post():\n    return 1\n"}
    )
    (root / "assets").mkdir()
    (root / "assets" / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    write_files(root, {"generated/schema.txt": "generated\n"})
    commit_all(root, "knowledge")
    return root


def test_done_when_a_fresh_clone_with_only_adrs_answers_a_why_question_citing_mem(tmp_path: Path) -> None:
    origin = adr_repo(tmp_path / "origin")
    subprocess.run(["git", "clone", "--quiet", str(origin), str(tmp_path / "clone")], check=True)
    clone = tmp_path / "clone"
    adopted = synapse("init", "--adopt", ".", cwd=clone)
    assert adopted.returncode == 0, adopted.stderr
    assert "adr    doc/adr  (5 decision records)" in adopted.stdout
    assert git(clone, "status", "--porcelain") == "?? .synapse/"  # nothing else in the repository changed
    done = synapse("navigate", WHY_QUESTION, "--json", cwd=clone)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["verdict"] in ("answer", "abstain")
    assert "mem:adr:0005-keep-ledger-amounts-in-integer-cents" in result["envelope"]
    assert "repo:" not in result["envelope"]  # the ADRs are memory, not also code files
    if result["verdict"] == "answer":
        cited = [c["address"] for c in result["answer_surface"]["citations"]]
        assert cited and all(address.startswith("mem:adr:") for address in cited)
        assert "mem:adr:0005-keep-ledger-amounts-in-integer-cents" in cited
    else:
        assert result["reasons"], "an abstention names its reason"
    assert git(clone, "status", "--porcelain") == "?? .synapse/"  # navigate wrote no cache into the repository


def test_adopt_detects_every_kind_and_writes_only_the_config(knowledge_repo: Path) -> None:
    done = adopt(knowledge_repo)
    kinds = {(f.source.kind, f.source.path): f.files for f in done.findings}
    assert kinds == {("adr", "doc/adr"): 5, ("adr", "docs/decisions"): 5, ("notes", "notes"): 3, ("mem", "memory"): 2}
    assert git(knowledge_repo, "status", "--porcelain") == "?? .synapse/"
    assert os.environ[CACHE_ENV] in str(done.cache_dir)  # outside the repository
    workspace = load_workspace(knowledge_repo)
    assert [s.segment for s in workspace.config.sources] == ["adr", "docs-decisions", "notes", "mem"]


def test_a_second_adr_folder_gets_its_own_name_and_a_collision_is_a_lint_error(knowledge_repo: Path) -> None:
    adopt(knowledge_repo)
    nodes = Stores.load(load_workspace(knowledge_repo)).nodes
    assert (
        "mem:docs-decisions:0003-move-to-a-managed-queue" in nodes
        and "mem:adr:0003-store-the-ledger-in-sqlite" in nodes
    )
    config = knowledge_repo / ".synapse" / "config.yaml"
    config.write_text(config.read_text(encoding="utf-8").replace(", name: docs-decisions", ""), encoding="utf-8")
    same = "0003-store-the-ledger-in-sqlite.md"
    (knowledge_repo / "docs/decisions" / same).write_text(
        (knowledge_repo / "doc/adr" / same).read_text(encoding="utf-8"), encoding="utf-8"
    )
    report = json.loads(synapse("lint", "--json", cwd=knowledge_repo).stdout)
    clash = [d for d in report["diagnostics"] if d["code"] == "duplicate-id"]
    assert [d["path"] for d in clash] == ["docs/decisions/0003-store-the-ledger-in-sqlite.md"]
    assert "doc/adr/0003-store-the-ledger-in-sqlite.md" in clash[0]["message"]


def test_adopt_with_gitignore_keeps_the_cache_inside_and_ignores_it(knowledge_repo: Path) -> None:
    done = adopt(knowledge_repo, gitignore=True)
    assert done.cache_dir == knowledge_repo.resolve() / ".angelo" and done.gitignore_changed
    assert sorted(git(knowledge_repo, "status", "--porcelain").splitlines()) == ["?? .gitignore", "?? .synapse/"]


def test_adopt_refuses_a_repository_that_already_has_a_config(knowledge_repo: Path) -> None:
    assert synapse("init", "--adopt", ".", cwd=knowledge_repo).returncode == 0
    again = synapse("init", "--adopt", ".", "--json", cwd=knowledge_repo)
    assert again.returncode == 2 and json.loads(again.stderr)["error"]["kind"] == "workspace_error"


def test_no_double_evidence_adopted_files_and_binaries_are_not_code_and_exclude_globs_apply(
    knowledge_repo: Path,
) -> None:
    adopt(knowledge_repo)
    config = knowledge_repo / ".synapse" / "config.yaml"
    config.write_text(
        config.read_text(encoding="utf-8").replace("exclude: []", 'exclude: ["generated/**"]'), encoding="utf-8"
    )
    nodes = Stores.load(load_workspace(knowledge_repo)).nodes
    code = {n.path for n in nodes.values() if n.family == "code" and n.type == "file"}
    assert code == {"README.md", "billing/ledger.py", "docs/decisions/README.md", "docs/decisions/template.md"}
    adopted = {n.path for n in nodes.values() if n.family != "code" and n.path}
    assert "doc/adr/0001-record-architecture-decisions.md" in adopted and "memory/team.mem" in adopted
    assert "notes/Projections.md" in adopted


def test_no_command_creates_a_cache_in_a_folder_that_is_not_a_workspace(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "notes.txt").write_text("hello\n", encoding="utf-8")
    for args in (("search", "hello", "--root", ".", "--json"), ("navigate", "hello there?", "--root", ".", "--json")):
        done = synapse(*args, cwd=plain)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        assert "not a Synapse workspace" in json.loads(done.stderr)["error"]["message"]
    assert sorted(p.name for p in plain.iterdir()) == ["notes.txt"]


def test_lint_and_serve_check_agree_and_verbose_shows_info_notes(knowledge_repo: Path) -> None:
    adopt(knowledge_repo)
    config = knowledge_repo / ".synapse" / "config.yaml"
    config.write_text(config.read_text(encoding="utf-8") + "runs: experiments\n", encoding="utf-8")
    (knowledge_repo / "experiments").mkdir()
    lint = synapse("lint", "--json", cwd=knowledge_repo)
    report = json.loads(lint.stdout)
    codes = {d["code"] for d in report["diagnostics"]}
    assert {"empty-store", "mem-syntax", "dangling-ref"} <= codes
    empty = [d for d in report["diagnostics"] if d["code"] == "empty-store"]
    assert empty[0]["severity"] == "warning" and "experiments" in empty[0]["message"]
    check = json.loads(synapse("serve", "--check", "--json", cwd=knowledge_repo).stdout)["stores"]
    assert (check["errors"], check["warnings"], check["info"]) == (report["errors"], report["warnings"], report["info"])
    assert report["info"] > 0  # the absent default .memory/ and .zettelkasten/ folders
    quiet = synapse("lint", cwd=knowledge_repo).stdout
    verbose = synapse("lint", "--verbose", cwd=knowledge_repo).stdout
    assert "info[missing-store]" not in quiet and "info[missing-store]" in verbose


def _payload(result: Any) -> dict[str, Any]:
    assert result.structured_content is not None, result
    return dict(result.structured_content)


async def test_search_frame_build_and_get_see_adopted_sources(knowledge_repo: Path, embedder: Embedder) -> None:
    from mcp import Client

    adopt(knowledge_repo)
    server = build_server(ServerSettings(root=knowledge_repo, prespawn=False), embedder=embedder)
    async with Client(server) as client:
        search = _payload(
            await client.call_tool("synapse", {"action": "search", "query": "ledger amounts integer cents"})
        )
        hits = {h["address"]: h for h in search["hits"]}
        assert hits["mem:adr:0005-keep-ledger-amounts-in-integer-cents"]["store"] == "memory"
        assert "mem:mem:ledger.integer_cents" in hits
        notes = _payload(await client.call_tool("synapse", {"action": "search", "query": "replaying ledger events"}))
        assert any(
            h["address"] == "zk:vault:event-sourcing" or h["address"] == "zk:notes:event-sourcing"
            for h in notes["hits"]
        )
        frame = _payload(
            await client.call_tool("synapse", {"action": "frame", "question": "How do we store ledger events?"})
        )
        assert "mem:adr:" in json.dumps(frame) and "zk:notes:" in json.dumps(frame)
        built = _payload(await client.call_tool("synapse", {"action": "build"}))
        assert built["kept"] > 0
        links = json.loads((knowledge_repo / built["path"]).read_text(encoding="utf-8"))
        text = json.dumps(links)
        assert "mem:adr:" in text and "zk:notes:" in text
        got = _payload(
            await client.call_tool(
                "synapse", {"action": "get", "id": "doc/adr/0005-keep-ledger-amounts-in-integer-cents.md"}
            )
        )
        assert got["address"] == "mem:adr:0005-keep-ledger-amounts-in-integer-cents" and got["store"] == "mem"
        code = _payload(await client.call_tool("synapse", {"action": "get", "id": "billing/ledger.py"}))
        assert code["address"].endswith(":billing/ledger.py") and code["family"] == "code"
    assert git(knowledge_repo, "status", "--porcelain") == "?? .synapse/"


def test_pointing_memory_at_an_adr_folder_is_an_empty_store_warning_not_silence(tmp_path: Path) -> None:
    root = adr_repo(tmp_path / "repo")
    write_files(root, {".synapse/config.yaml": "memory: doc/adr\n"})
    report = json.loads(synapse("lint", "--json", cwd=root).stdout)
    empty = [d for d in report["diagnostics"] if d["code"] == "empty-store"]
    assert [(d["severity"], d["line"]) for d in empty] == [("warning", 1)] and "doc/adr" in empty[0]["message"]
