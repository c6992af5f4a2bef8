"""The canonical corpus: well formed, fully baselined, and free of regressions against the locked baseline."""

from __future__ import annotations

import pytest

from dev.synapse_bench.canonical.baseline import Baseline, check
from dev.synapse_bench.canonical.cases import CATEGORIES, Corpus
from dev.synapse_bench.canonical.suite import Summary, run_suite
from dev.synapse_bench.canonical.workspaces import Workbench


@pytest.fixture(scope="module")
def canonical_run(corpus: Corpus, workbench: Workbench) -> Summary:
    """The whole corpus, run once for every test of this module that reads outcomes."""
    return run_suite(corpus.cases, workbench, quiet=False)


def test_corpus_covers_every_category_with_at_least_sixty_cases(corpus: Corpus) -> None:
    grouped = corpus.by_category()
    assert sum(len(cases) for cases in grouped.values()) >= 60
    assert all(grouped[category] for category in CATEGORIES)


def test_every_case_is_locked_in_the_baseline_and_every_known_failure_is_a_case(corpus: Corpus) -> None:
    baseline = Baseline.load()
    ids = {case.id for case in corpus.cases}
    assert set(baseline.outcomes) == ids
    assert set(baseline.known_failures) <= ids
    assert all(note.strip() for note in baseline.known_failures.values())
    assert all(baseline.outcomes[case_id] == "fail" for case_id in baseline.known_failures)


def test_canonical_corpus_has_no_regression_against_the_locked_baseline(canonical_run: Summary) -> None:
    baseline = Baseline.load()
    summary = canonical_run
    result = check(summary, baseline)
    assert result.regressions == []
    assert [case for case in summary.unsafe if case not in baseline.known_failures] == []


def test_the_replay_category_holds_every_reply_of_the_shared_corpus_with_its_expectation(corpus: Corpus) -> None:
    replay = {case.id: case for case in corpus.cases if case.category == "replay"}
    real = [cid for cid in replay if cid.startswith("demo")]
    assert len(real) == 24
    for cid in ("demo01-t2", "demo07-t1", "demo13-t1"):
        assert replay[cid].expect.verdict == "answer"
    assert replay["demo13-t1"].expect.outdated is True
    twins = [case for cid, case in replay.items() if cid.endswith("-twin")]
    assert twins and all(case.expect.verdict == "abstain" for case in twins)


def test_the_adversarial_category_holds_a_hundred_hostile_replies_and_thirty_honest_twins(corpus: Corpus) -> None:
    adversarial = [case for case in corpus.cases if case.category == "adversarial"]
    hostile = [case for case in adversarial if case.expect.verdict == "abstain"]
    honest = [case for case in adversarial if case.expect.verdict == "answer"]
    assert len(hostile) >= 100
    assert len(honest) >= 30
    assert len(hostile) + len(honest) == len(adversarial)
    refused_by_licensing = [case for case in hostile if case.expect.parse_error is None]
    assert all(case.expect.reasons == ("low-coverage",) for case in refused_by_licensing)
    assert {case.expect.parse_error for case in hostile} <= {None, "anchor.uncovered"}
    assert {case.workspace for case in hostile} == {"demo", "policy"}
    families = {case.about.partition(":")[0] for case in adversarial}
    assert all(case.about.partition(":")[2].strip() for case in adversarial)
    assert len([f for f in families if not f.startswith("honest")]) >= 20


def test_every_adversarial_reply_parses_and_every_refusal_is_about_licensing(
    corpus: Corpus, canonical_run: Summary
) -> None:
    """A hostile case that abstains for a parse error it does not pin, or an unrendered node, is broken, not refused."""
    cases = [case for case in corpus.cases if case.category == "adversarial"]
    outcomes = {case.id: canonical_run.outcomes[case.id] for case in cases}
    assert [o.case_id for o in outcomes.values() if o.verdict not in ("answer", "abstain")] == []
    assert [c.id for c in cases if outcomes[c.id].parse_error not in (None, c.expect.parse_error)] == []
    licensing = [outcomes[c.id] for c in cases if c.expect.parse_error is None]
    assert [o.case_id for o in licensing if o.verdict == "abstain" and o.reasons != ("low-coverage",)] == []
