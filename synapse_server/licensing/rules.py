"""Every licensing rule, as a registered id with what it checks, why, and one claim it passes and one it refuses.

A refusal names its rule by :class:`RuleId`, never by matching message text.
``docs/grounding.md`` lists the registry (a test keeps the two in step), and
the navigator's prompt teaches the same rules in the same words.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

__all__ = ["REGISTRY", "Rule", "RuleId", "rule"]


class RuleId(StrEnum):
    """The typed id of one licensing rule (its value is what a refusal line shows)."""

    WORDS = "words"
    DROPPED = "dropped"
    NEGATION = "negation"
    QUANTIFIER = "quantifier"
    MODALITY = "modality"
    DIRECTION = "direction"
    BOUND = "bound"
    CONDITION = "condition"
    ORDER = "order"
    FIGURE = "figure"
    FRAME_POLARITY = "frame-polarity"
    MARKUP = "markup"
    RELATION = "relation"
    ROLES = "roles"
    CONSTANT = "constant"
    ROUNDING = "rounding"
    ZERO = "zero"
    CALC_DIRECTION = "calc-direction"
    CALC_UNIT = "calc-unit"
    OPERAND = "operand"
    PARTS = "parts"
    DERIVE = "derive"
    ANAPHOR = "anaphor"
    JOIN_MARK = "join-mark"
    BARE_LABEL = "bare-label"


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule: what it checks, why a reviewer cares, a claim it passes and a claim it refuses (with the line)."""

    id: RuleId
    what: str
    why: str
    clause: str
    passes: str
    refused: str


