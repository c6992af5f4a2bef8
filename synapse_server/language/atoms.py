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

from synapse_server.language.text import BlockKind, PlainBlock, markdown_blocks

__all__ = ["Unit", "atomic_units", "names_a_subject", "restatement_targets", "sentence_units"]


@dataclass(frozen=True, slots=True)
class Unit:
    """One span of a body: ``text`` without Markdown formatting, ``body[start:end]`` the raw source.

    ``headings`` is the unit's place in the document, outermost first: the
    enclosing section headings (plain text, no ``#`` marks) and, for a nested
    list item, the text of its parent items. A heading's own path holds only
    the headings above it. A node's title is not part of its body: callers
    that treat the title as the outermost heading prepend it themselves.
    ``kind`` is the kind of the block the unit came from (a heading is a
    label, not a statement).
    """

    text: str
    start: int
    end: int
    headings: tuple[str, ...] = ()
    kind: BlockKind = "paragraph"


def atomic_units(body: str) -> tuple[Unit, ...]:
    """The atomic sub-claims of a Markdown body, in order: what one clause of evidence says.

    Fenced code lines are not prose and yield no unit (HTML comments are gone
    already at the block level), so nothing inside a fence can be restated.
    """
    return tuple(
        unit
        for block, path in _prose_blocks(body)
        for sentence in _sentences(block.text)
        for piece in _pieces(block.text, sentence)
        for unit in _units(body, block, piece, path)
    )


def sentence_units(body: str) -> tuple[Unit, ...]:
    """Whole sentences and list items, before cutting at ``;`` and conjunctions."""
    return tuple(
        unit
        for block, path in _prose_blocks(body)
        for sentence in _sentences(block.text)
        for unit in _units(body, block, sentence, path)
    )


def restatement_targets(body: str) -> tuple[Unit, ...]:
    """Every span a verbatim restatement may reproduce: the atomic units plus any longer whole sentence."""
    spans = {(unit.start, unit.end): unit for unit in (*atomic_units(body), *sentence_units(body))}
    return tuple(spans[key] for key in sorted(spans, key=lambda span: (span[0], -span[1])))


def _prose_blocks(body: str) -> list[tuple[_Block, tuple[str, ...]]]:
    """The non-code blocks of ``body``, each with its heading path, in one pass.

    A heading closes every section at its level or deeper; a list item's
    parents are the open items with less indentation; any other block ends the
    list. The path tuples are shared between the units of a block.
    """
    sections: list[tuple[int, str]] = []
    items: list[tuple[int, str]] = []
    path: tuple[str, ...] = ()
    found: list[tuple[_Block, tuple[str, ...]]] = []
    for block in markdown_blocks(body):
        if block.kind == "code":
            continue
        if block.kind == "heading":
            while sections and sections[-1][0] >= block.level:
                sections.pop()
            items.clear()
            path = tuple(text for _, text in sections)
            found.append((_Block(block), path))
            sections.append((block.level, block.text))
            path = tuple(text for _, text in sections)
            continue
        if block.kind == "item":
            while items and items[-1][0] >= block.level:
                items.pop()
            found.append((_Block(block), path + tuple(text for _, text in items) if items else path))
            items.append((block.level, block.text))
            continue
        items.clear()
        found.append((_Block(block), path))
    return found


class _Block:
    """A block with the set of its kept source offsets, computed once for all of its units."""

    __slots__ = ("kept", "kind", "offsets", "text")

    def __init__(self, block: PlainBlock) -> None:
        self.text, self.offsets, self.kind = block.text, block.offsets, block.kind
        self.kept = frozenset(block.offsets)


_OPENING_MARKS = frozenset("[!*_~`<")


def _units(body: str, block: _Block, span: tuple[int, int], headings: tuple[str, ...]) -> list[Unit]:
    start, end = span
    while start < end and block.text[start].isspace():
        start += 1
    while end > start and (block.text[end - 1].isspace() or block.text[end - 1] in ",;:"):
        end -= 1
    text = block.text[start:end]
    if not any(char.isalnum() for char in text):
        return []
    return [Unit(text, *_source_span(body, block, start, end), headings, block.kind)]


def _source_span(body: str, block: _Block, start: int, end: int) -> tuple[int, int]:
    """The raw span of ``block.text[start:end]``, widened over the formatting that opens and closes it.

    Without this a unit starting with a link would begin inside ``[text](url)``
    and its raw slice would no longer read as the same words.
    """
    kept = block.kept
    first, last = block.offsets[start], block.offsets[end - 1] + 1
    while first > 0 and body[first - 1] in _OPENING_MARKS and first - 1 not in kept:
        first -= 1
    if end < len(block.offsets):
        limit = block.offsets[end]
    else:
        line_end = body.find("\n", last)
        limit = len(body) if line_end == -1 else line_end
    while last < limit and last not in kept and body[last] != "\n":
        last += 1
    while last > first and body[last - 1].isspace():
        last -= 1
    return first, last


def _words(spaced: str) -> frozenset[str]:
    return frozenset(spaced.split())


# --- sentences ------------------------------------------------------------------------------------------------------

_END = re.compile(r"(?<![.!?…])[.!?…]++[\"'”’)\]]*+(?=\s|$)")
_SPACE = re.compile(r"\s*+")
_ABBREVIATIONS = _words("e.g i.e vs cf viz approx ca resp al mr mrs ms dr prof st jr sr esp incl etc.al a.k.a w.r.t")
_BEFORE_NUMBER = _words("no nos fig figs eq eqs p pp sec vol ch ref tab")


