from __future__ import annotations

import pytest

from synapse_server.models import Completion, ModelError, ModelExhausted, ModelIdentity, Prompt, Usage
from tests.support.fake_model import FakeModel


def test_fake_model_answers_enqueued_replies_in_order_and_records_each_prompt() -> None:
    model = FakeModel("first")
    model.enqueue("second")

    assert model.complete("q1").text == "first"
    assert model.complete("q2", system="be terse", max_tokens=5).text == "second"
    assert model.history == [Prompt("q1"), Prompt("q2", "be terse", 5)]


def test_fake_model_keeps_the_usage_of_an_enqueued_completion() -> None:
    identity = ModelIdentity("fake", "counted")
    model = FakeModel(Completion("x", Usage(10, 2), identity))

    reply = model.complete("q")

    assert reply.usage == Usage(10, 2)
    assert reply.model == identity


def test_fake_model_with_nothing_queued_raises_a_typed_error() -> None:
    model = FakeModel()

    with pytest.raises(ModelExhausted):
        model.complete("q")
    assert model.history == [Prompt("q")]


@pytest.mark.parametrize("max_tokens", [0, -1, True])
def test_complete_refuses_a_non_positive_max_tokens_before_the_provider_runs(max_tokens: int) -> None:
    model = FakeModel("never")

    with pytest.raises(ModelError):
        model.complete("q", max_tokens=max_tokens)
    assert model.history == []


def test_usage_from_counts_accepts_only_non_negative_integers() -> None:
    assert Usage.from_counts(3, 4) == Usage(3, 4)
    assert Usage.from_counts(3, None) is None
    assert Usage.from_counts(-1, 4) is None
    assert Usage.from_counts(True, 4) is None
    assert Usage.from_counts("3", 4) is None
