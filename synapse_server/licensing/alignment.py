"""An alignment, not a bag: a claim's tokens against one clause's tokens, in order, by named edit operations.

The operations, each a rule of :mod:`.rules`:

- **match** a token with the same stem (case, inflection, possessive), a
  same-meaning word of the closed table (:data:`~.language.SAME_MEANING`), the
  same bound, the same negation, or a figure of the same value and unit (or an
  exact conversion: % and bps, days and weeks);
- **drop** a clause token only when it restricts nothing (an article, an
  auxiliary, a discourse marker); every other clause token must be matched
  (coverage both ways), so a negation, condition, quantifier, modal, direction,
  bound, label or qualifier is never lost;
- **add** a claim token only when it restricts nothing, or it belongs to a run
  of the unit's frame words (:mod:`.frames`), or it is the ``not`` of a negated
  frame or the ``must`` of a requirement frame;
- **move** one intact phrase (a comma-delimited segment) once.

The alignment is a minimum-cost edit between the two sequences; it licenses
only at cost zero. ``exact`` says no operation but identical matches, articles
and frame words was used: the claim restates the clause in its frame.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

from synapse_server.language.words import ARTICLES, Token, same_meaning
from synapse_server.licensing.frames import EMPTY_FRAME, FRAME_MODALS, FRAME_NOUNS, Frame
from synapse_server.licensing.rules import RuleId, priority

__all__ = ["Alignment", "Finding", "align", "cuts_of"]

Match = Literal["exact", "equivalent"]
_FRAME_JOINERS = frozenset({"preposition", "free"})
_CLAIM_RULE = {
    "negation": RuleId.NEGATION,
    "quantifier": RuleId.QUANTIFIER,
    "modal": RuleId.MODALITY,
    "direction": RuleId.DIRECTION,
    "bound": RuleId.BOUND,
    "condition": RuleId.CONDITION,
    "figure": RuleId.FIGURE,
}
_COPULAS = frozenset({"is", "are", "do", "does"})
"""Adding a present copula (or the do of a negated frame) keeps a restatement exact: it makes a sentence of a
bare item or cell."""
_MAX_ROTATED = 40
"""A claim up to this many tokens may have a leading or trailing phrase moved at any token, not only at a comma."""
_MAX_TOKENS = 160
"""Longer sentences are not aligned (the cost is quadratic); such a claim must be split."""


@dataclass(frozen=True, slots=True)
class Finding:
    """One failing rule, naming the claim's own tokens (or where in the claim a clause word went missing)."""

    rule: RuleId
    detail: str


@dataclass(frozen=True, slots=True)
class Alignment:
    """The verdict of one claim against one clause: licensed when ``findings`` is empty."""

    findings: tuple[Finding, ...]
    exact: bool = False
    cost: int = 0

    @property
    def ok(self) -> bool:
        return not self.findings


def align(
    claim: Sequence[Token],
    clause: Sequence[Token],
    frame: Frame = EMPTY_FRAME,
    *,
    claim_cuts: Sequence[int] = (),
    clause_cuts: Sequence[int] = (),
) -> Alignment:
    """The best alignment of ``claim`` to ``clause`` in its ``frame``, trying one phrase move if order fails."""
    if len(claim) > _MAX_TOKENS or len(clause) > _MAX_TOKENS:
        return Alignment((Finding(RuleId.WORDS, "the claim or its clause is too long to align; split it"),), cost=99)
    best = _align_once(claim, clause, frame)
    if best.ok or not _same_tokens(claim, clause, frame):
        return best  # a move only reorders: it cannot mend a missing or an extra word
    for moved_claim, moved_clause in _moves(claim, clause, claim_cuts, clause_cuts):
        tried = _align_once(moved_claim, moved_clause, frame)
        if tried.ok:
            return Alignment((), exact=False)
    return best


def _same_tokens(claim: Sequence[Token], clause: Sequence[Token], frame: Frame) -> bool:
    """Every restricting token of each side has a partner on the other, in any order: only then may a move help."""
    adds = _claim_insertions(claim, clause, frame)
    needed = [token for token, (cost, _) in zip(claim, adds, strict=True) if cost]
    if not all(any(compatible(token, other) for other in clause) for token in needed):
        return False
    kept = [token for token in clause if token.cls != "free"]
    return all(any(compatible(other, token) for other in claim) for token in kept)


def cuts_of(plain: str, found: Sequence[Token]) -> tuple[int, ...]:
    """Token indices where a comma, semicolon or dash separates two phrases: the places a phrase may move from."""
    cuts = []
    for index in range(1, len(found)):
        gap = plain[found[index - 1].end : found[index].start]
        if any(mark in gap for mark in (",", ";", "\u2014", " - ")):
            cuts.append(index)
    return tuple(cuts)


