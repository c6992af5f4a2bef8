"""Atomic sub-claims: the smallest spans of a body that a restatement or a number may cite.

A body is cut into Markdown blocks (paragraphs, list items, headings, table
rows), blocks into sentences, sentences at ``;``, and then at a clause-joining
conjunction (``and``, ``but``, ``while``, ``whereas``, ``so``, ``yet``) only
when it joins two independent clauses. "Independent" is decided by a
deterministic heuristic, not a parser:

- the left side (since the previous cut) has at least three words and
  contains a subject followed by a verb;
- the right side (up to the next conjunction) has at least three words and
  starts with a subject: a personal pronoun, or an optional determiner plus up
  to five noun-phrase words, followed by a verb;
- a verb is an auxiliary or modal, a listed irregular past form, a word in
  ``-ed`` not right after a determiner, or a word in ``-s`` right before a
  preposition, determiner, adverb or number;
- no cut after a scope opener (``if``, ``unless``, ``whether``, ``when``,
  ``assuming``, ``doubt``, ``false`` ...) earlier in the sentence, nor inside
  a ``between``/``both``/``either`` pairing; ``or`` and ``nor`` never cut,
  because neither side of a disjunction is asserted.

Known limits: present-tense verbs without an ending (``we see``) are found
only after a personal pronoun; a clause starting with a preposition or an
adverb (``and then costs rose``) is not cut; a missed cut only makes a unit
longer, so a restatement of half of it is not verbatim and stays ``inferred``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from synapse_server.navigation.text import PlainBlock, markdown_blocks

__all__ = ["Unit", "atomic_units", "restatement_targets", "sentence_units"]


@dataclass(frozen=True, slots=True)
class Unit:
    """One span of a body: ``text`` without Markdown formatting, ``body[start:end]`` the raw source."""

    text: str
    start: int
    end: int


def atomic_units(body: str) -> tuple[Unit, ...]:
    """The atomic sub-claims of a Markdown body, in order: what one clause of evidence says."""
    return tuple(
        unit
        for block in markdown_blocks(body)
        for sentence in _sentences(block.text)
        for piece in _pieces(block.text, sentence)
        for unit in _units(body, block, piece)
    )


def sentence_units(body: str) -> tuple[Unit, ...]:
    """Whole sentences and list items, before cutting at ``;`` and conjunctions."""
    return tuple(
        unit
        for block in markdown_blocks(body)
        for sentence in _sentences(block.text)
        for unit in _units(body, block, sentence)
    )


def restatement_targets(body: str) -> tuple[Unit, ...]:
    """Every span a verbatim restatement may reproduce: the atomic units plus any longer whole sentence."""
    spans = {(unit.start, unit.end): unit for unit in (*atomic_units(body), *sentence_units(body))}
    return tuple(spans[key] for key in sorted(spans, key=lambda span: (span[0], -span[1])))


_OPENING_MARKS = frozenset("[!*_~`<")


def _units(body: str, block: PlainBlock, span: tuple[int, int]) -> list[Unit]:
    start, end = span
    while start < end and block.text[start].isspace():
        start += 1
    while end > start and (block.text[end - 1].isspace() or block.text[end - 1] in ",;:"):
        end -= 1
    text = block.text[start:end]
    if not any(char.isalnum() for char in text):
        return []
    return [Unit(text, *_source_span(body, block, start, end))]


def _source_span(body: str, block: PlainBlock, start: int, end: int) -> tuple[int, int]:
    """The raw span of ``block.text[start:end]``, widened over the formatting that opens and closes it.

    Without this a unit starting with a link would begin inside ``[text](url)``
    and its raw slice would no longer read as the same words.
    """
    kept = set(block.offsets)
    first, last = block.offsets[start], block.offsets[end - 1] + 1
    while first > 0 and body[first - 1] in _OPENING_MARKS and first - 1 not in kept:
        first -= 1
    line_end = body.find("\n", last)
    limit = block.offsets[end] if end < len(block.offsets) else (len(body) if line_end == -1 else line_end)
    while last < limit and last not in kept and body[last] != "\n":
        last += 1
    while last > first and body[last - 1].isspace():
        last -= 1
    return first, last


def _words(spaced: str) -> frozenset[str]:
    return frozenset(spaced.split())


# --- sentences ------------------------------------------------------------------------------------------------------

_END = re.compile(r"[.!?…]+[\"'”’)\]]*(?=\s|$)")
_TOKEN_BEFORE = re.compile(r"(\S+)$")
_ABBREVIATIONS = _words("e.g i.e vs cf viz approx ca resp al mr mrs ms dr prof st jr sr esp incl etc.al a.k.a w.r.t")
_BEFORE_NUMBER = _words("no nos fig figs eq eqs p pp sec vol ch ref tab")


def _sentences(text: str) -> list[tuple[int, int]]:
    """Sentence spans: a stop followed by a space and a character that is not lower case, unless an abbreviation."""
    spans: list[tuple[int, int]] = []
    start = 0
    for match in _END.finditer(text):
        following = len(text) - len(text[match.end() :].lstrip())
        if following < len(text) and text[following].islower():
            continue
        if following < len(text) and match.group().startswith(".") and _abbreviation(text, match, following):
            continue
        spans.append((start, match.end()))
        start = match.end()
    if text[start:].strip():
        spans.append((start, len(text)))
    return spans


def _abbreviation(text: str, match: re.Match[str], following: int) -> bool:
    """Whether the period is an abbreviation's (``e.g.``, ``vs.``, an initial, ``Fig. 3``) rather than a stop."""
    before = _TOKEN_BEFORE.search(text, 0, match.start())
    if before is None:
        return False
    token = before.group(1).lstrip("([\"'“‘").lower()
    if token in _ABBREVIATIONS or (len(token) == 1 and token.isalpha() and before.group(1)[-1].isupper()):
        return True
    return token in _BEFORE_NUMBER and text[following].isdigit()