def _sentences(text: str) -> list[tuple[int, int]]:
    """Sentence spans: a stop followed by a space and a character that is not lower case, unless an abbreviation.

    Linear in ``text``: each stop looks only at the spaces after it and the token before it.
    """
    spans: list[tuple[int, int]] = []
    start = 0
    for match in _END.finditer(text):
        spaces = _SPACE.match(text, match.end())
        following = spaces.end() if spaces else match.end()
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
    end = match.start()
    begin = end
    while begin > 0 and not text[begin - 1].isspace():
        begin -= 1
    if begin == end:
        return False
    raw = text[begin:end]
    token = raw.lstrip("([\"'“‘").lower()
    if token in _ABBREVIATIONS or (len(token) == 1 and token.isalpha() and raw[-1].isupper()):
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
    for part in _PART.finditer(text, start, end):
        pieces.extend(_conjunction_cuts(text, part.start(), part.end()))
    return pieces


_PART = re.compile(r"[^;]+")


def _conjunction_cuts(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Cut ``text[start:end]`` at conjunctions between independent clauses (see the module docstring).

    Linear in the number of words: the scope and pairing tests use prefix
    indexes, and a clause test that never reached the end of the left side is
    remembered instead of being repeated for every later conjunction.
    """
    found = [(match.group().lower(), match.start()) for match in _WORDS.finditer(text, start, end)]
    words = [word for word, _ in found]
    scope = next((at for at, word in enumerate(words) if word in _SCOPE_OPENERS), len(words))
    pairings = [0]
    for word in words:
        pairings.append(pairings[-1] + (word in _PAIRING))
    following = [len(words)] * (len(words) + 1)
    for at in range(len(words) - 1, -1, -1):
        following[at] = at if words[at] in _CONJUNCTIONS else following[at + 1]
    clauses = _ClauseIndex(words)
    cuts: list[tuple[int, int]] = []
    piece_start, first = start, 0
    for index, word in enumerate(words):
        if word not in _CONJUNCTIONS or index == first:
            continue
        if scope < index:
            break
        right_end = following[index + 1]
        if pairings[index] > pairings[first] or index - first < 3 or right_end - index - 1 < 3:
            continue
        if clauses.any_between(first, index) and _starts_clause(words, index + 1, right_end)[0]:
            cuts.append((piece_start, found[index][1]))
            piece_start, first = found[index + 1][1], index + 1
    cuts.append((piece_start, end))
    return cuts


class _ClauseIndex:
    """Whether some position in ``words[first:stop]`` opens a clause, each position settled once.

    A clause test that ended before ``stop`` does not depend on it, so its
    result is kept; only the few positions near ``stop`` are tested again.
    """

    def __init__(self, words: list[str]) -> None:
        self.words = words
        self.frontier = 0  # every position before it is settled
        self.last_opening = -1  # the last settled position that opens a clause

    def any_between(self, first: int, stop: int) -> bool:
        pending, advancing = False, True
        self.frontier = max(first, self.frontier)  # positions before ``first`` never matter again
        for at in range(self.frontier, stop):
            result, reached = _starts_clause(self.words, at, stop)
            if reached >= stop:
                pending, advancing = pending or result, False
                continue
            if result:
                self.last_opening = max(self.last_opening, at)
            if advancing:
                self.frontier = at + 1
        return pending or self.last_opening >= first


def _starts_clause(words: list[str], at: int, stop: int) -> tuple[bool, int]:
    """Whether ``words[at:stop]`` opens with a subject followed by a verb, and how far the test looked.

    The second value is one past the last position read; it equals ``stop``
    when the test ran into the end, so the answer may change with more words.
    """
    if at >= stop:
        return False, stop
    first = words[at]
    if first in _NOT_SUBJECT or first in _PREPOSITIONS or _verb(words, at, at, stop):
        return False, min(at + 2, stop)
    if first in _PRONOUNS:
        look = at + 1
        while look < stop and words[look] in _ADVERBS:
            look += 1
        if look >= stop:
            return False, stop
        plain = first in _PLAIN_PRONOUNS and words[look] not in _PREPOSITIONS and words[look] not in _DETERMINERS
        return plain or _verb(words, look, at, stop), min(look + 2, stop)
    if first in _DEMONSTRATIVES and at + 1 < stop and words[at + 1] in _AUXILIARIES:
        return True, at + 2
    look = at + 1 if first in _DETERMINERS else at
    nouns = 0
    while look < stop and nouns <= 5:
        if _verb(words, look, at, stop):
            return nouns > 0, min(look + 2, stop)
        if words[look] in _NOT_SUBJECT or (words[look] in _PREPOSITIONS and words[look] != "of"):
            return False, min(look + 2, stop)
        nouns += 1
        look += 1
    return False, min(look + 1, stop) if look < stop else stop


def _verb(words: list[str], at: int, begin: int, stop: int) -> bool:
    """Whether ``words[at]`` reads as a verb within ``words[begin:stop]``."""
    word = words[at]
    if word in _AUXILIARIES or word in _IRREGULAR:
        return True
    previous = words[at - 1] if at > begin else ""
    if at == begin or previous in _DETERMINERS or previous in _PREPOSITIONS or not word.isalpha() or len(word) <= 3:
        return False
    if word.endswith("ed"):
        return True
    if word.endswith("s") and not word.endswith(("ss", "us", "is", "ics")) and at + 1 < stop:
        after = words[at + 1]
        return after in _PREPOSITIONS or after in _DETERMINERS or after in _ADVERBS or after[0].isdigit()
    return False


def names_a_subject(text: str) -> bool:
    """Whether a sentence has a subject before a verb anywhere (``After costs, the spread fell`` does;
    ``Earns 1.0% APY …``, whose subject is a note's title, does not)."""
    words = [match.group().lower() for match in _WORDS.finditer(text)]
    return _ClauseIndex(words).any_between(0, len(words))
