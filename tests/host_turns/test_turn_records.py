"""Each pending turn's record in the cache: loaded only as issued, each step spent once, forgotten when old."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from adapters.cache_files import CacheLinkRefused
from synapse_server.errors import TurnInvalid, TurnUsed
from synapse_server.host_turns.record import FOLDER, TurnRecord, TurnRecords
from synapse_server.navigation.request import NavigateRequest

RECORD = TurnRecord(request=NavigateRequest(question="Why?"), client="host 1", digests=["a" * 16])


def records(tmp_path: Path, now: float = 1_000_000.0) -> TurnRecords:
    return TurnRecords(tmp_path / ".angelo", ttl_s=1800, clock=lambda: now)


def test_a_record_loads_back_only_against_the_digest_it_was_issued_with(tmp_path: Path) -> None:
    store = records(tmp_path)
    turn = store.create(RECORD)
    assert store.load(turn, RECORD.digest()) == RECORD
    advanced = RECORD.answered("reply one", "c" * 16)
    store.save(turn, advanced)
    with pytest.raises(TurnInvalid, match="record changed"):
        store.load(turn, RECORD.digest())
    assert store.load(turn, advanced.digest()).replies == ["reply one"]


def test_an_edited_record_on_disk_is_refused(tmp_path: Path) -> None:
    store = records(tmp_path)
    turn = store.create(RECORD)
    path = tmp_path / ".angelo" / FOLDER / f"{turn}.json"
    path.write_text(path.read_text(encoding="utf-8").replace("Why?", "Why not?"), encoding="utf-8")
    with pytest.raises(TurnInvalid):
        store.load(turn, RECORD.digest())


def test_a_finished_or_unknown_turn_is_gone_and_says_so(tmp_path: Path) -> None:
    store = records(tmp_path)
    turn = store.create(RECORD)
    store.finish(turn)
    with pytest.raises(TurnInvalid, match="no longer known"):
        store.load(turn, RECORD.digest())
    with pytest.raises(TurnInvalid):
        store.load("../../etc/passwd", RECORD.digest())


def test_a_step_is_spent_exactly_once_even_by_racing_calls(tmp_path: Path) -> None:
    store = records(tmp_path)
    turn = store.create(RECORD)
    outcomes: list[str] = []
    barrier = threading.Barrier(8)

    def spend() -> None:
        barrier.wait()
        try:
            store.claim(turn, 1)
            outcomes.append("spent")
        except TurnUsed:
            outcomes.append("used")

    threads = [threading.Thread(target=spend) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["spent"] + ["used"] * 7
    store.claim(turn, 2)  # the next step is its own


def test_prune_forgets_only_what_is_older_than_the_time_to_live(tmp_path: Path) -> None:
    store = records(tmp_path)
    old, fresh = store.create(RECORD), store.create(RECORD)
    store.claim(old, 1)
    folder = tmp_path / ".angelo" / FOLDER
    for name in (f"{old}.json", f"{old}.1.used"):
        os.utime(folder / name, (1_000_000.0 - 1801, 1_000_000.0 - 1801))
    assert store.prune() == 2
    assert sorted(p.name for p in folder.iterdir()) == [f"{fresh}.json"]
    assert records(tmp_path / "elsewhere").prune() == 0, "no turns folder yet: nothing to prune"


def test_a_turns_folder_committed_as_a_symlink_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (tmp_path / ".angelo").mkdir()
    (tmp_path / ".angelo" / FOLDER).symlink_to(outside)
    with pytest.raises(CacheLinkRefused):
        records(tmp_path).create(RECORD)
    assert list(outside.iterdir()) == []


def test_a_record_keeps_replies_paired_with_the_prompts_they_answered() -> None:
    transcript = RECORD.transcript("the reply")
    assert transcript.replies == ["the reply"] and transcript.digests == ["a" * 16]
    with pytest.raises(ValueError):
        type(transcript)(client="x", replies=["a", "b"], digests=["a" * 16])
