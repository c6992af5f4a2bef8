"""A repository's committed symlinks in its cache folder: the dashboard never writes through them, and says so."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from adapters.cache_files import CacheLinkRefused
from synapse_server.dashboard.history import History
from synapse_server.demo import load_questions
from synapse_server.navigation.surfaces import ModelInfo, NavigateResult, failure_result
from tests.support.dashboard import FORM_TOKEN, snapshot

QUESTION = next(c for c in load_questions()["questions"] if c["id"] == "sharpe-after-cost-increase")["question"]
RESULT: NavigateResult = failure_result("budget", "a recorded turn", ModelInfo(provider="extractive", id="test"))
SHELL_RC = b"# a file outside the workspace that must never change\nexport PATH=$HOME/bin:$PATH\n"


def ask(client: Any, question: str) -> Any:
    posted = client.post("/ask", data={"question": question, "form_token": FORM_TOKEN}, follow_redirects=False)
    assert posted.status_code == 303
    return client.get(posted.headers["location"] + "?wait=120")


def outside_file(tmp_path: Path) -> Path:
    target = tmp_path / "outside" / "shellrc"
    target.parent.mkdir()
    target.write_bytes(SHELL_RC)
    return target


def test_a_committed_symlinked_history_file_is_refused_and_its_target_stays_byte_identical(
    demo: Path, open_dashboard: Callable, tmp_path: Path
) -> None:
    target = outside_file(tmp_path)
    (demo / ".angelo" / "dashboard").mkdir()
    (demo / ".angelo" / "dashboard" / "history.jsonl").symlink_to(target)
    with open_dashboard(demo) as client:
        page = ask(client, QUESTION)
        assert client.get("/history").status_code == 200
    assert target.read_bytes() == SHELL_RC
    assert page.status_code == 400 and 'role="alert"' in page.text
    assert "path_outside_workspace" in page.text and "dashboard/history.jsonl" in page.text


def test_a_symlinked_dashboard_folder_is_refused_and_nothing_lands_in_its_target(
    demo: Path, open_dashboard: Callable, tmp_path: Path
) -> None:
    target = outside_file(tmp_path)
    (demo / ".angelo" / "dashboard").symlink_to(target.parent, target_is_directory=True)
    with open_dashboard(demo) as client:
        page = ask(client, QUESTION)
    assert sorted(p.name for p in target.parent.iterdir()) == ["shellrc"]
    assert target.read_bytes() == SHELL_RC
    assert page.status_code == 400 and "path_outside_workspace" in page.text


def test_a_cache_folder_that_is_a_symlink_inside_the_repository_is_refused(
    demo: Path, open_dashboard: Callable
) -> None:
    elsewhere = demo / "elsewhere"
    (demo / ".angelo").rename(elsewhere)
    (demo / ".angelo").symlink_to("elsewhere", target_is_directory=True)
    before = snapshot(demo)
    with open_dashboard(demo) as client:
        page = ask(client, QUESTION)
    assert page.status_code == 400 and "path_outside_workspace" in page.text and ".angelo" in page.text
    assert snapshot(demo) == before  # neither the history nor the index was written through the link
    assert not (elsewhere / "dashboard").exists()


def test_history_refuses_a_symlinked_cache_folder_before_writing(tmp_path: Path) -> None:
    target = tmp_path / "outside"
    target.mkdir()
    cache = tmp_path / "workspace" / ".angelo"
    cache.parent.mkdir()
    cache.symlink_to(target, target_is_directory=True)
    history = History(cache)
    with pytest.raises(CacheLinkRefused) as refused:
        history.record("q", RESULT, "ask")
    assert refused.value.where == ".angelo"
    assert list(target.iterdir()) == []
    assert history.entries() == []


def test_a_history_file_that_is_not_a_plain_file_is_refused(tmp_path: Path) -> None:
    cache = tmp_path / ".angelo"
    (cache / "dashboard" / "history.jsonl").mkdir(parents=True)
    with pytest.raises(CacheLinkRefused):
        History(cache).record("q", RESULT, "ask")
    shutil.rmtree(cache / "dashboard" / "history.jsonl")
    assert History(cache).record("q", RESULT, "ask").question == "q"
