"""A typing reply is unwrapped in linear time: blank lines after a ``` fence never make the fence pattern backtrack."""

from __future__ import annotations

import json
import time

from synapse_server.overlay.typer import Skip, TypedEdge, parse_typing_reply

BOUND_S = 5.0
"""Generous for a linear read of 100k characters; the old pattern took minutes on this reply."""


def test_a_fence_followed_by_a_run_of_blank_lines_is_read_in_linear_time() -> None:
    reply = "```json" + "\n" * 100_000 + "x"
    started = time.perf_counter()
    outcome = parse_typing_reply(reply, "t")
    seconds = time.perf_counter() - started
    assert seconds < BOUND_S, f"parse_typing_reply took {seconds:.1f} s"
    assert isinstance(outcome, Skip)


def test_blank_lines_between_the_fence_and_the_object_are_still_a_wrapper() -> None:
    body = json.dumps({"relation": "motivated-by", "confidence": 1, "rationale": "Costs rose."})
    outcome = parse_typing_reply("```json  \n\n \n" + body + "\n```", "t")
    assert outcome == TypedEdge("motivated-by", 1.0, "Costs rose.", "t")