def _moves(
    claim: Sequence[Token], clause: Sequence[Token], claim_cuts: Sequence[int], clause_cuts: Sequence[int]
) -> list[tuple[Sequence[Token], Sequence[Token]]]:
    """One intact phrase moved: the claim rotated at any token (a leading or trailing phrase moved to the other
    end), the clause rotated at a comma, or a comma-delimited middle phrase of the claim moved to either end."""
    moves: list[tuple[Sequence[Token], Sequence[Token]]] = []
    if len(claim) <= _MAX_ROTATED:
        moves.extend(([*claim[cut:], *claim[:cut]], clause) for cut in range(1, len(claim)))
    for cut in clause_cuts[:6]:
        moves.append((claim, [*clause[cut:], *clause[:cut]]))
    for a, b in itertools.pairwise(claim_cuts[:6]):
        middle = claim[a:b]
        moves.append(([*middle, *claim[:a], *claim[b:]], clause))
        moves.append(([*claim[:a], *claim[b:], *middle], clause))
    return moves


def compatible(a: Token, b: Token) -> Match | None:
    """Whether a claim token may stand at a clause token's place, and whether that is an identical match."""
    if a.cls == "figure" or b.cls == "figure":
        return _figures(a, b)
    if a.term == b.term:
        return "exact" if a.text.casefold() == b.text.casefold() else "equivalent"
    if a.cls in ("content", "direction") and b.cls in ("content", "direction") and same_meaning(a.term, b.term):
        return "equivalent"
    return None


def _figures(a: Token, b: Token) -> Match | None:
    if a.figure is None or b.figure is None:
        return None
    if a.term == b.term:
        return "exact" if a.figure.key == b.figure.key else "equivalent"
    if a.days is not None and b.days is not None and a.days == b.days:
        return "equivalent"
    pa, pb = a.figure, b.figure
    if pa.sign != pb.sign:
        return None
    if {pa.kind, pb.kind} == {"percent", "bps"}:
        percent, bps = (pa, pb) if pa.kind == "percent" else (pb, pa)
        return "equivalent" if percent.value * Decimal(100) == bps.value else None
    return None


def _claim_insertions(claim: Sequence[Token], clause: Sequence[Token], frame: Frame) -> list[tuple[int, str]]:
    """Per claim token: (cost of adding it, how): 0 for free words, frame runs and the frame's own polarity."""
    framed = [t.cls in ("content", "direction", "quantifier") and t.term in frame.terms for t in claim]
    in_run = list(framed)
    for index, token in enumerate(claim):
        if framed[index] or not _joiner(token):
            continue
        left = next((framed[k] for k in range(index - 1, -1, -1) if not _joiner(claim[k])), False)
        right = next((framed[k] for k in range(index + 1, len(claim)) if not _joiner(claim[k])), False)
        in_run[index] = left or right
    costs: list[tuple[int, str]] = []
    for index, token in enumerate(claim):
        if framed[index] or (in_run[index] and token.cls != "free"):
            costs.append((0, "frame"))
        elif token.cls == "free":
            costs.append((0, "article" if token.text.casefold() in ARTICLES | _COPULAS else "free"))
        elif token.cls == "negation" and frame.negated and token.term == "not":
            costs.append((0, "frame-negation"))
        elif token.cls == "modal" and frame.requirement and token.text.casefold() in FRAME_MODALS:
            costs.append((0, "frame"))
        else:
            costs.append((1, "restricting"))
    return costs


def _joiner(token: Token) -> bool:
    """A word that may stand inside a run of frame words: a preposition, a free word, or a generic frame noun."""
    return token.cls in _FRAME_JOINERS or (token.cls == "content" and token.term in FRAME_NOUNS)


def _align_once(claim: Sequence[Token], clause: Sequence[Token], frame: Frame) -> Alignment:
    adds = _claim_insertions(claim, clause, frame)
    drops = [
        (0, "article") if t.text.casefold() in ARTICLES else (0, "free") if t.cls == "free" else (1, "restricting")
        for t in clause
    ]
    n, m = len(claim), len(clause)
    inf = (10**6, 10**6)
    cost = [[inf] * (m + 1) for _ in range(n + 1)]
    move = [[""] * (m + 1) for _ in range(n + 1)]
    cost[0][0] = (0, 0)
    for i in range(n + 1):
        for j in range(m + 1):
            if i == 0 and j == 0:
                continue
            best, how = inf, ""
            if i and j:
                kind = compatible(claim[i - 1], clause[j - 1])
                if kind is not None:
                    prev = cost[i - 1][j - 1]
                    best, how = (prev[0], prev[1] + (kind != "exact")), "m"
            if i:
                prev, (add, label) = cost[i - 1][j], adds[i - 1]
                cand = (prev[0] + add, prev[1] + (label not in ("article", "frame", "frame-negation")))
                if cand < best:
                    best, how = cand, "a"
            if j:
                prev, (drop, label) = cost[i][j - 1], drops[j - 1]
                cand = (prev[0] + drop, prev[1] + (label != "article"))
                if cand < best:
                    best, how = cand, "d"
            cost[i][j], move[i][j] = best, how
    added, dropped, used = _trace(move, n, m, adds)
    findings = _findings(claim, clause, added, dropped, adds)
    if not findings and frame.negated and "frame" in used and "frame-negation" not in used:
        findings.append(
            Finding(RuleId.FRAME_POLARITY, "the unit's frame is negated; a claim that names it must say not")
        )
    findings.sort(key=lambda f: priority(f.rule))
    return Alignment(tuple(findings), exact=cost[n][m][1] == 0, cost=cost[n][m][0])


