"""The canonical corpus: well formed, fully baselined, and free of regressions against the locked baseline."""

from __future__ import annotations

from dev.synapse_bench.canonical.baseline import Baseline, check
from dev.synapse_bench.canonical.cases import CATEGORIES, Corpus
from dev.synapse_bench.canonical.suite import run_suite
from dev.synapse_bench.canonical.workspaces import Workbench


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


def test_canonical_corpus_has_no_regression_against_the_locked_baseline(corpus: Corpus, workbench: Workbench) -> None:
    baseline = Baseline.load()
    summary = run_suite(corpus.cases, workbench, quiet=False)
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
