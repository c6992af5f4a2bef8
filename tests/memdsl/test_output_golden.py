"""Golden OUTPUT artifacts: canonical texts that read back byte for byte, and the fence rule's twin."""

from __future__ import annotations

from pathlib import Path

import pytest

from memdsl.errors import MemDSLParseError
from memdsl.output import Abstention, ActionCall, Answer, Binding, Claim, Output, parse_output, serialize_output

HERE = Path(__file__).parent
CANONICAL = sorted(p for p in HERE.glob("golden/out_*.txt") if not p.name.startswith("out_fenced_"))
FENCED = sorted(HERE.glob("golden/out_fenced_*.txt"))


def read(path: Path) -> str:
    with open(path, encoding="utf-8", newline="") as handle:
        return handle.read()


@pytest.mark.parametrize("path", CANONICAL, ids=lambda p: p.stem)
def test_golden_output_texts_are_canonical(path: Path) -> None:
    text = read(path)
    assert serialize_output(parse_output(text)) == text


def test_the_goldens_cover_actions_a_premise_dag_legacy_v1_and_an_abstention() -> None:
    values = {path.stem: parse_output(read(path)) for path in CANONICAL}
    assert len(values) >= 4
    with_actions = values["out_v2_actions"]
    assert with_actions.version == 2 and {a.verb for a in with_actions.actions} == {"expand", "join", "ground", "prune"}
    dag = values["out_v2_deduction"].answer
    assert dag is not None and dag.closure("c5") == frozenset({"c1", "c2", "c3", "c4", "c5"})
    legacy = values["out_v1_answer"]
    assert legacy.version == 1 and legacy.answer is not None and legacy.answer.prose is None
    assert isinstance(values["out_abstain"].terminal, Abstention)


@pytest.mark.parametrize("path", FENCED, ids=lambda p: p.stem)
def test_a_clean_fence_parses_to_the_same_value_as_its_unfenced_twin(path: Path) -> None:
    twin = path.with_name(path.name.replace("out_fenced_", "out_"))
    assert parse_output(read(path)) == parse_output(read(twin))


def test_the_seed_answer_parses_to_the_documented_value() -> None:
    text = (
        "@memdsl.out/2\n"
        "expand(n1)\n"
        "ground(n1, verifier=quote)\n"
        "@answer\n"
        "claim c1 [restatement] cites n1 :: Transaction costs increased from 5 bps to 8 bps.\n"
        "prose :: Transaction costs increased from 5 bps to 8 bps.\n"
        "cite c1 :: Transaction costs increased from 5 bps to 8 bps.\n"
        "conclude c1\n"
    )
    sentence = "Transaction costs increased from 5 bps to 8 bps."
    expected = Output(
        2,
        (ActionCall("expand", ("n1",)), ActionCall("ground", ("n1",), (("verifier", "quote"),))),
        Answer(
            (Claim("c1", "restatement", ("n1",), (), None, sentence),),
            sentence,
            (Binding("c1", sentence, 0, len(sentence)),),
            "c1",
        ),
    )
    assert parse_output(text) == expected
    assert serialize_output(expected) == text


def test_blank_lines_between_structural_lines_are_ignored_and_not_re_emitted() -> None:
    canonical = read(HERE / "golden" / "out_v1_answer.txt")
    spaced = "\n\n" + canonical.replace("\n", "\n\n").replace("@answer", "   \n@answer")
    assert parse_output(spaced) == parse_output(canonical)
    assert serialize_output(parse_output(spaced)) == canonical


def test_a_missing_final_newline_is_tolerated_and_restored() -> None:
    canonical = read(HERE / "golden" / "out_abstain.txt")
    assert serialize_output(parse_output(canonical.rstrip("\n"))) == canonical


@pytest.mark.parametrize("opening", ["```", "```memdsl", "````", "`````memdsl"])
def test_any_exactly_matched_backtick_run_is_unwrapped(opening: str) -> None:
    canonical = read(HERE / "golden" / "out_abstain.txt")
    run = opening.removesuffix("memdsl")
    assert parse_output(f"\n{opening}\n{canonical}{run}\n  \n") == parse_output(canonical)


def test_a_fence_inside_a_fence_is_refused_even_when_the_outer_run_is_longer() -> None:
    canonical = read(HERE / "golden" / "out_abstain.txt")
    with pytest.raises(MemDSLParseError) as caught:
        parse_output(f"````\n```\n{canonical}```\n````\n")
    assert (caught.value.code, caught.value.line) == ("fence.mismatch", 2)


def test_non_str_input_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        parse_output(b"@memdsl.out/2\n")  # type: ignore[arg-type]