def _trace(
    move: list[list[str]], n: int, m: int, adds: Sequence[tuple[int, str]]
) -> tuple[list[int], list[int], set[str]]:
    """The claim tokens added at a cost, the clause tokens dropped at a cost, and every kind of addition used."""
    added: list[int] = []
    dropped: list[int] = []
    used: set[str] = set()
    i, j = n, m
    while i or j:
        step = move[i][j]
        if step == "m":
            i, j = i - 1, j - 1
        elif step == "a":
            i -= 1
            used.add(adds[i][1])
            if adds[i][0]:
                added.append(i)
        else:
            j -= 1
            dropped.append(j)
    return sorted(added), sorted(dropped), used


def _findings(
    claim: Sequence[Token],
    clause: Sequence[Token],
    added: Sequence[int],
    dropped: Sequence[int],
    adds: Sequence[tuple[int, str]],
) -> list[Finding]:
    restricting_drops = [j for j in dropped if clause[j].cls != "free"]
    if not added and not restricting_drops:
        return []
    if _reordered(claim, clause, added, restricting_drops):
        words = _quoted(claim[i].text for i in added)
        return [Finding(RuleId.ORDER, f"words {words} are out of the order of the clause (one phrase may move)")]
    by_rule: dict[RuleId, list[str]] = {}
    for i in added:
        rule_id = _CLAIM_RULE.get(claim[i].cls, RuleId.WORDS)
        by_rule.setdefault(rule_id, []).append(claim[i].text)
    findings = [Finding(rule_id, _added_detail(rule_id, words)) for rule_id, words in by_rule.items()]
    missing: dict[RuleId, int] = {}
    for j in restricting_drops:
        rule_id = _CLAIM_RULE.get(clause[j].cls, RuleId.DROPPED)
        missing[rule_id] = missing.get(rule_id, 0) + 1
    for rule_id, count in missing.items():
        if rule_id in by_rule:
            continue  # the same rule already names the claim's own word at that place
        findings.append(Finding(rule_id, _dropped_detail(rule_id, count)))
    return findings


def _reordered(claim: Sequence[Token], clause: Sequence[Token], added: Sequence[int], dropped: Sequence[int]) -> bool:
    """Every added claim token has a compatible dropped clause token: the words are there, out of order."""
    if not added or len(added) != len(dropped):
        return False
    free = list(dropped)
    for i in added:
        partner = next((j for j in free if compatible(claim[i], clause[j]) is not None), None)
        if partner is None:
            return False
        free.remove(partner)
    return True


_ADDED = {
    RuleId.WORDS: "words {w} are not in the cited clause or its frame",
    RuleId.NEGATION: "negation {w} is not at that place in the cited clause",
    RuleId.QUANTIFIER: "quantifier {w} is not at that place in the cited clause",
    RuleId.MODALITY: "modal {w} is not at that place in the cited clause",
    RuleId.DIRECTION: "direction {w} is not the cited clause's direction at that place",
    RuleId.BOUND: "bound {w} is not the cited clause's comparison at that place",
    RuleId.CONDITION: "condition {w} is not the cited clause's condition at that place",
    RuleId.FIGURE: "figure {w} is not a figure of the cited clause at that place",
}
_DROPPED = {
    RuleId.DROPPED: "the claim leaves out {n} restricting word(s) of the cited clause (labels, qualifiers, subject)",
    RuleId.NEGATION: "the claim drops a negation of the cited clause",
    RuleId.QUANTIFIER: "the claim drops a quantifier of the cited clause",
    RuleId.MODALITY: "the claim drops a modal or hedge of the cited clause",
    RuleId.DIRECTION: "the claim drops a direction word of the cited clause",
    RuleId.BOUND: "the claim drops a comparison (up to, at least …) of the cited clause",
    RuleId.CONDITION: "the claim drops a condition or exception of the cited clause",
    RuleId.FIGURE: "the claim leaves out {n} figure(s) of the cited clause",
}


def _added_detail(rule_id: RuleId, words: Sequence[str]) -> str:
    return _ADDED[rule_id].format(w=_quoted(words))


def _dropped_detail(rule_id: RuleId, count: int) -> str:
    return _DROPPED[rule_id].format(n=count)


def _quoted(words: object) -> str:
    listed = list(dict.fromkeys(str(w) for w in words))  # type: ignore[attr-defined]
    return ", ".join(f'"{w}"' for w in listed[:6])
