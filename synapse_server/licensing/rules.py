"""Every licensing rule, as a registered id with what it checks, why, and one claim it passes and one it refuses.

A refusal names its rule by :class:`RuleId`, never by matching message text.
``docs/grounding.md`` lists the registry (a test keeps the two in step), and
the navigator's prompt teaches the same rules in the same words.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

__all__ = ["REGISTRY", "Example", "Rule", "RuleId", "priority"]


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
    BARE_LABEL = "bare-label"


@dataclass(frozen=True, slots=True)
class Example:
    """One rule shown at work: the cited nodes (title, Markdown body), an answer that passes, one that is refused
    (OUTPUT claim lines citing n1, n2 …), and the refusal line the engine gives for the second."""

    nodes: tuple[tuple[str, str], ...]
    passes: str
    refused: str
    refusal: str


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule: what it checks, why a reviewer cares, and an example a test replays through the router."""

    id: RuleId
    what: str
    why: str
    example: Example


def _one(body: str, passes: str, refused: str, refusal: str, title: str = "Note") -> Example:
    """An example on one cited node: two restatements of it."""
    return Example(
        ((title, body),),
        f"claim c1 [restatement] cites n1 :: {passes}",
        f"claim c1 [restatement] cites n1 :: {refused}",
        refusal,
    )


def _calc(body: str, passes: tuple[str, str], refused: tuple[str, str], refusal: str) -> Example:
    """An example on one cited node: two calculations (derive, text) over it."""
    return Example(
        (("Note", body),),
        f'claim c1 [calculation] cites n1 derive "{passes[0]}" :: {passes[1]}',
        f'claim c1 [calculation] cites n1 derive "{refused[0]}" :: {refused[1]}',
        refusal,
    )