# --- clauses --------------------------------------------------------------------------------------------------------

_WORDS = re.compile(r"[^\W_]+(?:['’.,:-][^\W_]+)*%?")
_CONJUNCTIONS = frozenset({"and", "but", "while", "whereas", "so", "yet"})
_SCOPE_OPENERS = _words(
    "if unless whether when whenever suppose supposing assuming provided lest false untrue deny denied doubt "
    "doubted unlikely impossible"
)
_PAIRING = frozenset({"between", "both", "either", "neither"})
_PRONOUNS = frozenset({"i", "we", "you", "they", "he", "she", "it", "there"})
_PLAIN_PRONOUNS = frozenset({"i", "we", "you", "they"})
_DEMONSTRATIVES = frozenset({"this", "that", "these", "those"})
_DETERMINERS = _words(
    "the a an our their its his her my your this that these those each every some no all any both either neither "
    "such another"
)
_PREPOSITIONS = _words(
    "in on at to from by for with of into onto after before during since until over under through across without "
    "within between among against per via than as about"
)
_NOT_SUBJECT = _words(
    "what which who whom whose where when why how whether if that then also not never only too thus hence "
    "therefore however"
)
_ADVERBS = _words("also still only then not never already now just again further even largely mostly")
_AUXILIARIES = _words(
    "is are was were be been am has have had do does did will would shall should can could may might must "
    "remain remains remained seem seems seemed become becomes became stays stayed"
)
_IRREGULAR = _words(
    "rose fell grew shrank sank went came made took gave saw ran held kept left lost met paid said sold sent spent "
    "stood told thought won wrote began broke brought built bought caught chose drew drove felt found got knew led "
    "meant showed shown beat bore rang sang sat slept spoke stole struck swung taught threw understood woke wore "
    "outran overtook undercut"
)


def _pieces(text: str, sentence: tuple[int, int]) -> list[tuple[int, int]]:
    """Cut a sentence at semicolons, then each part at conjunctions between independent clauses."""
    start, end = sentence
    pieces: list[tuple[int, int]] = []
    for part in re.finditer(r"[^;]+", text[start:end]):
        pieces.extend(_conjunction_cuts(text, start + part.start(), start + part.end()))
    return pieces


def _conjunction_cuts(text: str, start: int, end: int) -> list[tuple[int, int]]:
    words = [(match.group().lower(), match.start(), match.end()) for match in _WORDS.finditer(text, start, end)]
    cuts: list[tuple[int, int]] = []
    piece_start, first = start, 0
    for index, (word, word_start, _) in enumerate(words):
        if word not in _CONJUNCTIONS or index == first:
            continue
        if any(earlier in _SCOPE_OPENERS for earlier, _, _ in words[:index]):
            break
        left = [entry[0] for entry in words[first:index]]
        following = next((at for at in range(index + 1, len(words)) if words[at][0] in _CONJUNCTIONS), len(words))
        right = [entry[0] for entry in words[index + 1 : following]]
        if _PAIRING.intersection(left) or len(left) < 3 or len(right) < 3:
            continue
        if _has_clause(left) and _starts_clause(right):
            cuts.append((piece_start, word_start))
            piece_start, first = words[index + 1][1], index + 1
    cuts.append((piece_start, end))
    return cuts


def _has_clause(words: list[str]) -> bool:
    return any(_starts_clause(words[at:]) for at in range(len(words)))


def _starts_clause(words: list[str]) -> bool:
    """Whether ``words`` open with a subject followed by a verb (see the module docstring)."""
    if not words or words[0] in _NOT_SUBJECT or words[0] in _PREPOSITIONS or _verb(words, 0):
        return False
    if words[0] in _PRONOUNS:
        at = 1
        while at < len(words) and words[at] in _ADVERBS:
            at += 1
        if at >= len(words):
            return False
        plain = words[0] in _PLAIN_PRONOUNS and words[at] not in _PREPOSITIONS and words[at] not in _DETERMINERS
        return plain or _verb(words, at)
    if words[0] in _DEMONSTRATIVES and len(words) > 1 and words[1] in _AUXILIARIES:
        return True
    at = 1 if words[0] in _DETERMINERS else 0
    nouns = 0
    while at < len(words) and nouns <= 5:
        if _verb(words, at):
            return nouns > 0
        if words[at] in _NOT_SUBJECT or (words[at] in _PREPOSITIONS and words[at] != "of"):
            return False
        nouns += 1
        at += 1
    return False


def _verb(words: list[str], at: int) -> bool:
    word = words[at]
    if word in _AUXILIARIES or word in _IRREGULAR:
        return True
    previous = words[at - 1] if at > 0 else ""
    if at == 0 or previous in _DETERMINERS or previous in _PREPOSITIONS or not word.isalpha() or len(word) <= 3:
        return False
    if word.endswith("ed"):
        return True
    if word.endswith("s") and not word.endswith(("ss", "us", "is", "ics")) and at + 1 < len(words):
        after = words[at + 1]
        return after in _PREPOSITIONS or after in _DETERMINERS or after in _ADVERBS or after[0].isdigit()
    return False
