"""Property tests for OUTPUT: exact round trips, and nothing but MemDSLParseError on any text.

Generated values are valid by construction (claims only rest on earlier
claims, the conclusion's closure always reaches a citation, prose is built by
joining the cited assertions with free punctuation), and their free texts are
full of protocol-looking fragments, so the round trip proves those stay inert.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import assume, given
from hypothesis import strategies as st

from memdsl.address import Address, Locator, format_address
from memdsl.errors import MemDSLParseError
from memdsl.output import (
    ACTION_VERBS,
    CANONICAL_REASONS,
    INFERENCE_FORMS,
    Abstention,
    ActionCall,
    Answer,
    Binding,
    Claim,
    Output,
    parse_output,
    serialize_output,
)
from tests.support.properties import document_property

HERE = Path(__file__).parent
PROPERTY = document_property()

PROTOCOL_LOOKING = [
    "@answer",
    "@abstain low-coverage :: nothing grounds it",
    "@memdsl.out/2",
    "@memdsl/1",
    "| x",
    "claim c9 [restatement] cites n1 :: y",
    "::",
    " :: ",
    "conclude c1",
    "cite c1 :: z",
    "prose :: p",
    "```memdsl",
    '"',
    "expand(n1)",
    'derive "1 + 1"',
    "grounded",
    "status=measured",
    "\u201csmart\u201d \u2018quotes\u2019",
    "1.4 -> 1.1 (-21%)",
    "unicode ✓ über 漢字",
]
_FORBIDDEN = "\u2028\u2029\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_CHARS = st.characters(exclude_categories=("Cc", "Cs", "Zl", "Zp"), exclude_characters=_FORBIDDEN)
_PIECE = st.one_of(st.sampled_from(PROTOCOL_LOOKING), st.text(_CHARS, min_size=1, max_size=16))

texts = st.lists(_PIECE, min_size=1, max_size=4).map(" ".join).map(str.strip).filter(bool)
"""A free text: single line, no edge whitespace, protocol fragments welcome."""
quoted_values = st.text(
    st.characters(exclude_categories=("Cc", "Cs", "Zl", "Zp"), exclude_characters=_FORBIDDEN + '"“”‘’'),
    max_size=20,
)
"""A keyword value or derivation body: anything but controls, '"' and typographic quotes."""

_SEGMENT = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9._/-]{0,11}", fullmatch=True)


@st.composite
def refs(draw: st.DrawFn) -> str:
    if draw(st.booleans()):
        return f"n{draw(st.integers(1, 500))}"
    store = draw(st.sampled_from(["mem", "zk", "repo", "data", "doc", "series"]))
    locator = None
    if draw(st.booleans()):
        start = draw(st.integers(0, 5000))
        stamp = draw(st.none() | st.from_regex(r"20[0-9]{2}-[01][0-9]-[0-3][0-9]", fullmatch=True))
        locator = Locator(start, start + draw(st.integers(1, 500)), stamp)
    return format_address(Address(store, draw(_SEGMENT), draw(_SEGMENT), locator))


@st.composite
def actions(draw: st.DrawFn) -> ActionCall:
    verb = draw(st.sampled_from(ACTION_VERBS))
    count = draw(st.integers(2, 4)) if verb == "join" else 1
    args = tuple(draw(st.lists(refs(), min_size=count, max_size=count, unique=True)))
    kwargs: tuple[tuple[str, str], ...] = ()
    if verb == "ground":
        keys = draw(st.lists(st.from_regex(r"[a-z_][a-z0-9_]{0,8}", fullmatch=True), max_size=3, unique=True))
        kwargs = tuple((key, draw(st.sampled_from(["quote", "hash"]) | quoted_values)) for key in keys)
    return ActionCall(verb, args, kwargs)


@st.composite
def answers(draw: st.DrawFn, version: int) -> Answer:
    numbers = draw(st.lists(st.integers(1, 999), min_size=1, max_size=6, unique=True))
    ids = [f"c{number}" for number in numbers]
    claims: list[Claim] = []
    for index, claim_id in enumerate(ids):
        cites = tuple(draw(st.lists(refs(), min_size=1 if index == 0 else 0, max_size=3, unique=True)))
        premises = tuple(draw(st.lists(st.sampled_from(ids[:index]), max_size=3, unique=True))) if index else ()
        form = draw(st.sampled_from(INFERENCE_FORMS)) if cites or premises else "assumption"
        derive = None
        if form == "calculation":
            derive = draw(st.none() | quoted_values.map(str.strip).filter(bool))
        claims.append(Claim(claim_id, form, cites, premises, derive, draw(texts)))
    last = claims[-1]
    closure = Answer(tuple(claims), None, (), last.id).closure(last.id)
    if not any(claim.cites for claim in claims if claim.id in closure):
        claims[-1] = Claim(last.id, last.form, last.cites, (*last.premises, ids[0]), last.derive, last.text)
        closure = Answer(tuple(claims), None, (), last.id).closure(last.id)
    shown = tuple(draw(st.permutations(claims)))
    if version == 1:
        return Answer(shown, None, (), last.id)
    bound = sorted(closure)
    count = draw(st.integers(1, 4))
    prose, bindings = "", []
    for position in range(count):
        if position:
            prose += draw(st.sampled_from([" ", "; ", ". ", " and ", ", ", " (", ") "]))
        assertion = f"#{position}# {draw(texts)}"
        bindings.append(Binding(draw(st.sampled_from(bound)), assertion, len(prose), len(prose) + len(assertion)))
        prose += assertion
    for binding in bindings:
        first = prose.find(binding.text)
        assume(first == binding.start and prose.find(binding.text, first + 1) == -1)
    order = draw(st.permutations(bindings))
    return Answer(shown, prose, tuple(order), last.id)


abstentions = st.builds(
    Abstention,
    st.sampled_from(CANONICAL_REASONS) | st.from_regex(r"[a-z][a-z0-9]{0,6}(-[a-z0-9]{1,6}){0,2}", fullmatch=True),
    texts,
)


@st.composite
def false_premises(draw: st.DrawFn) -> Abstention:
    """A v2 false-premise abstention with the claim DAG of an answer as its evidence."""
    return Abstention("false-premise", draw(texts), draw(answers(2)).claims)


@st.composite
def outputs(draw: st.DrawFn) -> Output:
    version = draw(st.sampled_from([1, 2]))
    terminal = draw(st.one_of(answers(version), abstentions, *([false_premises()] if version == 2 else [])))
    return Output(version, tuple(draw(st.lists(actions(), max_size=5))), terminal)


@PROPERTY
@given(outputs())
def test_parse_inverts_serialize_for_any_valid_output(value: Output) -> None:
    text = serialize_output(value)
    assert parse_output(text) == value
    assert serialize_output(parse_output(text)) == text


@PROPERTY
@given(answers(2))
def test_v2_prose_bindings_survive_a_round_trip_with_their_offsets(answer: Answer) -> None:
    value = Output(2, (), answer)
    parsed = parse_output(serialize_output(value)).terminal
    assert isinstance(parsed, Answer) and parsed.prose is not None
    assert all(parsed.prose[b.start : b.end] == b.text for b in parsed.bindings)


# --- fuzz: any str fails cleanly ------------------------------------------------------------


def _goldens() -> list[str]:
    return [path.read_text(encoding="utf-8") for path in sorted(HERE.glob("golden/out_*.txt"))]


def _parses_or_fails_cleanly(text: str) -> None:
    """Parsing raises nothing but MemDSLParseError; whatever parses is canonical once re-serialized."""
    try:
        value = parse_output(text)
    except MemDSLParseError:
        return
    assert parse_output(serialize_output(value)) == value


@PROPERTY
@given(st.text(max_size=400))
def test_arbitrary_text_raises_only_parse_errors(text: str) -> None:
    _parses_or_fails_cleanly(text)


@PROPERTY
@given(st.lists(st.sampled_from(PROTOCOL_LOOKING + [line for text in _goldens() for line in text.split("\n")])))
def test_protocol_looking_line_soup_raises_only_parse_errors(lines: list[str]) -> None:
    _parses_or_fails_cleanly("@memdsl.out/2\n" + "\n".join(lines))


@st.composite
def mutated(draw: st.DrawFn) -> str:
    """A golden artifact after a few line deletions, duplications, swaps, or character flips."""
    lines = draw(st.sampled_from(_goldens())).split("\n")
    for _ in range(draw(st.integers(1, 3))):
        op = draw(st.sampled_from(["delete", "duplicate", "swap", "flip", "insert", "remove"]))
        i = draw(st.integers(0, len(lines) - 1))
        j = draw(st.integers(0, len(lines) - 1))
        if op == "delete" and len(lines) > 1:
            del lines[i]
        elif op == "duplicate":
            lines.insert(i, lines[i])
        elif op == "swap":
            lines[i], lines[j] = lines[j], lines[i]
        elif lines[i] or op == "insert":
            at = draw(st.integers(0, max(len(lines[i]) - 1, 0)))
            char = draw(st.sampled_from([*' \n\r\t:,"“@`[]()=-.0c', "\u2028", "\x00"]) | st.characters())
            replacement = {"flip": char, "insert": char + lines[i][at : at + 1], "remove": ""}[op]
            lines[i] = lines[i][:at] + replacement + lines[i][at + 1 :]
    return "\n".join(lines)


@PROPERTY
@given(mutated())
def test_mutated_artifacts_fail_cleanly_or_stay_canonical(text: str) -> None:
    _parses_or_fails_cleanly(text)
