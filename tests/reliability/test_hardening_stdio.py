"""Hardening faults that were the server's, each shown over real stdio against the installed ``synapse serve``.

One demo copy per class of fault: hostile store files (FIFOs, an alias bomb,
a huge note, a path-shaped id), a git directory outside the workspace, a
links folder symlinked into a source store, and hostile config values
(deep nesting, ``federation: /``, a cache inside a store, a ``command:``
model chosen by the committed config alone). Every call must answer with a
result or a structured error, within a bounded time, and leave nothing
written where it must not be.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path

import anyio
import pytest

from tests.support.procs import children, workers_for
from tests.support.reliability_checks import error_kind, structured
from tests.support.reliability_stdio import SYNAPSE, stdio_server

pytestmark = pytest.mark.anyio

CALL_S = 180
SECRET = "SECRET-OUTSIDE-41d9"
ORDINARY_GET = "deci-c3d4e5f6"


def _env(**extra: str) -> dict[str, str]:
    """The server's environment: this checkout's import path (when set) plus ``extra``."""
    inherited = {k: os.environ[k] for k in ("PYTHONPATH", "HF_HUB_OFFLINE") if k in os.environ}
    return {**inherited, **extra}


def _outside_repo(root: Path) -> None:
    """A real repository outside the workspace whose HEAD holds a secret file."""
    root.mkdir(parents=True)
    (root / "secret.txt").write_text(f"{SECRET} zanzibar quokka\n", encoding="utf-8")
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    identity = ["-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    for args in (["init", "-q"], ["add", "secret.txt"], [*identity, "commit", "-qm", "outside"]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


def _set_config(root: Path, old: str, new: str) -> None:
    config = root / ".synapse" / "config.yaml"
    text = config.read_text(encoding="utf-8")
    assert old in text
    config.write_text(text.replace(old, new, 1), encoding="utf-8")


async def _call(server: object, **arguments: object) -> tuple[str | None, dict[str, object]]:
    with anyio.fail_after(CALL_S):
        result = await server.session.call_tool("synapse", arguments)  # type: ignore[attr-defined]
    return error_kind(result), structured(result)


async def test_hostile_store_files_never_block_or_bloat_the_server(demo_copy: Path) -> None:
    tree, runs = demo_copy / ".memory" / "tree", demo_copy / "runs"
    os.mkfifo(tree / "note-f1f0f1f0.md")
    (runs / "run-fifo").mkdir()
    os.mkfifo(runs / "run-fifo" / "run.yaml")
    (runs / "run-bomb").mkdir()
    bomb = "".join(f"  l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 9 if i else ["lol"] * 9) + "]\n" for i in range(9))
    (runs / "run-bomb" / "run.yaml").write_text(f"id: run-bomb\ntitle: Bomb\nparams:\n{bomb}", encoding="utf-8")
    huge = "Momentum volatility note. " * 400_000  # ~10 MB
    (tree / "note-b16b16b1.md").write_text(f"---\nid: note-b16b16b1\nkind: note\ntitle: Huge\n---\n\n{huge}\n", "utf-8")
    (tree / "note-7a7a7a7a.md").write_text(
        "---\nid: '../../../etc/passwd'\nkind: note\ntitle: Traversal\n---\n\nBody.\n", encoding="utf-8"
    )
    before = children()
    with tempfile.TemporaryFile("w+", encoding="utf-8") as log:
        async with stdio_server(demo_copy, log, env=_env()) as server:
            kind, search = await _call(server, action="search", query="momentum volatility", limit=5)
            assert kind is None, search
            kind, big = await _call(server, action="get", id="note-b16b16b1")
            assert kind is None and len(str(big["body"]).encode("utf-8")) <= 256_000
            assert (await _call(server, action="get", id="data:runs:run-bomb"))[0] == "not_found"
            assert (await _call(server, action="get", id="data:runs:run-fifo"))[0] == "not_found"
            assert (await _call(server, action="get", id="../../../etc/passwd"))[0] in {
                "not_found",
                "path_outside_workspace",
            }
            kind, turn = await _call(server, action="navigate", question="What volatility target do we use?")
            assert kind is None and turn["verdict"] in {"answer", "abstain"}, turn
            assert (await _call(server, action="get", id=ORDINARY_GET))[0] is None
    assert workers_for(demo_copy) == [] and children() == before
    lint = subprocess.run(
        [str(SYNAPSE), "lint", "--root", str(demo_copy), "--json"],
        capture_output=True, text=True, timeout=CALL_S, env={**os.environ, **_env()}, check=False,
    )  # fmt: skip
    codes = {(d["path"], d["code"]) for d in json.loads(lint.stdout)["diagnostics"]}
    assert (".memory/tree/note-f1f0f1f0.md", "unreadable") in codes
    assert ("runs/run-fifo/run.yaml", "unreadable") in codes
    assert ("runs/run-bomb/run.yaml", "yaml") in codes
    assert (".memory/tree/note-b16b16b1.md", "body-too-large") in codes
    assert (".memory/tree/note-7a7a7a7a.md", "bad-id") in codes


async def test_a_git_directory_outside_the_workspace_is_never_read(demo_copy: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    _outside_repo(outside)
    os.rename(demo_copy / ".git", tmp_path / "moved-git")
    (demo_copy / ".git").write_text(f"gitdir: {outside / '.git'}\n", encoding="utf-8")
    with tempfile.TemporaryFile("w+", encoding="utf-8") as log:
        async with stdio_server(demo_copy, log, env=_env()) as server:
            kind, body = await _call(server, action="get", id="repo:momentum:secret.txt")
            assert kind == "not_found" and SECRET not in json.dumps(body)
            kind, found = await _call(server, action="search", query="zanzibar quokka secret", limit=10)
            assert kind is None and SECRET not in json.dumps(found)


async def test_build_never_writes_through_a_links_folder_symlinked_into_a_store(demo_copy: Path) -> None:
    links = demo_copy / ".synapse" / "links"
    if links.exists():
        for child in links.iterdir():
            child.unlink()
        links.rmdir()
    links.symlink_to(demo_copy / ".memory" / "tree", target_is_directory=True)
    tree_before = sorted(p.name for p in (demo_copy / ".memory" / "tree").iterdir())
    with tempfile.TemporaryFile("w+", encoding="utf-8") as log:
        async with stdio_server(demo_copy, log, env=_env()) as server:
            kind, body = await _call(server, action="build")
            assert kind == "path_outside_workspace", body
    assert sorted(p.name for p in (demo_copy / ".memory" / "tree").iterdir()) == tree_before


async def test_hostile_config_values_are_config_errors_and_a_workspace_command_model_never_runs(
    demo_copy: Path, tmp_path: Path
) -> None:
    config = demo_copy / ".synapse" / "config.yaml"
    good = config.read_text(encoding="utf-8")
    marker = tmp_path / "pwned"
    hostile = {
        "deep-nesting": good.replace("federation: {}", "federation: " + "[" * 2000 + "]" * 2000),
        "federation-root": good.replace("federation: {}", "federation: {root: /}"),
        "cache-in-store": good.replace("cache: .angelo", "cache: .memory/tree"),
    }
    with tempfile.TemporaryFile("w+", encoding="utf-8") as log:
        async with stdio_server(demo_copy, log, env=_env()) as server:
            for label, text in hostile.items():
                config.write_text(text, encoding="utf-8")
                for arguments in ({"action": "get", "id": ORDINARY_GET}, {"action": "search", "query": "momentum"}):
                    kind, body = await _call(server, **arguments)
                    assert kind == "config_error", (label, body)
            assert not any(p.suffix == ".sqlite3" for p in (demo_copy / ".memory" / "tree").iterdir())
            config.write_text(good.replace("model: extractive", f'model: "command:touch {marker}"'), encoding="utf-8")
            for arguments in (
                {"action": "navigate", "question": "What volatility target do we use?"},
                {"action": "build"},
                {"action": "frame", "question": "What do we know about costs?"},
            ):
                kind, body = await _call(server, **arguments)
                assert kind == "config_error", (arguments, body)
                assert "SYNAPSE_TRUST_WORKSPACE_MODEL" in json.dumps(body)
            kind, _ = await _call(server, action="get", id=ORDINARY_GET)
            assert kind is None  # actions that need no model still serve
    assert not marker.exists()


@pytest.mark.parametrize(("extra", "trusted"), [({}, False), ({"SYNAPSE_TRUST_WORKSPACE_MODEL": "1"}, True)])
def test_serve_check_says_where_the_model_came_from_and_whether_it_is_trusted(
    demo_copy: Path, extra: dict[str, str], trusted: bool
) -> None:
    _set_config(demo_copy, "model: extractive", 'model: "command:claude -p"')
    done = subprocess.run(
        [str(SYNAPSE), "serve", "--root", str(demo_copy), "--check", "--json"],
        capture_output=True, text=True, timeout=CALL_S, env={**os.environ, **_env(**extra)}, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    model = json.loads(done.stdout)["model"]
    assert model == {"spec": "command:claude -p", "source": "config", "trusted": trusted}
