"""Status words as teams write them: each read as a phrase, mapped to a canonical state, its own words kept."""

from __future__ import annotations

import pytest

from adapters.adr_status import MEMORY_STATUS, PHRASES, STATES, read_status
from adapters.base import Node
from synapse_server.navigation.epistemics import derive


@pytest.mark.parametrize(
    ("written", "word", "state"),
    [
        pytest.param("Accepted", "accepted", "accepted", id="accepted"),
        pytest.param("Approved", "approved", "accepted", id="approved"),
        pytest.param("\u2705 **Adopted**", "adopted", "accepted", id="emoji-and-bold"),
        pytest.param("Pending", "pending", "proposed", id="pending"),
        pytest.param("draft", "draft", "proposed", id="draft"),
        pytest.param("proposed. **This ADR did not reach consensus.**", "proposed", "proposed", id="with-a-note"),
        pytest.param("on hold", "on hold", "on hold", id="on-hold-not-on"),
        pytest.param("Partly superseded", "partly superseded", "partly superseded", id="partly-not-partly"),
        pytest.param("Superseded by [DNS Infrastructure](0015-dns.md)", "superseded", "superseded", id="link-text"),
        pytest.param("Status: Deprecated", "deprecated", "deprecated", id="status-prefix"),
        pytest.param("Not accepted", "not accepted", "rejected", id="negation"),
        pytest.param("Declined", "declined", "rejected", id="declined"),
        pytest.param("Rolled back in 2021", "rolled back", "reverted", id="rolled-back"),
        pytest.param("Amended by [7. Y](0007-y.md)", "amended", "amended", id="amended"),
    ],
)
def test_a_status_is_read_as_a_phrase_and_mapped(written: str, word: str, state: str) -> None:
    status = read_status(written)
    assert status is not None and (status.word, status.state, status.memory) == (word, state, MEMORY_STATUS[state])


def test_an_unknown_status_keeps_its_first_word_and_maps_to_nothing() -> None:
    status = read_status("Pondering it")
    assert status is not None and (status.word, status.state, status.memory) == ("pondering", None, None)
    assert read_status("") is None and read_status("**") is None


def test_every_phrase_maps_to_a_known_state_and_every_state_to_a_memory_status() -> None:
    assert set(PHRASES.values()) == set(STATES) == set(MEMORY_STATUS)
    assert set(MEMORY_STATUS.values()) <= {"active", "superseded", "abandoned"}


def test_a_record_in_a_not_current_state_is_disclosed_with_its_own_words() -> None:
    record = Node(
        "mem:adr:0007-x",
        "decision",
        "X",
        "## Status\n\nDeclined",
        "memory",
        meta={"adr_status": "declined", "adr_state": "rejected", "status": "abandoned"},
    )
    assert derive(record, []).superseded_disclosure == "mem:adr:0007-x is not current (status: declined)"
    on_hold = Node(
        "mem:adr:0008-y", "decision", "Y", "", "memory", meta={"adr_status": "on hold", "adr_state": "on hold"}
    )
    assert derive(on_hold, []).superseded_disclosure is None