REGISTRY: tuple[Rule, ...] = (
    Rule(
        RuleId.WORDS,
        "every word the claim adds is in the clause, a same-meaning word of the closed table at that position, "
        "a frame word, or a word that restricts nothing (article, auxiliary, discourse marker)",
        "a word the clause does not say is a new proposition",
        "Commission is 3 bps per side.",
        "Commission is 3 bps per side.",
        "Commission is 3 bps per side for retail clients.",
    ),
    Rule(
        RuleId.DROPPED,
        "every word of the clause that restricts what it says is aligned: its subject, its labels, its qualifiers",
        "dropping a qualifier widens the claim beyond its source",
        "The momentum signal ranks tickers on their 12-month return excluding the most recent month.",
        "The momentum signal ranks tickers on their 12-month return excluding the most recent month.",
        "The momentum signal ranks tickers on their 12-month return.",
    ),
    Rule(
        RuleId.NEGATION,
        "negations align one to one, with morphology (non-, n't, without, no); an item under a negated frame "
        "is negated",
        "a dropped or added negation says the opposite",
        "Non-certified advisers may not sell the fund.",
        "Non-certified advisers may not sell the fund.",
        "Certified advisers may not sell the fund.",
    ),
    Rule(
        RuleId.QUANTIFIER,
        "quantifiers (all, only, some, every, most …) align one to one",
        "changing how many turns a finding into a rule",
        "Some accounts earn interest.",
        "Some accounts earn interest.",
        "All accounts earn interest.",
    ),
    Rule(
        RuleId.MODALITY,
        "modals and hedges (may, must, typically, likely …) align one to one; a requirement frame lets a claim "
        "say must",
        "a possibility restated as an obligation, or a hedge dropped, overstates the source",
        "Fees are typically waived for students.",
        "Fees are typically waived for students.",
        "Fees are waived for students.",
    ),
    Rule(
        RuleId.DIRECTION,
        "a direction word aligns only with a word of the same direction at the same position",
        "a rise matched to the clause's other direction word reverses the finding",
        "Sharpe fell from 1.4 to 1.1 after costs rose to 8 bps.",
        "Sharpe decreased from 1.4 to 1.1 after costs rose to 8 bps.",
        "Sharpe increased from 1.4 to 1.1 after costs rose to 8 bps.",
    ),
    Rule(
        RuleId.BOUND,
        "a comparison (up to, at least, more than, less than …) aligns only with the same relation",
        "'more than X' is not 'up to X'",
        "Withdrawals of up to $500 a day are free.",
        "Withdrawals of up to $500 a day are free.",
        "Withdrawals of more than $500 a day are free.",
    ),
    Rule(
        RuleId.CONDITION,
        "condition and exception words (if, unless, until, except, once, before, after, within, during …) and "
        "the phrase they govern are aligned, never dropped or swapped",
        "a rule without its condition is a different rule",
        "Transfers are free until you reach the monthly cap of 10.",
        "Transfers are free until you reach the monthly cap of 10.",
        "Transfers are free.",
    ),
    Rule(
        RuleId.ORDER,
        "the claim's words come in the clause's order, up to moving one intact phrase; two labels never trade "
        "places and each figure keeps its label",
        "'momentum beat value' is not 'value beat momentum'",
        "The fee is $25 and the minimum is $5.",
        "The minimum is $5, and the fee is $25.",
        "The fee is $5 and the minimum is $25.",
    ),
    Rule(
        RuleId.FIGURE,
        "every figure aligns with a figure of the clause with the same value, sign and unit (or an exact "
        "conversion: 2.5% is 250 bps, two weeks is 14 days)",
        "a changed number is a false claim",
        "The grace period is 14 days.",
        "The grace period is two weeks.",
        "The grace period is 15 days.",
    ),
    Rule(
        RuleId.FRAME_POLARITY,
        "a claim that names its unit's frame keeps the frame's polarity (an item under 'Not Eligible' is not eligible)",
        "a heading's negation is part of what each of its items says",
        "## Accounts Not Eligible\n- Savings accounts",
        "Savings accounts are not eligible.",
        "Savings accounts are eligible.",
    ),
    Rule(
        RuleId.MARKUP,
        "links, images and HTML are refused, naming the token to drop; inline code, emphasis and heading "
        "marks are plain text",
        "a link or tag is not evidence and the answer is shown as written",
        "Dates use `yyyy-mm-dd`.",
        "Dates use `yyyy-mm-dd`.",
        "Dates use [ISO 8601](https://example.com).",
    ),
    Rule(
        RuleId.RELATION,
        "a derived figure says what it is (an increase, a reduction, percentage points, times, a difference, "
        "a total, P% of X); the phrase fixes the expression, not the derive",
        "arithmetic that evaluates is not yet a true statement",
        "Costs rose from 5 bps to 8 bps.",
        "Costs rose from 5 bps to 8 bps, an increase of 60%.",
        "Costs rose from 5 bps to 8 bps, an increase of 160%.",
    ),
    Rule(
        RuleId.ROLES,
        "old and new come from the clause's roles (from A to B, A to B, was A now B, discounted from A to B), "
        "never from the order the figures appear in",
        "a change read the wrong way round has the wrong sign and base",
        "The price was discounted from $80 to $60.",
        "The price was discounted from $80 to $60, a reduction of 25%.",
        "The price was discounted from $80 to $60, a reduction of 33%.",
    ),
    Rule(
        RuleId.CONSTANT,
        "a derive uses no constant the clause does not state, except the 100 of a percent shape",
        "a free * 100 turns 3 bps into 300 bps",
        "Commission is 3 bps per side.",
        "Commission is 3 bps per side, 6 bps round trip.",
        "Commission is 300 bps per side.",
    ),
    Rule(
        RuleId.ROUNDING,
        "the stated result rounds from the exact value at its stated precision (a magnitude suffix is part "
        "of the figure)",
        "a figure a reader cannot get back from the source is not derived from it",
        "The fee fell from $25 to $20.",
        "The fee fell from $25 to $20, a reduction of 20%.",
        "The fee fell from $25 to $20, a reduction of 20k%.",
    ),
    Rule(
        RuleId.ZERO,
        "a non-zero exact change never rounds to zero",
        "'a drop of 0' says nothing changed",
        "Sharpe fell from 1.4 to 1.1.",
        "Sharpe fell from 1.4 to 1.1, a drop of 0.3.",
        "Sharpe fell from 1.4 to 1.1, a drop of 0.",
    ),
    Rule(
        RuleId.CALC_DIRECTION,
        "an increase needs new > old, a reduction new < old",
        "a discount reported as an increase reverses the finding",
        "The price was discounted from $80 to $60.",
        "The price was discounted from $80 to $60, a reduction of 25%.",
        "The price was discounted from $80 to $60, an increase of 25%.",
    ),
    Rule(
        RuleId.CALC_UNIT,
        "the result is in the relation's unit: % for a percent change, percentage points for a change of "
        "percentages, times for a ratio, the operands' unit for a difference or total",
        "'60 percentage points' for a 60% rise is another quantity",
        "Costs rose from 5 bps to 8 bps.",
        "Costs rose from 5 bps to 8 bps, an increase of 3 bps.",
        "Costs rose from 5 bps to 8 bps, an increase of 3%.",
    ),
    Rule(
        RuleId.OPERAND,
        "every operand of the derive is a figure of the one cited clause",
        "an operand from elsewhere joins two clauses into a new claim",
        "Costs rose from 5 bps to 8 bps.",
        "Costs rose from 5 bps to 8 bps, an increase of 3 bps.",
        "Costs rose from 5 bps to 9 bps, an increase of 4 bps.",
    ),
    Rule(
        RuleId.PARTS,
        "a total, sum or combined figure adds only quantities the clause presents as parts of one whole",
        "old plus new level is not a total of anything",
        "Total cost is half-spread plus commission: 4 bps and 3 bps.",
        "Total cost is half-spread plus commission: 4 bps and 3 bps, 7 bps in total.",
        "The fee rose from $5 to $8, a total of $13.",
    ),
    Rule(
        RuleId.DERIVE,
        'a calculation carries derive "<arithmetic>" that evaluates to the stated figure',
        "the engine checks the arithmetic, not the model's say-so",
        "Costs rose from 5 bps to 8 bps.",
        'derive "8 - 5" :: an increase of 3 bps',
        'derive "8 - 4" :: an increase of 3 bps',
    ),
    Rule(
        RuleId.ANAPHOR,
        "a conjunct from another node does not start with this, that, these, it, they or such",
        "the anaphor would bind to the other node's subject",
        "(two notes) The Beige fee is $5. / This fee is waived for students.",
        "The Beige fee is $5, and the Hunter Green fee is waived for students.",
        "The Beige fee is $5, and this fee is waived for students.",
    ),
    Rule(
        RuleId.JOIN_MARK,
        "between two bound spans of the prose stand only sentence or clause punctuation, 'and' or 'also'; a "
        "colon, dash, arrow or equals sign asserts a relation and fails closed",
        "'Gold tier: 2% cashback' invents a relation between two spans",
        "(two units) Gold tier. / Members earn 2% cashback.",
        "Members earn 2% cashback.",
        "Gold tier: members earn 2% cashback.",
    ),
    Rule(
        RuleId.BARE_LABEL,
        "a span that is only a label or heading (no predicate) is not an assertion",
        "a heading on its own says nothing true or false",
        "## Gold tier",
        "Gold tier members earn 2% cashback.",
        "Gold tier",
    ),
)
"""Every rule, in priority order: the order a refusal lists its findings in."""

_BY_ID = {entry.id: entry for entry in REGISTRY}


def rule(rule_id: RuleId) -> Rule:
    return _BY_ID[rule_id]


def priority(rule_id: RuleId) -> int:
    return next(index for index, entry in enumerate(REGISTRY) if entry.id == rule_id)
