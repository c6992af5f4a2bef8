"""One invalid fixture per OUTPUT strict-shape rule, each pinned to its code and position.

The fixtures live in ``invalid/out_*.txt``; the table below is the contract
(stem -> code, line, column) and ``docs/memdsl.md`` lists the same codes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from memdsl.errors import MemDSLParseError
from memdsl.output import parse_output

HERE = Path(__file__).parent

INVALID = {
    # text level
    "out_carriage_return": ("text.carriage_return", 1, 14),
    "out_control_char": ("text.control", 6, 44),
    "out_empty": ("output.header", 1, 1),
    "out_preamble": ("output.preamble", 1, 1),
    "out_fence_preamble": ("output.preamble", 1, 1),
    "out_header_case": ("output.header", 1, 1),
    "out_header_trailing_space": ("output.header", 1, 1),
    "out_header_render": ("output.wrong_direction", 1, 1),
    "out_header_response": ("output.wrong_direction", 1, 1),
    "out_header_version": ("output.version", 1, 1),
    "out_header_repeated": ("output.header_repeated", 4, 1),
    "out_header_render_injected": ("output.header_repeated", 4, 1),
    # the fence rule
    "out_fence_open": ("fence.open", 1, 1),
    "out_fence_open_spaced": ("fence.open", 1, 1),
    "out_fence_unclosed": ("fence.unclosed", 1, 1),
    "out_fence_mismatch": ("fence.mismatch", 12, 1),
    "out_fence_closing_info": ("fence.mismatch", 12, 1),
    "out_fence_nested": ("fence.mismatch", 5, 1),
    "out_fence_epilogue": ("fence.outside", 13, 1),
    "out_fence_second_block": ("fence.outside", 14, 1),
    "out_fence_stray": ("fence.stray", 11, 1),
    # lines and actions
    "out_line_spacing": ("line.spacing", 6, 1),
    "out_line_unknown": ("line.unknown", 3, 1),
    "out_claim_before_answer": ("line.unknown", 4, 1),
    "out_action_syntax": ("action.syntax", 2, 10),
    "out_action_space_before_paren": ("action.syntax", 2, 1),
    "out_action_single_quotes": ("action.syntax", 3, 21),
    "out_action_verb": ("action.verb", 2, 1),
    "out_action_terminal_call": ("action.terminal_call", 3, 1),
    "out_action_arity_expand": ("action.arity", 2, 1),
    "out_action_arity_join": ("action.arity", 2, 1),
    "out_action_arity_ground": ("action.arity", 3, 1),
    "out_action_kwarg": ("action.kwarg", 2, 1),
    "out_action_kwarg_repeated": ("action.kwarg", 3, 28),
    "out_action_duplicate_ref": ("action.duplicate_ref", 2, 10),
    "out_action_after_terminal": ("action.after_terminal", 11, 1),
    "out_action_inside_answer": ("action.after_terminal", 6, 1),
    "out_ref_syntax": ("ref.syntax", 5, 30),
    "out_ref_address": ("ref.syntax", 5, 30),
    "out_ref_claim_as_node": ("ref.syntax", 2, 8),
    # the terminal
    "out_terminal_missing": ("terminal.missing", 3, 1),
    "out_terminal_both": ("terminal.duplicate", 11, 1),
    "out_terminal_two_abstentions": ("terminal.duplicate", 3, 1),
    "out_terminal_abstain_inside_answer": ("terminal.duplicate", 7, 1),
    "out_terminal_case": ("terminal.syntax", 4, 1),
    "out_terminal_colon": ("terminal.syntax", 4, 1),
    "out_trailing_after_answer": ("terminal.trailing", 11, 1),
    "out_trailing_second_conclude": ("terminal.trailing", 11, 1),
    "out_trailing_after_abstain": ("terminal.trailing", 3, 1),
    "out_abstain_syntax": ("abstain.syntax", 2, 1),
    "out_abstain_label": ("abstain.label", 2, 10),
    "out_abstain_empty_detail": ("text.empty", 2, 24),
    # the answer block
    "out_answer_no_claims": ("answer.no_claims", 5, 1),
    "out_answer_empty": ("answer.no_claims", 3, 1),
    "out_answer_claim_after_prose": ("answer.order", 8, 1),
    "out_answer_cite_before_prose": ("answer.order", 7, 1),
    "out_answer_prose_missing": ("answer.prose_missing", 7, 1),
    "out_answer_prose_duplicate": ("answer.prose_duplicate", 8, 1),
    "out_answer_prose_empty": ("text.empty", 7, 8),
    "out_answer_cite_missing": ("answer.cite_missing", 8, 1),
    "out_answer_conclude_missing": ("answer.conclude_missing", 10, 1),
    "out_answer_conclude_near_miss": ("line.unknown", 10, 1),
    "out_answer_conclude_syntax": ("conclude.syntax", 10, 1),
    "out_v1_prose": ("answer.v1_binding", 4, 1),
    "out_v1_cite": ("answer.v1_binding", 4, 1),
    "out_prose_syntax": ("prose.syntax", 7, 1),
    "out_cite_syntax": ("cite.syntax", 9, 1),
    "out_text_whitespace": ("text.whitespace", 9, 12),
    # claim lines
    "out_claim_syntax_spacing": ("claim.syntax", 6, 10),
    "out_claim_syntax_no_separator": ("claim.syntax", 6, 46),
    "out_claim_id": ("claim.id", 6, 7),
    "out_claim_form_missing": ("claim.form", 6, 10),
    "out_claim_form_unknown": ("claim.form", 6, 10),
    "out_claim_status_token": ("claim.status", 6, 22),
    "out_claim_status_field": ("claim.status", 6, 30),
    "out_claim_status_as_form": ("claim.status", 6, 10),
    "out_claim_clause_order": ("claim.clause", 6, 30),
    "out_claim_clause_unknown": ("claim.clause", 6, 22),
    "out_claim_duplicate_ref": ("claim.duplicate_ref", 5, 34),
    "out_claim_derive_form": ("claim.derive", 6, 30),
    "out_claim_derive_unquoted": ("claim.derive", 6, 32),
    "out_smart_quote_derive": ("quote.smart", 6, 39),
    "out_smart_quote_kwarg": ("quote.smart", 3, 34),
    "out_claim_duplicate_id": ("claim.duplicate_id", 6, 7),
    "out_claim_premise_unknown": ("claim.premise_unknown", 6, 31),
    "out_claim_cycle": ("claim.cycle", 5, 1),
    "out_claim_unsupported": ("claim.unsupported", 6, 1),
    # the conclusion and the quote anchors
    "out_conclude_unknown": ("conclude.unknown", 10, 10),
    "out_conclude_uncited": ("conclude.uncited", 10, 1),
    "out_cite_unknown_claim": ("cite.unknown_claim", 9, 6),
    "out_cite_outside_closure": ("cite.outside_closure", 9, 6),
    "out_anchor_not_found": ("anchor.not_found", 9, 12),
    "out_anchor_ambiguous": ("anchor.ambiguous", 9, 12),
    "out_anchor_overlap": ("anchor.overlap", 9, 12),
    "out_anchor_uncovered": ("anchor.uncovered", 7, 77),
    "out_anchor_uncovered_decimal": ("anchor.uncovered", 6, 26),
}


def read(stem: str) -> str:
    with open(HERE / "invalid" / f"{stem}.txt", encoding="utf-8", newline="") as handle:
        return handle.read()


def test_every_output_invalid_fixture_has_an_expectation_and_vice_versa() -> None:
    assert {path.stem for path in HERE.glob("invalid/out_*.txt")} == set(INVALID)


@pytest.mark.parametrize("stem", sorted(INVALID))
def test_invalid_output_fixture_fails_with_its_code_and_position(stem: str) -> None:
    code, line, column = INVALID[stem]
    with pytest.raises(MemDSLParseError) as caught:
        parse_output(read(stem))
    assert (caught.value.code, caught.value.line, caught.value.column) == (code, line, column)


def test_every_code_a_fixture_pins_is_in_the_protocol_doc() -> None:
    docs = HERE.parents[1] / "docs"
    pages = [docs / name for name in ("memdsl.md",) if (docs / name).exists()]
    documented = "".join(page.read_text(encoding="utf-8") for page in pages)
    missing = sorted({code for code, _, _ in INVALID.values() if f"`{code}`" not in documented})
    assert pages and not missing, missing
