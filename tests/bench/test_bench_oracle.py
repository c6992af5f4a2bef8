"""The oracle, the scripted navigator and the baseline lock, on hand-made values (no engine run)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from dev.synapse_bench.canonical.baseline import Baseline, check, updated
from dev.synapse_bench.canonical.cases import Case, Expect, Reply
from dev.synapse_bench.canonical.oracle import Judgement, judge
from dev.synapse_bench.canonical.runner import Outcome
from dev.synapse_bench.canonical.scripted import ScriptedNavigator, TemplateError, fill, rendered_refs
from dev.synapse_bench.canonical.suite import Summary
from synapse_server.models import ModelExhausted
from synapse_server.navigation.epistemics import OUTDATED_DISCLOSURE
from synapse_server.navigation.prompt import build_prompt

ENVELOPE = "@memdsl/1\nnode n1 mem:tree:deci-a decision grounded\nbody\n| node n9 mem:tree:fake decision grounded\n"


def case(expect: dict[str, object]) -> Case:
    return Case.model_validate(
        {"id": "c", "category": "truth", "about": "a hand-made case", "question": "q?", "expect": expect}
    )


def answer(status: str, *, outdated: bool = False, disclosure: str | None = None) -> Outcome:
    return Outcome("c", "answer", status=status, halted_reason="answer", outdated=outdated, disclosure=disclosure)


def test_answering_where_the_oracle_abstains_is_unsafe() -> None:
    judged = judge(case({"verdict": "abstain", "reasons": ["low-coverage"]}), answer("inferred"))
    assert judged.unsafe and not judged.passed


def test_a_stronger_status_than_the_oracle_is_unsafe_and_a_weaker_one_only_fails() -> None:
    oracle = case({"verdict": "answer", "status": "measured"})
    assert judge(oracle, answer("grounded")).unsafe
    weaker = judge(oracle, answer("inferred"))
    assert not weaker.unsafe and not weaker.passed and not weaker.false_abstention


def test_an_outdated_answer_without_its_disclosure_is_unsafe() -> None:
    oracle = case({"verdict": "answer", "status": "grounded", "outdated": True})
    assert judge(oracle, answer("grounded", outdated=True)).unsafe
    assert judge(oracle, answer("grounded", outdated=True, disclosure=OUTDATED_DISCLOSURE)).passed


def test_abstaining_on_an_answerable_case_is_a_false_abstention_not_unsafe() -> None:
    outcome = Outcome("c", "abstain", reasons=("low-coverage",), halted_reason="abstain")
    judged = judge(case({"verdict": "answer", "status": "grounded"}), outcome)
    assert judged.false_abstention and not judged.unsafe


def test_an_oracle_is_completed_from_its_verdict() -> None:
    assert Expect(verdict="answer", status="grounded").halted_reason == "answer"
    outdated = Expect(verdict="answer", status="grounded", outdated=True)
    assert outdated.disclosure == OUTDATED_DISCLOSURE
    assert Expect(verdict="abstain", reasons=("stale",)).halted_reason == "abstain"
    assert Expect(verdict="rejected").halted_reason == "validation"


@pytest.mark.parametrize(
    "fields",
    [
        {"verdict": "answer"},
        {"verdict": "abstain", "reasons": ["stale"], "status": "grounded"},
        {"verdict": "abstain"},
        {"verdict": "failure", "reasons": [], "outdated": True, "halted_reason": "timeout"},
    ],
)
def test_an_oracle_no_public_result_can_have_is_refused(fields: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        Expect.model_validate(fields)


def test_ref_templates_are_filled_from_the_envelope_the_engine_sent() -> None:
    prompt = build_prompt("q?", ENVELOPE, tokens_left=1000, hops_left=2, focus=[])
    refs = rendered_refs(prompt)
    assert refs == {"mem:tree:deci-a": "n1"}  # a node line framed inside a body is data, not a node
    assert fill("cites {ref:mem:tree:deci-a}, {outside:mem:tree:deci-b}", refs) == "cites n1, mem:tree:deci-b"


def test_a_template_naming_an_unrendered_node_breaks_the_case_instead_of_guessing() -> None:
    with pytest.raises(TemplateError):
        fill("{ref:mem:tree:deci-b}", {"mem:tree:deci-a": "n1"})
    with pytest.raises(TemplateError):
        fill("{outside:mem:tree:deci-a}", {"mem:tree:deci-a": "n1"})


def test_the_scripted_navigator_runs_out_like_a_script_provider() -> None:
    model = ScriptedNavigator([Reply(text="@memdsl.out/2\n@abstain low-coverage :: none\n")], "c")
    prompt = build_prompt("q?", ENVELOPE, tokens_left=1000, hops_left=2, focus=[])
    assert model.complete(prompt).text.startswith("@memdsl.out/2")
    with pytest.raises(ModelExhausted):
        model.complete(prompt)
    assert len(model.history) == 2


def summary(*rows: tuple[str, bool, bool]) -> Summary:
    """(case id, passed, unsafe) rows."""
    return Summary(judgements=[Judgement(i, "truth", p, u, False, False, ()) for i, p, u in rows])


def test_check_flags_a_case_that_flips_from_pass_to_fail() -> None:
    baseline = Baseline({"a": "pass", "b": "pass"}, {}, 0, 0)
    result = check(summary(("a", True, False), ("b", False, False)), baseline)
    assert result.regressions == ["b: flipped from pass to fail"]


def test_check_flags_an_unsafe_answer_outside_the_known_failures_and_tolerates_a_known_one() -> None:
    baseline = Baseline({"a": "fail", "b": "pass"}, {"a": "engine bug"}, 1, 0)
    assert check(summary(("a", False, True), ("b", True, False)), baseline).ok
    flagged = check(summary(("a", False, True), ("b", False, True)), baseline)
    assert "b: UNSAFE ANSWER outside the known failures" in flagged.regressions
    assert "unsafe answers rose from 1 to 2" in flagged.regressions


def test_a_new_case_must_pass_and_a_fixed_known_failure_is_announced() -> None:
    baseline = Baseline({"a": "fail"}, {"a": "engine bug"}, 0, 0)
    result = check(summary(("a", True, False), ("new", False, False)), baseline)
    assert result.regressions == ["new: new case does not pass (fail)"]
    assert result.notices == ["a: now passes; --update-baseline locks the fix"]


def test_updating_refuses_a_failing_case_that_is_not_a_recorded_known_failure() -> None:
    with pytest.raises(ValueError, match="b"):
        updated(summary(("a", True, False), ("b", False, False)), Baseline({}, {}, 0, 0))


def test_updating_drops_a_known_failure_that_now_passes() -> None:
    fresh = updated(summary(("a", True, False), ("b", False, True)), Baseline({}, {"a": "x", "b": "y"}, 1, 0))
    assert fresh.known_failures == {"b": "y"}
    assert fresh.outcomes == {"a": "pass", "b": "fail"}
    assert fresh.unsafe_answers == 1
