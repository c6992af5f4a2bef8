"""The terminal card: what a person reads after ``synapse navigate``."""

from __future__ import annotations

from synapse_server.language.safe_text import terminal_safe
from synapse_server.navigation.surfaces import ModelInfo, failure_result
from synapse_server.present.terminal_card import render_card
from tests.support.nav_results import abstention, answer


def test_an_answer_card_shows_verdict_status_text_citations_and_model() -> None:
    card = render_card(answer())
    assert card.splitlines()[0] == "ANSWER · grounded"
    assert "Sharpe fell from 1.4 to 1.1." in card
    assert "[1] Baseline backtest" in card and "[2] Sharpe ratio after costs" in card
    assert "extractive · extractive-v1" in card
    assert "Reasoning" not in card and "(--trace shows the reasoning)" in card


def test_each_citation_shows_title_store_status_address_and_only_a_verbatim_claims_quote() -> None:
    lines = render_card(answer()).splitlines()
    first = lines.index("  [1] Baseline backtest  mem · grounded; supports c2")
    assert lines[first + 1 : first + 3] == ["      mem:tree:expe-0a1b2c3d", "      “The baseline Sharpe was 1.4.”"]
    second = lines.index("  [2] Sharpe ratio after costs  zk · grounded; supports c3")
    assert lines[second + 1] == "      zk:research:20260505-0945-sharpe-ratio"
    assert not lines[second + 2].startswith("      “")


def test_a_hostile_citation_title_or_quote_is_escaped_on_the_card() -> None:
    hostile = {"title": "Costs\x1b]0;pwned\x07", "quotes": ["Sharpe\x1b[2J fell.\u202e"]}
    card = render_card(answer(citation_changes=(hostile,)), colour=True)
    assert "\x1b]" not in card and "\x1b[2J" not in card and "\x07" not in card and "\u202e" not in card
    assert "Costs\\x1b]0;pwned\\x07" in card and "Sharpe\\x1b[2J fell.\\u202e" in card


def test_a_citation_recorded_before_titles_shows_its_address() -> None:
    card = render_card(answer(citation_changes=({"title": "", "store": "", "quotes": []},)))
    assert "  [1] mem:tree:expe-0a1b2c3d  grounded; supports c2" in card.splitlines()


def test_the_outdated_disclosure_is_shown_and_the_headline_says_outdated() -> None:
    card = render_card(answer(disclosure="grounded as of the pinned sha; HEAD has since changed"))
    assert card.splitlines()[0] == "ANSWER · grounded · outdated"
    assert "Disclosure: grounded as of the pinned sha; HEAD has since changed" in card


def test_trace_adds_the_claim_tree_with_premises_indented_under_the_conclusion() -> None:
    lines = render_card(answer(), trace=True).splitlines()
    c1 = next(i for i, line in enumerate(lines) if line.strip().startswith("c1 "))
    c2 = next(i for i, line in enumerate(lines) if line.strip().startswith("c2 "))
    assert c2 > c1
    assert len(lines[c2]) - len(lines[c2].lstrip()) > len(lines[c1]) - len(lines[c1].lstrip())
    assert any("c3 restatement · grounded [stale]" in line for line in lines)
    assert any("Telemetry  hops 1" in line for line in lines)


def test_an_abstention_card_names_its_reasons_and_flags_the_refuted_citation_in_the_trace() -> None:
    card = render_card(abstention(("stale", "low-coverage")), trace=True)
    assert card.splitlines()[0] == "ABSTAINED · stale, low-coverage"
    assert "a verifier refuted a cited ground" in card
    assert "cites zk:research:breakeven [refuted]" in card
    assert "Citations" not in card


def test_a_failure_card_says_failed_and_has_no_reasoning() -> None:
    result = failure_result("timeout", "navigate worker timed out", ModelInfo(provider="command", id="false"))
    card = render_card(result, trace=True)
    assert card.splitlines()[0] == "FAILED · timeout"
    assert "Reasoning: none recorded" in card


def test_the_card_never_shows_the_envelope_with_its_source_bodies() -> None:
    assert "SOURCE BODY" not in render_card(answer(), trace=True)
    assert "SOURCE BODY" not in render_card(abstention(), trace=True)


def test_colour_codes_appear_only_when_asked_for() -> None:
    assert "\x1b[" not in render_card(answer(), trace=True)
    assert "\x1b[1;32mANSWER · grounded\x1b[0m" in render_card(answer(), colour=True)


def test_terminal_control_characters_in_model_text_are_escaped_not_sent() -> None:
    hostile = "Sharpe fell.\x1b]0;pwned\x07\x1b[2J\u202eevil\r"
    card = render_card(answer(hostile), trace=True)
    assert "\x1b" not in card and "\x07" not in card and "\u202e" not in card and "\r" not in card
    assert "\\x1b]0;pwned\\x07\\x1b[2J\\u202eevil" in card


def test_terminal_safe_keeps_ordinary_unicode_and_turns_line_breaks_into_spaces() -> None:
    assert terminal_safe("Δ Sharpe −0.3 → “fell”") == "Δ Sharpe −0.3 → “fell”"
    assert terminal_safe("a\nb\tc") == "a b c"
    assert terminal_safe("a\nb\x9b", keep_newlines=True) == "a\nb\\x9b"