REGISTRY: tuple[Rule, ...] = (
    Rule(
        RuleId.WORDS,
        "every word the claim adds is in the clause, a same-meaning word of the closed table at that place, a word "
        "of the unit's frame, or a word that restricts nothing (article, auxiliary, discourse marker)",
        "a word the clause does not say is a new proposition",
        _one(
            "Commission is 3 bps per side.",
            "Commission is 3 bps per side.",
            "Commission is 3 bps per side for retail clients.",
            'c1: words: words "for", "retail", "clients" are not in the cited clause or its frame (n1)',
        ),
    ),
    Rule(
        RuleId.DROPPED,
        "every word of the clause that restricts what it says is aligned: its subject, labels and qualifiers",
        "dropping a qualifier widens the claim beyond its source",
        _one(
            "Skipping the latest month keeps the signal clear of short-term reversals.",
            "Skipping the latest month keeps the signal clear of short-term reversals.",
            "Skipping the latest month keeps the signal clear of reversals.",
            "c1: dropped: the claim leaves out 2 restricting word(s) of the cited clause (labels, qualifiers, "
            "subject) (n1)",
        ),
    ),
    Rule(
        RuleId.NEGATION,
        "negations align one to one, with morphology (non-, n't, without, no)",
        "a dropped or added negation says the opposite",
        _one(
            "Non-certified advisers may not sell the fund.",
            "Non-certified advisers may not sell the fund.",
            "Certified advisers may not sell the fund.",
            "c1: negation: the claim drops a negation of the cited clause (n1)",
        ),
    ),
    Rule(
        RuleId.QUANTIFIER,
        "quantifiers (all, only, some, every, most …) align one to one",
        "changing how many turns a finding into a rule",
        _one(
            "Some accounts earn interest.",
            "Some accounts earn interest.",
            "All accounts earn interest.",
            'c1: quantifier: quantifier "All" is not at that place in the cited clause (n1)',
        ),
    ),
    Rule(
        RuleId.MODALITY,
        "modals and hedges (may, must, typically, likely …) align one to one; a requirement frame (a lead-in such "
        "as 'ensure all of the following are true') lets a claim say must",
        "a possibility restated as an obligation, or a hedge dropped, overstates the source",
        _one(
            "Fees are typically waived for students.",
            "Fees are typically waived for students.",
            "Fees are waived for students.",
            "c1: modality: the claim drops a modal or hedge of the cited clause (n1)",
        ),
    ),
    Rule(
        RuleId.DIRECTION,
        "a direction word aligns only with a word of the same direction at the same place",
        "a rise matched to the clause's other direction word reverses the finding",
        _one(
            "Sharpe fell from 1.4 to 1.1 after costs rose to 8 bps.",
            "Sharpe decreased from 1.4 to 1.1 after costs rose to 8 bps.",
            "Sharpe increased from 1.4 to 1.1 after costs rose to 8 bps.",
            'c1: direction: direction "increased" is not the cited clause\'s direction at that place (n1)',
        ),
    ),
    Rule(
        RuleId.BOUND,
        "a comparison (up to, at least, more than, less than …) aligns only with the same relation",
        "'more than X' is not 'up to X'",
        _one(
            "Withdrawals of up to $500 a day are free.",
            "Withdrawals of up to $500 a day are free.",
            "Withdrawals of more than $500 a day are free.",
            'c1: bound: bound "more than" is not the cited clause\'s comparison at that place (n1)',
        ),
    ),
    Rule(
        RuleId.CONDITION,
        "condition and exception words (if, unless, until, except, once, before, after, within, during …) and the "
        "phrase they govern are aligned, never dropped or swapped",
        "a rule without its condition is a different rule",
        _one(
            "Transfers are free until you reach the monthly cap.",
            "Transfers are free until you reach the monthly cap.",
            "Transfers are free during the monthly cap.",
            'c1: condition: condition "during" is not the cited clause\'s condition at that place (n1)',
        ),
    ),
    Rule(
        RuleId.ORDER,
        "the claim's words come in the clause's order, up to moving one intact phrase; two labels never trade "
        "places and each figure keeps its label",
        "'momentum beat value' is not 'value beat momentum'",
        _one(
            "The fee is $25, and the minimum is $5.",
            "The minimum is $5, and the fee is $25.",
            "The fee is $5, and the minimum is $25.",
            'c1: order: words "$5", "$25" are out of the order of the clause (one phrase may move) (n1)',
        ),
    ),
    Rule(
        RuleId.FIGURE,
        "every figure aligns with a figure of the clause with the same value, sign and unit, or an exact conversion "
        "(2.5% is 250 bps, two weeks is 14 days)",
        "a changed number is a false claim",
        _one(
            "The grace period is 14 days.",
            "The grace period is two weeks.",
            "The grace period is 15 days.",
            'c1: changed-number: figure "15 days" differs from every figure in the cited clause of n1',
        ),
    ),
    Rule(
        RuleId.FRAME_POLARITY,
        "the unit's frame (node title, headings, list lead-in, table headers) may name a claim's subject or scope; "
        "a claim that uses a negated frame keeps its negation",
        "a heading's negation is part of what each of its items says",
        _one(
            "## Accounts Not Eligible\n\n- Savings accounts\n",
            "Savings accounts are not eligible.",
            "Savings accounts are eligible.",
            "c1: frame-polarity: the unit's frame is negated; a claim that names it must say not (n1)",
            title="Eligibility",
        ),
    ),
    Rule(
        RuleId.MARKUP,
        "links, images and HTML are refused, naming the token to drop; inline code, emphasis and heading marks are "
        "plain text, and the answer is published without them",
        "a link or tag is not evidence and the answer is shown as written",
        _one(
            "Dates use `yyyy-mm-dd` in every export.",
            "Dates use `yyyy-mm-dd` in every export.",
            "Dates use [yyyy-mm-dd](https://example.com/iso) in every export.",
            'prose: markup: drop "[yyyy-mm-dd](https://example.com/iso)": links, images and HTML are not evidence '
            "(inline code and emphasis are fine)",
        ),
    ),
    Rule(
        RuleId.RELATION,
        "a derived figure says what it is (an increase of, a reduction of, percentage points, times, a difference, a "
        "total, P% of X); the phrase fixes the expression, never the derive alone",
        "arithmetic that evaluates is not yet a true statement",
        _calc(
            "Costs rose from 5 bps to 8 bps.",
            ("(8 - 5) / 5 * 100", "Costs rose from 5 bps to 8 bps, an increase of 60%."),
            ("8 - 5", "Costs rose from 5 bps to 8 bps, 3 bps."),
            'c1: relation: figure "3 bps": say what it is (an increase of, a reduction of, percentage points, times, '
            "a difference, a total, P% of X) (n1)",
        ),
    ),
    Rule(
        RuleId.ROLES,
        "old and new come from the clause's roles (from A to B, A -> B, was A now B, B down from A), never from the "
        "order the figures are written in",
        "a change read the wrong way round has the wrong sign and base",
        _calc(
            "The price was discounted from $80 to $60. The fee is $5 and the deposit is $8.",
            ("(80 - 60) / 80 * 100", "The price was discounted from $80 to $60, a reduction of 25%."),
            ("(8 - 5) / 5 * 100", "The fee is $5 and the deposit is $8, an increase of 60%."),
            "c1: roles: the clause does not say which figure is old and which new (from A to B, was A now B) (n1)",
        ),
    ),
    Rule(
        RuleId.CONSTANT,
        "a derive uses no constant the clause does not state, except the 100 (and the 1 of new / old - 1) of a "
        "percent shape",
        "a free * 100 turns 3 bps into 300 bps",
        _calc(
            "Costs rose from 5 bps to 8 bps.",
            ("8 - 5", "Costs rose from 5 bps to 8 bps, an increase of 3 bps."),
            ("(8 - 5) * 100", "Costs rose from 5 bps to 8 bps, an increase of 300 bps."),
            'c1: constant: derive "(8 - 5) * 100" uses a constant the clause does not state (100) (n1)',
        ),
    ),
    Rule(
        RuleId.ROUNDING,
        "the stated result rounds from the exact value at its stated precision; a magnitude suffix is part of the "
        "figure",
        "a figure a reader cannot get back from the source is not derived from it",
        _calc(
            "The fee fell from $25 to $20.",
            ("(25 - 20) / 25 * 100", "The fee fell from $25 to $20, a reduction of 20%."),
            ("(25 - 20) / 20 * 100", "The fee fell from $25 to $20, a reduction of 25%."),
            'c1: rounding: figure "25%": a reduction in % here is 20 (n1)',
        ),
    ),
    Rule(
        RuleId.ZERO,
        "a non-zero exact change never rounds to zero",
        "'a drop of 0' says nothing changed",
        _calc(
            "Sharpe fell from 1.4 to 1.1.",
            ("1.4 - 1.1", "Sharpe fell from 1.4 to 1.1, a drop of 0.3."),
            ("1.4 - 1.1", "Sharpe fell from 1.4 to 1.1, a drop of 0."),
            'c1: zero: figure "0": the exact change is 0.3, not zero (n1)',
        ),
    ),
    Rule(
        RuleId.CALC_DIRECTION,
        "an increase needs new > old, a reduction new < old",
        "a discount reported as an increase reverses the finding",
        _calc(
            "The price was discounted from $80 to $60.",
            ("(80 - 60) / 80 * 100", "The price was discounted from $80 to $60, a reduction of 25%."),
            ("(80 - 60) / 80 * 100", "The price was discounted from $80 to $60, an increase of 25%."),
            "c1: calc-direction: the cited figures move the other way (n1)",
        ),
    ),
    Rule(
        RuleId.CALC_UNIT,
        "the result is in the relation's unit: % for a percent change, percentage points for a change of "
        "percentages, times for a ratio, the operands' unit for a change, difference or total",
        "'60 percentage points' for a 60% rise is another quantity",
        _calc(
            "Costs rose from 5 bps to 8 bps.",
            ("8 - 5", "Costs rose from 5 bps to 8 bps, an increase of 3 bps."),
            ("8 - 5", "Costs rose from 5 bps to 8 bps, an increase of 3 points."),
            "c1: calc-unit: percentage points are a change of two percentages (n1)",
        ),
    ),
    Rule(
        RuleId.OPERAND,
        "every operand of the derive is a figure of the one cited clause",
        "an operand from elsewhere joins two clauses into a new claim",
        _calc(
            "Costs rose from 5 bps to 8 bps.",
            ("8 - 5", "Costs rose from 5 bps to 8 bps, an increase of 3 bps."),
            ("9 - 5", "Costs rose from 5 bps to 8 bps, an increase of 4 bps."),
            'c1: operand: operand "9" is not a figure of the cited clause (n1)',
        ),
    ),
    Rule(
        RuleId.PARTS,
        "a total, sum or combined figure adds only quantities the clause presents as parts of one whole",
        "old plus new level is not a total of anything",
        _calc(
            "The fee rose from $5 to $8. Total cost combines a $4 spread and a $3 commission.",
            ("4 + 3", "Total cost combines a $4 spread and a $3 commission, $7 in total."),
            ("5 + 8", "The fee rose from $5 to $8, a total of $13."),
            "c1: parts: the clause does not present these figures as parts of one whole (n1)",
        ),
    ),
    Rule(
        RuleId.DERIVE,
        'a calculation carries derive "<arithmetic>" over the clause\'s figures, and it evaluates to what the '
        "relation phrase means",
        "the engine checks the arithmetic and its meaning, not the model's say-so",
        _calc(
            "Costs rose from 5 bps to 8 bps.",
            ("8 - 5", "Costs rose from 5 bps to 8 bps, an increase of 3 bps."),
            ("5 - 8", "Costs rose from 5 bps to 8 bps, an increase of 3 bps."),
            'c1: derive: derive "5 - 8" gives -3, not the change new - old (3) (n1)',
        ),
    ),
    Rule(
        RuleId.ANAPHOR,
        "a conjunct or prose span from another node does not open with this, that, these, it, they or such: it "
        "names its own subject",
        "the anaphor would bind to the other node's subject",
        Example(
            (
                ("Beige account", "The monthly fee is $5. This fee is waived for students."),
                ("Hunter account", "This fee is waived for students."),
            ),
            "claim c1 [restatement] cites n1 :: The monthly fee is $5.\n"
            "claim c2 [restatement] cites n1 :: This fee is waived for students.\n"
            "claim c3 [deduction] from c1, c2 :: The monthly fee is $5, and this fee is waived for students.",
            "claim c1 [restatement] cites n1 :: The monthly fee is $5.\n"
            "claim c2 [restatement] cites n2 :: This fee is waived for students.\n"
            "claim c3 [deduction] from c1, c2 :: The monthly fee is $5, and this fee is waived for students.",
            'c3: anaphor: premise c2 opens with "this" but rests on other nodes than c1; name its subject',
        ),
    ),
    Rule(
        RuleId.BARE_LABEL,
        "a span that is only a heading or label of the cited node (no predicate) is not an assertion",
        "a heading on its own says nothing true or false",
        _one(
            "## Gold tier\n\nMembers earn 2% cashback.\n",
            "Members earn 2% cashback.",
            "Gold tier",
            "c1: bare-label: the claim is a heading or label of the cited node, which asserts nothing; state what it "
            "says",
            title="Rewards",
        ),
    ),
)
"""Every rule, in priority order: the order a refusal lists its findings in."""

JOIN_MARK_NOTE = (
    "Between two bound spans of the prose stand only punctuation, 'and' or 'also'; a colon, dash, arrow or equals "
    "sign between them asserts a relation and the answer fails to parse (anchor.uncovered)."
)
"""The one alignment rule the OUTPUT parser enforces, so it has no refusal line of its own."""


def priority(rule_id: RuleId) -> int:
    return next((index for index, entry in enumerate(REGISTRY) if entry.id == rule_id), len(REGISTRY))
