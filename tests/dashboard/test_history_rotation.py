"""The dashboard history stays bounded on disk and is shown one page at a time."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

from synapse_server.dashboard.history import PAGE_SIZE, History
from synapse_server.navigation.surfaces import ModelInfo, NavigateResult, failure_result

RESULT: NavigateResult = failure_result("budget", "a recorded turn", ModelInfo(provider="extractive", id="test"))


def questions_on_disk(log: Path) -> list[str]:
    return [json.loads(line)["question"] for line in log.read_text(encoding="utf-8").splitlines()]


def test_recording_past_the_limit_keeps_the_file_bounded_and_the_newest_entries(tmp_path: Path) -> None:
    limit = 4096
    history = History(tmp_path / ".angelo", max_file_bytes=limit)
    for number in range(200):
        history.record(f"question {number}", RESULT, "ask")
    log = tmp_path / ".angelo" / "dashboard" / "history.jsonl"
    rotated = log.with_name("history.jsonl.1")
    assert log.stat().st_size <= limit and rotated.stat().st_size <= limit
    assert sorted(p.name for p in log.parent.iterdir()) == ["history.jsonl", "history.jsonl.1"]
    kept = questions_on_disk(rotated) + questions_on_disk(log)
    assert kept == [f"question {n}" for n in range(200 - len(kept), 200)]  # the newest, in order, none lost between
    assert questions_on_disk(rotated) and len(kept) < 200  # the older file is kept, the oldest entries are gone
    shown = [entry.question for entry in history.entries()]
    assert shown == kept[::-1]


def test_a_page_of_history_holds_the_newest_entries_and_says_whether_more_follow(tmp_path: Path) -> None:
    history = History(tmp_path / ".angelo")
    for number in range(PAGE_SIZE + 3):
        history.record(f"question {number}", RESULT, "ask")
    first, second = history.page(1), history.page(2)
    assert [e.question for e in first.entries] == [f"question {n}" for n in range(PAGE_SIZE + 2, 2, -1)]
    assert first.has_next and not second.has_next
    assert [e.question for e in second.entries] == ["question 2", "question 1", "question 0"]
    assert history.page(3).entries == []


def test_the_history_page_shows_one_page_with_a_link_to_the_next(demo: Path, open_dashboard: Callable) -> None:
    history = History(demo / ".angelo")
    for number in range(PAGE_SIZE + 1):
        history.record(f"question number {number}?", RESULT, "ask")
    with open_dashboard(demo) as client:
        first = client.get("/history").text
        assert len(re.findall(r'href="/answers/', first)) == PAGE_SIZE
        assert f"question number {PAGE_SIZE}?" in first and "question number 0?" not in first
        assert 'href="/history?page=2"' in first
        second = client.get("/history?page=2").text
        assert len(re.findall(r'href="/answers/', second)) == 1 and "question number 0?" in second
        assert 'href="/history?page=3"' not in second and 'href="/history?page=1"' in second
        assert client.get("/history?page=junk").status_code == 200
